"""Bit Flip is Kayles: the Grundy value of a run of zeros, from the game's own moves.

A position of one run of ``n`` zeros is a Bit Flip row ``n`` bits wide. Its value is
the smallest whole number that none of its moves reaches (the "mex"), where a
position of several runs is worth the XOR of its runs' values. The values of
shorter runs are known by then, so one pass from 0 to N does it.
"""

from __future__ import annotations

from functools import reduce
from operator import xor

from games.rules import Game
from games.rules.bit_flip import EXACT_ZEROS, mex, runs

from . import Theory, register
from .geometry import grid

COLUMNS = 12  # Kayles' values repeat with period 12: one period a row
CELL_W, CELL_H = 26.0, 74.0
TOP = 22.0  # room for the column headings
# The values are found from the game's own moves (play) up to here, where one full period
# after 71 has shown itself; beyond, the period (games.rules.bit_flip.kayles) gives them.
BY_PLAY = 83
# The picture and the table stop here (eight rows of the period); a wider row's value is
# that of the run in the last period drawn with the same remainder mod 12.
SHOWN = 95


def grundy_values(game: Game, longest: int) -> list[int]:
    """The Grundy value of one run of 0..longest zeros, from ``legal_moves`` and
    ``play`` on a row of that width up to BY_PLAY; beyond, by the period of 12."""
    values = [0]  # no zeros: no move
    for n in range(1, min(longest, BY_PLAY) + 1):
        pos = game.start(width=n)
        reached = []
        for move in game.legal_moves(pos):
            child = game.play(pos, move)
            reached.append(reduce(xor, (values[r] for r in runs(child.bits)), 0))
        values.append(mex(reached))
    for n in range(BY_PLAY + 1, longest + 1):
        values.append(values[n - 12])
    return values


@register("bit-flip")
def theory(game: Game, options: dict) -> Theory:
    width = options["width"]
    values = grundy_values(game, width)
    drawn = values[: SHOWN + 1]
    # The cell outlined for the start: itself, or the drawn run its value repeats.
    like = width if width <= SHOWN else SHOWN - COLUMNS + 1 + (width - SHOWN - 1) % COLUMNS
    top = max(drawn) or 1
    corners, w, h = grid(len(drawn), COLUMNS, CELL_W, CELL_H)
    bar_room = CELL_H - 34
    cells = []
    for n, (value, (x, y)) in enumerate(zip(drawn, corners, strict=True)):
        bar = bar_room * value / top
        cells.append(
            {
                "n": n,
                "value": value,
                "x": x,
                "y": y + TOP,
                "bar_y": y + TOP + 18 + bar_room - bar,
                "bar_h": bar,
                "text_y": y + TOP + 14,
                "label_y": y + TOP + CELL_H - 4,
                "centre": x + CELL_W / 2,
                "repeats": n >= COLUMNS and values[n - COLUMNS] == value,
                "start": n == like,
            }
        )
    columns = [
        {"x": i * (CELL_W + 4) + CELL_W / 2, "label": f"+{i}"}
        for i in range(min(COLUMNS, len(values)))
    ]
    analysis = game.analyse(game.start(width=width))
    return Theory(
        game,
        options,
        {
            "cells": cells,
            "columns": columns,
            "width": w,
            "height": h + TOP,
            "cell_w": CELL_W,
            "cell_h": CELL_H,
            "start_value": values[width],
            "winner": analysis.winner if analysis else None,
            "values": drawn,
            "like": like if like != width else None,
            "maximum": game.option("width").maximum,
        },
        caps=(
            f"Runs of 0 to {min(width, SHOWN)} zeros: the width, from 1 to "
            f"{game.option('width').maximum} (wider rows repeat a drawn value).",
            f"The values are found from the game's own moves up to {BY_PLAY} zeros; beyond, "
            "they repeat with period 12 (from 71 on, as Guy and Smith proved in 1956).",
            "The exact analysis of the start says who wins at every width, from these values; "
            "the number of moves it takes is searched only while at most "
            f"{EXACT_ZEROS} bits are 0.",
        ),
        start_summary=analysis.summary if analysis else "",
    )
