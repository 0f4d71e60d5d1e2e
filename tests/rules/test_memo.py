"""The analysis memos stay within their budget, whatever the options played."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

from games.rules import base, get_game
from games.rules.computer import choose_move

ROOT = Path(__file__).resolve().parents[2]


def perfect_games(slug: str, options: list[dict]) -> None:
    game = get_game(slug)
    for n, opts in enumerate(options):
        pos, rng = game.start(**opts), random.Random(n)
        while pos.result is None:
            pos = game.play(pos, choose_move(game, pos, "perfect", rng))


def test_thirty_perfect_games_with_different_divisors_stay_within_the_budget():
    perfect_games(
        "bitwise-battle",
        [{"condition": "divisible", "target": 1000 - k, "max_length": 48} for k in range(30)],
    )
    assert base.memo_size() <= base.MEMO_BUDGET * 1.5  # the last analysis may run over


def test_the_memo_of_the_options_in_play_is_kept_and_answers_stay_exact():
    game = get_game("bitwise-battle")
    pos = game.start(condition="divisible", target=7, max_length=20)
    first = game.analyse(pos)
    perfect_games("bit-flip", [{"width": 8}, {"width": 10}])  # other games, other options
    again = game.analyse(pos)
    assert again == first
    cold = type(game)().analyse(pos)  # a fresh instance shares the memos: same answer
    assert cold == first


def test_a_process_playing_thirty_games_with_different_options_stays_small():
    """Peak memory of a fresh process (the rules alone): the memos of thirty option sets
    took 450 MB before they had a budget."""
    script = textwrap.dedent(
        """
        import random
        from games.rules import get_game
        from games.rules.computer import choose_move
        game = get_game("bitwise-battle")
        for k in range(30):
            pos = game.start(condition="divisible", target=1000 - k, max_length=64)
            rng = random.Random(k)
            while pos.result is None:
                pos = game.play(pos, choose_move(game, pos, "perfect", rng))
        status = open("/proc/self/status").read()
        print(int(status.split("VmHWM:")[1].split()[0]) // 1024)
        """
    )
    peak_mib = int(
        subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    )
    assert peak_mib < 100, peak_mib
