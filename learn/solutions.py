"""What the learn app asks of the solver, as functions of plain values: what its pool runs.

    solve_position(game, pos)          # Solution: the exact analysis and the best line
    solve_theory(game, options)        # learn.theory.Theory
    work("position", slug, payload)    # either, by name, with the CPU time it took

The answers are keyed by their canonical form (``position_key``, ``theory_key``): the
game, its options and the position as the rules write it (``Game.to_json``, with sorted
keys), so every request that names the same position, by whatever line, query order or
way of writing its options, shares one answer.

Nothing here imports Django: the pool's worker processes (learn/pool.py) import only
this module, the rules and ``learn.theory``. Every result is a frozen value that
pickles, as it crosses from a worker process and is kept in Django's cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from games.rules import Analysis, Game, Position, get_game

from . import theory as theories

# The best line shown: followed until the game ends, or this many plies.
LINE_CAP = 30
POSITION, THEORY, LINE = "position", "theory", "line"
# The pool's worker processes run at this priority, below the server's (learn/pool.py),
# and look this often whether the server is still there.
NICE = 10
PARENT_CHECK_SECONDS = 1.0


@dataclass(frozen=True)
class Solution:
    """A position's exact analysis, and its best line: a best move (the first of
    ``best_moves``) again and again, until the game ends or LINE_CAP plies."""

    analysis: Analysis
    line: tuple[str, ...]


def solve_position(game: Game, pos: Position) -> Solution:
    analysis = game.analyse(pos)
    line: list[str] = []
    here, best = pos, analysis.best_moves
    while not here.over and len(line) < LINE_CAP and best:
        here = game.play(here, best[0])
        line.append(best[0])
        best = game.best_moves(here) if not here.over else ()
    return Solution(analysis, tuple(line))


def solve_line(game: Game, options: dict[str, Any], moves: list[str]) -> tuple:
    """The analysis board's strip: for the start and after each of ``moves`` (a line of
    canonical moves from the start), who can force a win, and whether the move that led
    there was a blunder: ((winner, blunder), ...). From the winners alone where the game
    allows it (``strip_from_winners``), else from every move's verdict."""
    if game.decisive:
        return strip_from_winners(game, options, moves)
    return strip_from_verdicts(game, options, moves)


def strip_from_winners(game: Game, options: dict[str, Any], moves: list[str]) -> tuple:
    """The strip in a game where every position is won by one side (``Game.decisive``):
    a blunder is a move from a won position to a lost one, so ``Game.winner`` (one
    nim-sum per position in Bit Flip) is all it needs, not every move's verdict."""
    pos = game.start(**options)
    winner = game.winner(pos)
    cells = [(winner, False)]
    for move in moves:
        mover = pos.to_move
        pos = game.play(pos, move)
        after = game.winner(pos)
        cells.append((after, winner == mover and after != mover))
        winner = after
    return tuple(cells)


def strip_from_verdicts(game: Game, options: dict[str, Any], moves: list[str]) -> tuple:
    """The strip from each position's analysis and each move's verdict (any game)."""
    pos = game.start(**options)
    analysis = game.analyse(pos)
    cells = [(analysis.winner, False)]
    for move in moves:
        verdict = analysis.verdict(move) or game.verdict_of(pos, move)
        pos = game.play(pos, move)
        analysis = game.analyse(pos)
        cells.append((analysis.winner, verdict.blunder))
    return tuple(cells)


def line_key(game: Game, options: dict[str, Any], moves) -> str:
    return f"{LINE}:{game.slug}:{_canonical(options)}:{'.'.join(moves)}"


def solve_theory(game: Game, options: dict[str, Any]) -> theories.Theory:
    return theories.theory_for(game, options)


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def position_key(game: Game, pos: Position) -> str:
    return f"{POSITION}:{game.slug}:{_canonical(game.to_json(pos))}"


def theory_key(game: Game, options: dict[str, Any]) -> str:
    return f"{THEORY}:{game.slug}:{_canonical(options)}"


def start_worker() -> None:
    """In each worker process of the pool, as it starts: let the server come first, and
    end with it. (A pool's worker holds both ends of its task queue, so it never sees
    the server go: killed, the server would leave it waiting for ever.)"""
    with contextlib.suppress(OSError):
        os.nice(NICE)
    server = os.getppid()

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="bitsite-solver-watch", daemon=True).start()


def work(kind: str, slug: str, payload: dict[str, Any]):
    """One task of the pool: (the answer, the seconds of CPU it took in its thread)."""
    begin = time.thread_time()
    game = get_game(slug)
    if kind == POSITION:
        found = solve_position(game, game.from_json(payload))
    elif kind == THEORY:
        found = solve_theory(game, payload)
    elif kind == LINE:
        found = solve_line(game, payload["options"], payload["moves"])
    else:
        raise ValueError(f"no such task: {kind!r}")
    return found, time.thread_time() - begin
