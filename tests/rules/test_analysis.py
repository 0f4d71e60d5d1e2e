"""The exact analysis against an independent brute-force minimax, at small options.

The brute force (tests/rules/helpers.py) only uses legal_moves, play and outcome,
with its own memo. For every reachable position it must agree with
``game.analyse``: the winner, the plies to the end (the winner hurries, the loser
delays), the best moves and every move's verdict.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import Verdict, get_game
from games.rules.base import forget_memos
from games.rules.bit_flip import BitFlip
from games.rules.bit_flip_divisor import BitFlipDivisor
from games.rules.bitwise_battle import BitwiseBattle
from games.rules.last_digit_standing import LastDigitStanding
from tests.rules.helpers import brute_force, other, reachable
from tests.rules.test_bit_flip import kayles_grundy


def check_position(game, pos, memo) -> None:
    """analyse(pos) agrees with the brute force, move by move."""
    analysis = game.analyse(pos)
    winner, plies = brute_force(game, pos, memo)
    assert (analysis.winner, analysis.plies) == (winner, plies), game.to_json(pos)
    assert analysis.to_move == pos.to_move
    if pos.result is not None:
        assert analysis.best_moves == ()
        return
    mover = pos.to_move
    legal = game.legal_moves(pos)
    assert [item.move for item in analysis.moves] == legal
    best = []
    for item in analysis.moves:
        child = game.play(pos, item.move)
        child_winner, child_plies = brute_force(game, child, memo)
        assert (item.winner, item.plies) == (child_winner, child_plies + 1), item
        if (child_winner, child_plies + 1) == (winner, plies):
            best.append(item.move)
        # The verdict says what the move did.
        if child.result is not None and child.result.winner != mover:
            assert item.verdict is Verdict.LOSES_AT_ONCE
        elif winner == mover:
            keeps = child_winner == mover
            assert item.verdict is (Verdict.KEEPS_WIN if keeps else Verdict.THROWS_WIN)
        else:
            assert item.verdict is Verdict.NO_WIN
        assert item.blunder == (winner == mover and child_winner != mover)
    assert list(analysis.best_moves) == best
    assert best
    # Consistency: won exactly when some move leads to a position lost for the opponent.
    some_move_wins = any(
        (game.outcome(child) or game.analyse(child)).winner == mover
        for child in (game.play(pos, move) for move in legal)
    )
    assert (winner == mover) == some_move_wins


def check_all_reachable(game, **options) -> int:
    memo: dict = {}
    positions = reachable(game, game.start(**options))
    for pos in positions:
        check_position(game, pos, memo)
    return len(positions)


@pytest.mark.parametrize("width", range(1, 10))
def test_bit_flip_every_reachable_position(width):
    forget_memos()  # a cold analysis
    assert check_all_reachable(BitFlip(), width=width) >= 2


@pytest.mark.parametrize("divisor", [2, 3, 5, 7, 10, 17, 64, 85, 127, 255])
def test_bit_flip_divisor_every_reachable_position(divisor):
    assert check_all_reachable(BitFlipDivisor(), divisor=divisor) >= 9


@pytest.mark.parametrize("highest", range(2, 10))
def test_last_digit_standing_every_reachable_position(highest):
    assert check_all_reachable(LastDigitStanding(), highest=highest) >= highest


@pytest.mark.parametrize(
    "options",
    [
        {"condition": "divisible", "target": k, "max_length": n}
        for k in (2, 3, 4, 5, 7)
        for n in (1, 2, 5, 10)
    ]
    + [{"condition": "ones", "target": k, "max_length": n} for k in (1, 2, 3) for n in (3, 6)]
    + [{"condition": "equals", "target": v, "max_length": 6} for v in (1, 2, 5, 9, 21, 63)],
    ids=lambda options: "-".join(str(value) for value in options.values()),
)
def test_bitwise_battle_every_reachable_position(options):
    assert check_all_reachable(BitwiseBattle(), **options) >= 3


def test_last_digit_standing_default_start():
    game = LastDigitStanding()
    memo: dict = {}
    check_position(game, game.start(), memo)
    for move in game.legal_moves(game.start()):
        check_position(game, game.play(game.start(), move), memo)


def test_bit_flip_default_positions_along_playouts():
    game = BitFlip()
    memo: dict = {}
    rng = random.Random(3)
    for _ in range(5):
        pos = game.start()
        while pos.result is None:
            check_position(game, pos, memo)
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))


@settings(max_examples=30, deadline=None)
@given(
    slug=st.sampled_from(["bit-flip", "bit-flip-divisor", "last-digit-standing", "bitwise-battle"]),
    seed=st.integers(0, 10**6),
)
def test_random_positions_shared_memo_agrees_with_cold_analysis(slug, seed):
    # The site keeps one Game per slug with a warm memo; a fresh instance must agree.
    shared = get_game(slug)
    options = {
        "bit-flip": {"width": 12},
        "bit-flip-divisor": {"divisor": 2 + seed % 254},
        "last-digit-standing": {"highest": 10},
        "bitwise-battle": {"condition": "divisible", "target": 2 + seed % 20, "max_length": 16},
    }[slug]
    rng = random.Random(seed)
    pos = shared.start(**options)
    steps = rng.randrange(0, 6)
    for _ in range(steps):
        if pos.result is not None:
            break
        pos = shared.play(pos, rng.choice(shared.legal_moves(pos)))
    warm = shared.analyse(pos)
    cold = type(shared)().analyse(pos)
    assert warm == cold


def test_bit_flip_winner_is_the_kayles_nim_sum_along_playouts():
    game = get_game("bit-flip")
    grundy = kayles_grundy(game.option("width").maximum)
    rng = random.Random(11)
    for width in (8, 13, 20, 32):
        for _ in range(3):
            pos = game.start(width=width)
            while pos.result is None:
                nim_sum = 0
                for run in pos.bits.split("1"):
                    nim_sum ^= grundy[len(run)]
                winner = game.analyse(pos).winner
                assert (winner == pos.to_move) == (nim_sum != 0), pos.bits
                pos = game.play(pos, rng.choice(game.legal_moves(pos)))


def test_last_bit_standing_verdicts_are_safe_or_losing():
    game = get_game("last-bit-standing")
    rng = random.Random(5)
    pos = game.start()
    for _ in range(200):
        analysis = game.analyse(pos)
        assert analysis.winner is None
        assert analysis.plies is None
        for item in analysis.moves:
            child = game.play(pos, item.move)
            if child.result is None:
                assert item.verdict is Verdict.SAFE
                assert (item.winner, item.plies, item.blunder) == (None, None, False)
                assert item.move in analysis.best_moves
            else:
                assert child.result.winner == other(pos.to_move)
                assert item.verdict is Verdict.LOSES_AT_ONCE
                assert (item.winner, item.plies, item.blunder) == (other(pos.to_move), 1, True)
                assert item.move not in analysis.best_moves
        assert analysis.best_moves
        pos = game.play(pos, rng.choice(analysis.best_moves))
    assert pos.result is None


def test_summary_texts():
    game = get_game("bit-flip")
    assert game.analyse(game.start(width=2)).summary == (
        "Player 1 wins with perfect play, 1 move from here."
    )
    # Width 3: bit 2 leaves two single bits, so Player 1 flips the last one at ply 3.
    analysis = game.analyse(game.start(width=3))
    assert analysis.best_moves == ("2",)
    assert analysis.summary == "Player 1 wins with perfect play, 3 moves from here."
    end = game.play(game.start(width=2), "1 2")
    assert game.analyse(end).summary == "Player 1 has won."
