"""Bit Flip: Divisor: who wins from the start, by divisor, from ``analyse``.

One exact analysis per divisor: a block of ``BLOCK`` divisors (the one containing
the chosen divisor) keeps the page well under a second cold.
"""

from __future__ import annotations

from games.rules import Game

from . import Theory, register
from .geometry import grid

# Divisors a page analyses: cold, about 0.15 s on an idle 2-core machine, 0.5 s on a busy one.
BLOCK = 64
COLUMNS = 8
CELL_W, CELL_H = 40.0, 40.0


def block(game: Game, divisor: int) -> range:
    """The block of divisors shown with ``divisor``: 2-65, 66-129, ..."""
    option = game.option("divisor")
    first = option.minimum + (divisor - option.minimum) // BLOCK * BLOCK
    return range(first, min(first + BLOCK - 1, option.maximum) + 1)


def outcomes(game: Game, divisors) -> list[dict]:
    rows = []
    for divisor in divisors:
        analysis = game.analyse(game.start(divisor=divisor))
        rows.append(
            {
                "divisor": divisor,
                "winner": analysis.winner,
                "plies": analysis.plies,
                "best": analysis.best_moves if analysis.winner == analysis.to_move else (),
            }
        )
    return rows


@register("bit-flip-divisor")
def theory(game: Game, options: dict) -> Theory:
    chosen = options["divisor"]
    shown = block(game, chosen)
    rows = outcomes(game, shown)
    corners, w, h = grid(len(rows), COLUMNS, CELL_W, CELL_H)
    for row, (x, y) in zip(rows, corners, strict=True):
        row.update(x=x, y=y, cx=x + CELL_W / 2, chosen=row["divisor"] == chosen)
    option = game.option("divisor")
    blocks = [
        {
            "first": first,
            "last": min(first + BLOCK - 1, option.maximum),
            "current": first == shown.start,
        }
        for first in range(option.minimum, option.maximum + 1, BLOCK)
    ]
    chosen_row = next(row for row in rows if row["divisor"] == chosen)
    return Theory(
        game,
        options,
        {
            "rows": rows,
            "width": w,
            "height": h,
            "cell_w": CELL_W,
            "cell_h": CELL_H,
            "first": shown.start,
            "last": shown.stop - 1,
            "blocks": blocks,
            "chosen": chosen_row,
            "player_one": [row["divisor"] for row in rows if row["winner"] == 1],
        },
        caps=(
            f"{BLOCK} divisors a page (one exact analysis each), the block that holds the "
            f"chosen divisor; the divisor is from {option.minimum} to {option.maximum}.",
        ),
        start_summary=game.analyse(game.start(divisor=chosen)).summary,
    )
