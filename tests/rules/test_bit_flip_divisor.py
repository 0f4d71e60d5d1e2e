"""Bit Flip: Divisor (rule book 003): the examples, the forfeit ruling, the analysis."""

from __future__ import annotations

from itertools import permutations

import pytest

from games.rules import GameOver, MalformedMove, Verdict, get_game
from tests.rules.helpers import replay, round_trip

GAME = get_game("bit-flip-divisor")


def value_of(position: int) -> int:
    """The value of bit ``position`` (1 is the most significant of eight)."""
    return 1 << (8 - position)


def test_start():
    pos = GAME.start()
    assert (pos.divisor, pos.bits, pos.value) == (7, "00000000", 0)
    assert GAME.legal_moves(pos) == ["1", "2", "3", "4", "5", "6", "7", "8"]


def test_example_target_7_player_1_wins_with_7():
    pos = GAME.start(divisor=7)
    pos = GAME.play(pos, "8")
    assert (pos.bits, pos.value, pos.result, pos.to_move) == ("00000001", 1, None, 2)
    pos = GAME.play(pos, "7")
    assert (pos.bits, pos.value, pos.result, pos.to_move) == ("00000011", 3, None, 1)
    pos = GAME.play(pos, "6")
    assert (pos.bits, pos.value) == ("00000111", 7)
    assert pos.result.winner == 1
    assert (
        GAME.describe_outcome(pos) == "Player 1 made 00000111 (decimal 7), and 7 is divisible by 7."
    )
    assert GAME.legal_moves(pos) == []


def orders_avoiding_multiples_of_5():
    """Orders of flipping positions 1-7 where no partial value is a multiple of 5."""
    found = []
    for order in permutations(range(1, 8)):
        value = 0
        for position in order:
            value += value_of(position)
            if value % 5 == 0:
                break
        else:
            found.append(order)
    return found


def test_alternate_scenario_target_5_player_2_wins_with_255():
    # The book only says "players alternate flipping bits in positions 1 to 7, none
    # leading to a number divisible by 5". Such orders exist; play one of them.
    orders = orders_avoiding_multiples_of_5()
    assert orders
    order = orders[0]
    assert order == (1, 2, 3, 5, 4, 6, 7)
    pos = GAME.start(divisor=5)
    for position in order:
        pos = GAME.play(pos, str(position))
        assert pos.result is None
        assert pos.value % 5 != 0
    assert pos.bits == "11111110"
    assert pos.value == 254
    assert pos.to_move == 2  # turn 8
    pos = GAME.play(pos, "8")
    assert pos.value == 255
    assert 255 % 5 == 0
    assert pos.result.winner == 2
    assert "255 is divisible by 5" in GAME.describe_outcome(pos)


def test_alternate_scenario_a_careless_order_ends_earlier():
    # Flipping 1-7 left to right is not such an order: 11110000 = 240 = 5 x 48.
    pos = GAME.start(divisor=5)
    for position in "123":
        pos = GAME.play(pos, position)
        assert pos.result is None
    pos = GAME.play(pos, "4")
    assert pos.value == 240
    assert pos.result.winner == 2  # the fourth flip is Player 2's


def test_invalid_move_sample_the_maker_loses():
    # "Select a bit to flip (1-8): 8 / Error: Bit 8 is already set to 1. /
    # Invalid move! Player 1 wins by default." The maker is Player 2 here.
    pos = replay(GAME, ["8"])
    assert pos.to_move == 2
    end = GAME.play(pos, "8")
    assert end.result.winner == 1
    assert GAME.describe_outcome(end) == (
        "Player 2 named bit 8, which is already set to 1: an invalid move loses."
    )
    assert end.bits == pos.bits  # nothing was flipped
    assert end.ply == pos.ply + 1
    assert GAME.legal_moves(end) == []


def test_player_1_making_an_invalid_move_loses_too():
    pos = replay(GAME, ["8", "1"])
    assert pos.to_move == 1
    end = GAME.play(pos, "1")
    assert end.result.winner == 2


@pytest.mark.parametrize("text", ["0", "9", "-1", "255", "12345678901234567890"])
def test_a_position_outside_1_to_8_loses_for_its_maker(text):
    pos = replay(GAME, ["8"])
    end = GAME.play(pos, text)
    assert end.result.winner == 1
    assert GAME.describe_outcome(end) == (
        f"Player 2 named bit {int(text)}, outside 1-8: an invalid move loses."
    )


@pytest.mark.parametrize("text", ["", "  ", "x", "bit 3", "3.0", "3 4", "1" * 33])
def test_text_naming_no_position_is_refused_without_penalty(text):
    pos = replay(GAME, ["8"])
    with pytest.raises(MalformedMove) as caught:
        GAME.play(pos, text)
    assert "a position from 1 to 8" in str(caught.value)
    assert pos.result is None
    assert GAME.play(pos, "1").result is None  # the same player then plays on


def test_no_zero_bit_left_the_player_to_move_loses():
    # Divisor 2: once bit 8 is set, every value is odd and no flip can win.
    pos = GAME.start(divisor=2)
    pos = GAME.play(pos, "8")
    for position in "1234567":
        assert pos.result is None
        pos = GAME.play(pos, position)
    assert pos.bits == "11111111"
    assert pos.result.winner == 2  # Player 2 made the 8th flip; Player 1 has no bit left
    assert GAME.describe_outcome(pos) == (
        "Player 1 has no 0 bit left to flip, and 255 is not divisible by 2."
    )


def test_game_over_resign_and_json():
    pos = replay(GAME, ["8", "7"])
    assert round_trip(GAME, pos) == pos
    resigned = GAME.resign(pos, 1)
    assert resigned.result.winner == 2
    assert round_trip(GAME, resigned) == resigned
    with pytest.raises(GameOver):
        GAME.play(resigned, "3")
    end = replay(GAME, ["8", "7", "6"])
    with pytest.raises(GameOver):
        GAME.play(end, "1")
    with pytest.raises(GameOver):
        GAME.play(end, "8")  # not a forfeit either: the game is over


def test_analysis_of_the_default_game():
    # With divisor 7 Player 2 wins with perfect play. Player 1, losing, delays:
    # flipping bit 3 or 6 first lets Player 2 win in 6 plies instead of 8.
    analysis = GAME.analyse(GAME.start())
    assert analysis.winner == 2
    assert analysis.plies == 8
    assert set(analysis.best_moves) == {"1", "2", "4", "5", "7", "8"}
    assert analysis.verdict("3").plies == analysis.verdict("6").plies == 6
    for item in analysis.moves:
        assert item.verdict is Verdict.NO_WIN
        assert item.winner == 2


def test_verdict_of_a_forfeit():
    pos = replay(GAME, ["8"])
    verdict = GAME.verdict_of(pos, "8")
    assert verdict.verdict is Verdict.LOSES_AT_ONCE
    assert verdict.winner == 1
    assert verdict.plies == 1
