"""How long the analysis board's answer takes, cold: ``python -m benchmarks.analysis_board``.

The target (issue 25): an analysis answer, every legal move's verdict and the best line,
within 100 ms of server time at every allowed size: the defaults, the largest (Bit Flip
1,000 bits and Last Digit Standing 1-100, answered from the theory) and the largest the
exact search still takes (Bit Flip's EXACT_ZEROS bits, Last Digit Standing's
EXACT_NUMBERS numbers and its densest ten).

What is timed is ``learn.analysis_board.parse`` + ``context``: the query string read and
replayed through the rules, the position analysed, the best line followed and every
link written; that is all the analysis view does besides rendering the template. Each
answer starts cold (every analysis memo dropped: ``games.rules.base.forget_memos``).
For each game and option set (benchmarks.analysis.option_sets: the defaults, then the
largest) it times the start position and positions along seeded random playouts, and
reports the median and the worst (the slowest few timed three times, their median kept,
as benchmarks/analysis.py does).

    python -m benchmarks.analysis_board            # about half a minute
    python -m benchmarks.analysis_board --quick    # fewer positions
    python -m benchmarks.analysis_board --json     # the rows as JSON

``main`` exits 1 if any worst time is over its limit.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-not-secret")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECURE_SSL", "0")
django.setup()

from django.http import QueryDict  # noqa: E402

from benchmarks.analysis import REPEAT_SLOWEST, option_sets  # noqa: E402
from games.rules import GAMES, Game, get_game  # noqa: E402
from games.rules.base import forget_memos  # noqa: E402
from games.rules.bit_flip import EXACT_ZEROS  # noqa: E402
from games.rules.last_digit_standing import EXACT_NUMBERS, LastDigitPosition  # noqa: E402
from learn import analysis_board  # noqa: E402

PLY_CAP = 60  # Last Bit Standing never ends by itself: playouts stop here
LIMIT = 0.100  # seconds, at every size
# The densest ten numbers of 1-100 found for the search (the worst it takes), as a line
# from the start that removes the other ninety.
DENSE_TEN = (1, 3, 4, 5, 8, 10, 12, 40, 64, 96)


def board_option_sets(game: Game) -> list[tuple[str, dict[str, Any], float]]:
    """(label, options, limit): the analysis benchmark's sets, and the search's frontier."""
    sets = [(label, options, LIMIT) for label, options, _ in option_sets(game)]
    if game.slug == "bit-flip":
        sets.append(("searched", {"width": EXACT_ZEROS}, LIMIT))
    elif game.slug == "last-digit-standing":
        sets.append(("searched", {"highest": EXACT_NUMBERS}, LIMIT))
    return sets


def lines_to_measure(
    game: Game, options: dict[str, Any], playouts: int, sample: int, rng: random.Random
) -> list[tuple[str, ...]]:
    """The start (no moves), then up to ``sample`` lines from random playouts."""
    start = game.start(**options)
    lines = []
    for _ in range(playouts):
        pos, moves = start, []
        while pos.result is None and len(moves) < PLY_CAP:
            moves.append(rng.choice(game.legal_moves(pos)))
            pos = game.play(pos, moves[-1])
            lines.append(tuple(moves))
    lines = list(dict.fromkeys(lines))
    if len(lines) > sample:
        lines = rng.sample(lines, sample)
    return [(), *lines]


def cold_time(game: Game, written: str) -> float:
    """Seconds for one analysis answer to the query string ``written``, cold."""
    forget_memos()
    gc.collect()
    begin = time.perf_counter()
    analysis_board.context(analysis_board.parse(game, QueryDict(written)))
    return time.perf_counter() - begin


def measure(game, label, options, limit, quick: bool, seed: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}-{game.slug}-{sorted(options.items())}")
    cleaned = game.clean_options(options)
    lines = lines_to_measure(
        game, options, playouts=2 if quick else 6, sample=20 if quick else 60, rng=rng
    )
    queries = [analysis_board.query(analysis_board.build(game, cleaned, line)) for line in lines]
    times = [cold_time(game, written) for written in queries]
    slowest = sorted(range(len(times)), key=times.__getitem__, reverse=True)[:REPEAT_SLOWEST]
    steady = {
        i: statistics.median([times[i], cold_time(game, queries[i]), cold_time(game, queries[i])])
        for i in slowest
    }
    worst = max(steady, key=steady.__getitem__)
    return {
        "game": game.slug,
        "label": label,
        "description": game.describe_options(cleaned) if game.options else "no options",
        "positions": len(queries),
        "start_s": steady.get(0, times[0]),
        "median_s": statistics.median(times),
        "worst_s": steady[worst],
        "worst_query": queries[worst],
        "limit_s": limit,
        "ratio": steady[worst] / limit,
        "ok": steady[worst] <= limit,
    }


def dense_row() -> dict[str, Any]:
    """Last Digit Standing's densest ten numbers of 1-100 (no line reaches them from the
    start, so the board's state is made directly): the search's worst answer."""
    game = get_game("last-digit-standing")
    options = {"highest": 100}
    pos = LastDigitPosition(highest=100, remaining=DENSE_TEN, last=None)
    state = analysis_board.State(game, options, (), 0, (pos,))

    def once() -> float:
        forget_memos()
        gc.collect()
        begin = time.perf_counter()
        analysis_board.context(state)
        return time.perf_counter() - begin

    worst = statistics.median([once(), once(), once()])
    return {
        "game": game.slug,
        "label": "searched",
        "description": "the ten numbers " + " ".join(map(str, DENSE_TEN)),
        "positions": 1,
        "start_s": worst,
        "median_s": worst,
        "worst_s": worst,
        "worst_query": "",
        "limit_s": LIMIT,
        "ratio": worst / LIMIT,
        "ok": worst <= LIMIT,
    }


def run(quick: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    rows = [
        measure(game, label, options, limit, quick, seed)
        for game in GAMES
        for label, options, limit in board_option_sets(game)
    ]
    return [*rows, dense_row()]


def table(rows: list[dict[str, Any]]) -> str:
    described = [f"{row['label']}: {row['description']}" for row in rows]
    width = max(len("options"), *(len(text) for text in described))
    header = (
        f"{'game':<20} {'options':<{width}} {'pos':>4} {'start ms':>9} {'median ms':>10} "
        f"{'worst ms':>9} {'limit ms':>9} {'worst/limit':>12}"
    )
    lines = [header, "-" * len(header)]
    for row, description in zip(rows, described, strict=True):
        lines.append(
            f"{row['game']:<20} {description:<{width}} {row['positions']:>4} "
            f"{row['start_s'] * 1000:>9.1f} {row['median_s'] * 1000:>10.2f} "
            f"{row['worst_s'] * 1000:>9.1f} {row['limit_s'] * 1000:>9.0f} "
            f"{row['ratio']:>12.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = run(quick=args.quick, seed=args.seed)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("Analysis board answers, cold (parse + every move's verdict + the best line)")
        print(table(rows))
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
