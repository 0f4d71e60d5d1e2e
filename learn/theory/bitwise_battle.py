"""Bitwise Battle: who wins from the start, for each maximum length 1..L, from ``analyse``.

One analysis per length: the closed rule (games/rules/bitwise_battle.py) answers each
at once, so the strip shows every length up to the one asked for, at any condition.
"""

from __future__ import annotations

from games.rules import Game

from . import Theory, register
from .geometry import grid

COLUMNS = 10
CELL_W, CELL_H = 32.0, 40.0


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
    last = chosen
    rows = region(game, condition, target, range(1, last + 1))
    corners, w, h = grid(len(rows), COLUMNS, CELL_W, CELL_H)
    for row, (x, y) in zip(rows, corners, strict=True):
        row.update(x=x, y=y, cx=x + CELL_W / 2)
    caps = [f"Maximum lengths 1 to {last}: one exact analysis each, by the closed rule."]
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
