"""The computer player: four levels, all built on the rules and the exact analysis.

- ``random``: any legal move.
- ``casual``: takes a move that wins at once, avoids moves that lose at once,
  otherwise random.
- ``strong``: perfect in won positions (one of the fastest winning moves);
  otherwise random among the moves that don't lose at once.
- ``perfect``: wins fastest, loses slowest (random among equally good moves).
  Where the theory gives the winner but not the number of moves (``plies`` None:
  Bit Flip and Last Digit Standing at large sizes) it still never lets a won game
  slip, and hurries or delays as well as it can tell (``Game.prefer``) until the
  position is small enough for the exact search.

Every choice is deterministic under a seeded ``random.Random``.
"""

from __future__ import annotations

import random

from .base import Game, Position

LEVELS = ("random", "casual", "strong", "perfect")
LEVEL_LABELS = {
    "random": "Random: any legal move",
    "casual": "Casual: takes an instant win, avoids an instant loss",
    "strong": "Strong: never lets a won game slip",
    "perfect": "Perfect: wins fastest, loses slowest",
}


def split_immediate(game: Game, pos: Position, moves: list[str]):
    """The moves that win at once, and those that don't lose at once."""
    wins, safe = [], []
    for move in moves:
        after = game.play(pos, move)
        if after.result is None:
            safe.append(move)
        elif after.result.winner == pos.to_move:
            wins.append(move)
            safe.append(move)
    return wins, safe


def choose_move(game: Game, pos: Position, level: str, rng: random.Random) -> str:
    """The computer's move at ``level``; ValueError for an unknown level or a finished game."""
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; the levels are: {', '.join(LEVELS)}.")
    moves = game.legal_moves(pos)
    if not moves:
        raise ValueError("The game is over: there is no move to choose.")
    if level == "random":
        return rng.choice(moves)
    if level == "casual":
        wins, safe = split_immediate(game, pos, moves)
        return rng.choice(wins or safe or moves)
    analysis = game.analyse(pos)
    if level == "perfect" or analysis.winner == pos.to_move:
        best = list(analysis.best_moves)
        if analysis.plies is None:  # the theory knows who wins, not how fast: guess well
            best = game.prefer(pos, best, analysis.winner == pos.to_move)
        return rng.choice(best)
    _, safe = split_immediate(game, pos, moves)
    return rng.choice(safe or moves)
