"""Bitwise Battle (rule book 001): the book's examples, the sample's erratum, the rulings."""

from __future__ import annotations

import pytest

from games.rules import GameOver, MalformedMove, Verdict, get_game
from tests.rules.helpers import replay, round_trip

GAME = get_game("bitwise-battle")


def test_defaults_follow_the_book():
    pos = GAME.start()
    assert (pos.condition, pos.target, pos.max_length, pos.bits) == ("divisible", 3, 20, "")
    assert pos.value == 0
    assert pos.to_move == 1
    assert GAME.legal_moves(pos) == ["0", "1"]


def test_example_1_divisible_by_3_player_2_wins_at_turn_6_with_45():
    pos = GAME.start(condition="divisible", target=3)
    expected = [(1, "1", 1), (2, "10", 2), (1, "101", 5), (2, "1011", 11), (1, "10110", 22)]
    for (player, bits, value), bit in zip(expected, "10110", strict=True):
        assert pos.to_move == player
        pos = GAME.play(pos, bit)
        assert (pos.bits, pos.value, pos.result) == (bits, value, None)
        assert value % 3 != 0  # no multiple of 3 before 45
    assert pos.to_move == 2
    pos = GAME.play(pos, "1")
    assert (pos.bits, pos.value) == ("101101", 45)
    assert pos.ply == 6
    assert pos.result.winner == 2
    assert GAME.describe_outcome(pos) == "Player 2 made 101101 = 45, and 45 mod 3 = 0."


def test_example_2_exactly_four_ones_player_2_wins_at_turn_6():
    pos = GAME.start(condition="ones", target=4)
    counts = []
    for bit in "10110":
        pos = GAME.play(pos, bit)
        assert pos.result is None
        counts.append(pos.ones)
    assert counts == [1, 1, 2, 3, 3]
    pos = GAME.play(pos, "1")
    assert (pos.bits, pos.ones, pos.ply) == ("101101", 4, 6)
    assert pos.result.winner == 2
    assert GAME.describe_outcome(pos) == "Player 2 made 101101, which has exactly 4 ones."


def test_sample_divisible_by_5_player_1_wins_with_101():
    # Erratum: the sample plays on to 1010101 = 85, but 101 = 5 already wins.
    pos = GAME.start(condition="divisible", target=5)
    pos = GAME.play(pos, "1")
    pos = GAME.play(pos, "0")
    assert pos.result is None
    pos = GAME.play(pos, "1")
    assert (pos.bits, pos.value, pos.ply) == ("101", 5, 3)
    assert pos.result.winner == 1
    assert "5 mod 5 = 0" in GAME.describe_outcome(pos)
    with pytest.raises(GameOver):
        GAME.play(pos, "0")


def test_zeros_never_satisfy_divisible():
    pos = GAME.start(condition="divisible", target=2, max_length=4)
    for _ in range(3):
        pos = GAME.play(pos, "0")
        assert pos.result is None
        assert pos.value == 0
    # The fourth zero reaches the maximum length: its maker (Player 2) loses.
    pos = GAME.play(pos, "0")
    assert pos.bits == "0000"
    assert pos.result.winner == 1
    assert "maximum of 4 bits" in GAME.describe_outcome(pos)
    assert "Player 2 made the last move and loses" in GAME.describe_outcome(pos)


def test_leading_zeros_count_for_length_not_value():
    pos = replay(GAME, ["0", "0", "1", "0"], condition="equals", target=2, max_length=6)
    assert pos.bits == "0010"
    assert pos.value == 2
    assert pos.result.winner == 2
    assert GAME.describe_outcome(pos) == "Player 2 made 0010 = 2."


def test_equals_can_become_unreachable():
    pos = replay(GAME, ["1", "1"], condition="equals", target=5, max_length=4)
    # 11 is no prefix of 101: 5 is out of reach.
    assert pos.value == 3
    assert pos.result is None
    analysis = GAME.analyse(pos)
    # Nobody can make 5 any more: the 4th bit is made by Player 2, who loses.
    assert analysis.winner == 1
    assert analysis.plies == 2
    end = replay(GAME, ["1", "1", "0", "1"], condition="equals", target=5, max_length=4)
    assert end.result.winner == 1


def test_exactly_k_ones_wins_the_moment_the_count_reaches_k():
    pos = replay(GAME, ["1"], condition="ones", target=1, max_length=5)
    assert pos.result.winner == 1
    assert GAME.describe_outcome(pos) == "Player 1 made 1, which has exactly 1 one."


def test_the_last_bit_that_wins_is_a_win_not_a_length_loss():
    # Reaching the length cap and the condition at once: the condition wins.
    pos = replay(GAME, ["1", "0"], condition="divisible", target=3, max_length=3)
    pos = GAME.play(pos, "0")  # 100 = 4: not a multiple, the cap is reached
    assert pos.result.winner == 2
    pos = replay(GAME, ["1", "1"], condition="divisible", target=3, max_length=3)
    assert pos.result.winner == 2  # 11 = 3 at the second bit
    pos = replay(GAME, ["1", "0", "0"], condition="divisible", target=4, max_length=3)
    assert pos.result.winner == 1  # 100 = 4 on the last allowed bit wins


def test_a_game_ends_within_the_maximum_length():
    pos = GAME.start(condition="equals", target=1, max_length=5)
    while pos.result is None:
        pos = GAME.play(pos, "0")
    assert len(pos.bits) == 5
    assert pos.result.winner == 2  # Player 1 made the fifth bit


@pytest.mark.parametrize("text", ["", " ", "2", "x", "00", "1 0", "0b1", "1" * 33])
def test_malformed_moves_are_refused(text):
    pos = replay(GAME, ["1"])
    with pytest.raises(MalformedMove) as caught:
        GAME.play(pos, text)
    assert "0 or 1" in str(caught.value)
    assert GAME.play(pos, " 0 ").bits == "10"  # whitespace around a bit is fine


def test_resign_and_game_over():
    pos = replay(GAME, ["1"])
    resigned = GAME.resign(pos, 2)
    assert resigned.result.winner == 1
    assert GAME.describe_outcome(resigned) == "Player 2 resigned."
    assert GAME.legal_moves(resigned) == []
    with pytest.raises(GameOver):
        GAME.play(resigned, "1")


def test_json_round_trip_is_exact():
    for pos in [
        GAME.start(),
        replay(GAME, ["1", "0"], condition="ones", target=2, max_length=9),
        replay(GAME, ["1", "0", "1"], condition="divisible", target=5),
        GAME.start(condition="equals", target=2**64 - 1, max_length=64),
    ]:
        assert round_trip(GAME, pos) == pos
        assert GAME.to_json(round_trip(GAME, pos)) == GAME.to_json(pos)


def test_analysis_of_the_book_settings():
    # At the default 20 bits Player 1 can keep away from every multiple of 3 and
    # leave Player 2 to make the 20th bit.
    analysis = GAME.analyse(GAME.start(condition="divisible", target=3))
    assert (analysis.winner, analysis.plies, analysis.best_moves) == (1, 20, ("0",))
    assert analysis.verdict("1").verdict is Verdict.THROWS_WIN
    assert analysis.verdict("0").verdict is Verdict.KEEPS_WIN


def test_analysis_takes_an_instant_win():
    pos = replay(GAME, ["1", "0"], condition="divisible", target=5)
    analysis = GAME.analyse(pos)
    assert analysis.winner == 1
    assert analysis.plies == 1
    assert analysis.best_moves == ("1",)
