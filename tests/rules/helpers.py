"""Small helpers shared by the rules tests: replay, JSON round trip, an independent solver."""

from __future__ import annotations

import json

from games.rules import Game, Position


def replay(game: Game, moves, **options) -> Position:
    """The position after playing ``moves`` from the start with ``options``."""
    pos = game.start(**options)
    for move in moves:
        pos = game.play(pos, move)
    return pos


def round_trip(game: Game, pos: Position) -> Position:
    """The position after a trip through real JSON text, as the database stores it."""
    return game.from_json(json.loads(json.dumps(game.to_json(pos))))


def other(player: int) -> int:
    return 3 - player


def brute_force(game: Game, pos: Position, memo: dict) -> tuple[int, int]:
    """(winner, plies to the end) with perfect play: the winner hurries, the loser delays.

    Written from the verbs only (legal_moves, play, outcome) and memoised in the
    caller's own dict, so it shares nothing with the game's analysis.
    """
    found = memo.get(pos)
    if found is not None:
        return found
    result = game.outcome(pos)
    if result is not None:
        value = (result.winner, 0)
    else:
        mover = pos.to_move
        moves = game.legal_moves(pos)
        assert moves, f"a game in progress must offer a move: {pos}"
        children = [brute_force(game, game.play(pos, move), memo) for move in moves]
        wins = [plies for winner, plies in children if winner == mover]
        if wins:
            value = (mover, 1 + min(wins))
        else:
            value = (other(mover), 1 + max(plies for _, plies in children))
    memo[pos] = value
    return value


def reachable(game: Game, start: Position) -> list[Position]:
    """Every position reachable from ``start`` by legal moves, the start first."""
    seen = {start}
    order = [start]
    for pos in order:
        for move in game.legal_moves(pos):
            child = game.play(pos, move)
            if child not in seen:
                seen.add(child)
                order.append(child)
    return order
