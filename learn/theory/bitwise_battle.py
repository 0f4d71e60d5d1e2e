"""Bitwise Battle: who wins from the start, for each maximum length 1..L, from ``analyse``.

One exact analysis per length. Its cost grows with the length times the states of
the condition (2k remainders for "divisible by k", k + 1 counts for "exactly k
ones", the prefixes of v for "equals v"), so the strip stops before the sum of
those passes ``STATE_BUDGET``: about 0.1 s cold on an idle 2-core machine, 0.3 s on a
busy one.
"""

from __future__ import annotations

from games.rules import Game

from . import Theory, register
from .geometry import grid

STATE_BUDGET = 100_000
COLUMNS = 10
CELL_W, CELL_H = 32.0, 40.0


def states(condition: str, target: int, length: int) -> int:
    """About how many positions the analysis of one maximum length visits."""
    if condition == "divisible":
        per_length = 2 * target
    elif condition == "ones":
        per_length = target + 1
    else:
        per_length = length + 1
    return length * per_length


def longest(condition: str, target: int, max_length: int) -> int:
    """The longest maximum length drawn: up to ``max_length``, within the budget."""
    total = 0
    for length in range(1, max_length + 1):
        total += states(condition, target, length)
        if total > STATE_BUDGET:
            return max(1, length - 1)
    return max_length


def region(game: Game, condition: str, target: int, lengths) -> list[dict]:
    """For each maximum length, who wins from the start (None: the options are not
    allowed at that length, e.g. more ones than bits)."""
    rows = []
    for length in lengths:
        try:
            start = game.start(condition=condition, target=target, max_length=length)
        except ValueError as error:
            rows.append({"length": length, "winner": None, "plies": None, "why": str(error)})
            continue
        analysis = game.analyse(start)
        rows.append(
            {
                "length": length,
                "winner": analysis.winner,
                "plies": analysis.plies,
                "best": analysis.best_moves if analysis.winner == 1 else (),
                "why": "",
            }
        )
    return rows


@register("bitwise-battle")
def theory(game: Game, options: dict) -> Theory:
    condition, target, chosen = options["condition"], options["target"], options["max_length"]
    last = longest(condition, target, chosen)
    rows = region(game, condition, target, range(1, last + 1))
    corners, w, h = grid(len(rows), COLUMNS, CELL_W, CELL_H)
    for row, (x, y) in zip(rows, corners, strict=True):
        row.update(x=x, y=y, cx=x + CELL_W / 2)
    caps = [
        f"Maximum lengths 1 to {last}"
        + (f" (of the {chosen} asked for)" if last < chosen else "")
        + f": one exact analysis each, at most about {STATE_BUDGET:,} positions in all."
    ]
    default = {opt.name: opt.default for opt in game.options}
    is_default_condition = (condition, target) == (default["condition"], default["target"])
    return Theory(
        game,
        options,
        {
            "rows": rows,
            "width": w,
            "height": h,
            "cell_w": CELL_W,
            "cell_h": CELL_H,
            "last": last,
            "condition_text": game.describe_options(options).split(";")[0],
            "default_condition": is_default_condition,
        },
        caps=tuple(caps),
        start_summary=game.analyse(game.start(**options)).summary,
    )
