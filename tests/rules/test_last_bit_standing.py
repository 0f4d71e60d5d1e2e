"""Last Bit Standing (rule book 000): the book's correct examples, the errata, long games."""

from __future__ import annotations

import json
import random
import sys

import pytest

from games.rules import GameOver, IllegalMove, MalformedMove, Verdict, get_game
from games.rules.last_bit_standing import HEAD, LOW_DIGITS, TAIL, LastBitPosition
from tests.rules.helpers import replay, round_trip

GAME = get_game("last-bit-standing")


def position_of(binary: str, ply: int = 0) -> LastBitPosition:
    """A hand-built position holding ``binary`` (short numbers only), Player 1 to move."""
    number = int(binary, 2)
    assert len(binary) <= HEAD
    return LastBitPosition(
        ply=ply, head=binary, tail="", length=len(binary), rem=number % 3, low=number
    )


def test_starts_from_one():
    pos = GAME.start()
    assert pos.binary == "1"
    assert pos.decimal == "1"
    assert pos.value == 1
    assert pos.to_move == 1
    assert GAME.legal_moves(pos) == ["0", "1"]
    assert GAME.outcome(pos) is None


def test_example_1_move_by_move():
    pos = GAME.start()
    # Player 1: "11" = 3 would lose at once; "10" = 2 is valid. He appends 0.
    lost = GAME.play(pos, "1")
    assert lost.result.winner == 2
    assert "11 (decimal 3), which is divisible by 3" in GAME.describe_outcome(lost)
    pos = GAME.play(pos, "0")
    assert (pos.binary, pos.decimal, pos.result) == ("10", "2", None)
    # Player 2: 100 = 4 and 101 = 5 are both valid. He appends 1.
    assert pos.to_move == 2
    assert GAME.play(pos, "0").result is None
    pos = GAME.play(pos, "1")
    assert (pos.binary, pos.decimal, pos.result) == ("101", "5", None)
    # Player 1: 1010 = 10 and 1011 = 11 are both valid. He appends 1.
    assert pos.to_move == 1
    assert GAME.play(pos, "0").result is None
    pos = GAME.play(pos, "1")
    assert (pos.binary, pos.decimal, pos.value, pos.result) == ("1011", "11", 11, None)
    assert pos.to_move == 2


def test_terminal_sample_appending_1_to_1010_makes_21_and_loses():
    # The sample's number 1010 is reached after three appended bits (1, then 0 1 0).
    pos = replay(GAME, ["0", "1", "0"])
    assert (pos.binary, pos.decimal) == ("1010", "10")
    mover = pos.to_move
    end = GAME.play(pos, "1")
    assert end.binary == "10101"
    assert end.decimal == "21"
    assert end.result.winner != mover
    assert GAME.describe_outcome(end) == (
        f"Player {mover} made 10101 (decimal 21), which is divisible by 3."
    )
    assert GAME.legal_moves(end) == []


def test_example_2_start_1101_is_unreachable():
    # Erratum: Example 2 starts from 1101, but its prefix 11 = 3 has already lost.
    pos = GAME.play(GAME.start(), "1")
    assert pos.binary == "11"
    assert pos.result is not None
    assert pos.result.winner == 2
    with pytest.raises(GameOver):
        GAME.play(pos, "0")


@pytest.mark.parametrize("number", [213, 6837, 437613, 28007277])
def test_example_2_numbers_it_calls_valid_are_divisible_by_3_and_lose(number):
    assert number % 3 == 0
    prefix, bit = bin(number)[2:-1], bin(number)[-1]
    before = position_of(prefix)
    assert before.rem != 0  # the number before the move was still alive
    after = GAME.play(before, bit)
    assert after.result is not None
    assert after.result.winner == 2  # Player 1 made it, Player 1 loses
    assert f"(decimal {number}), which is divisible by 3" in GAME.describe_outcome(after)


@pytest.mark.parametrize(
    "number", [212, 1708, 6836, 109402, 437612, 3500908, 7001818, 28007276, 112029110]
)
def test_example_2_numbers_it_calls_divisible_are_not(number):
    assert number % 3 != 0
    prefix, bit = bin(number)[2:-1], bin(number)[-1]
    after = GAME.play(position_of(prefix), bit)
    assert after.result is None
    assert after.decimal == str(number)


def test_example_2_ending_56014555_still_has_a_safe_bit():
    pos = position_of(bin(56014555)[2:])
    assert 56014555 % 3 != 0
    analysis = GAME.analyse(pos)
    assert analysis.best_moves == ("0",)
    assert GAME.play(pos, "0").result is None
    assert GAME.play(pos, "0").decimal == "112029110"


def test_under_the_rules_example_2_player_2_already_loses_at_213():
    # The book's own moves from 1101: 0, 1, 0, then 1 makes 11010101 = 213.
    pos = position_of("1101")
    for bit in "010":
        pos = GAME.play(pos, bit)
        assert pos.result is None
    assert pos.binary == "1101010"
    assert pos.to_move == 2
    end = GAME.play(pos, "1")
    assert end.decimal == "213"
    assert end.result.winner == 1


def test_between_moves_the_remainder_is_1_or_2_and_a_safe_bit_exists():
    for binary in ["1", "10", "101", "1011", "10110", "100", "1000", "10001"]:
        pos = position_of(binary)
        assert pos.rem in (1, 2)
        safe = GAME.analyse(pos).best_moves
        expected = [bit for bit in "01" if int(binary + bit, 2) % 3 != 0]
        assert list(safe) == expected
        assert safe  # never empty: a careful game never ends


def test_analysis_says_nobody_can_force_a_win():
    pos = GAME.start()  # 1: appending 1 makes 3
    analysis = GAME.analyse(pos)
    assert analysis.winner is None
    assert analysis.plies is None
    assert analysis.best_moves == ("0",)
    assert "Nobody can force a win" in analysis.summary
    zero, one = analysis.moves
    assert (zero.move, zero.verdict, zero.winner, zero.plies, zero.blunder) == (
        "0",
        Verdict.SAFE,
        None,
        None,
        False,
    )
    assert (one.move, one.verdict, one.winner, one.plies, one.blunder) == (
        "1",
        Verdict.LOSES_AT_ONCE,
        2,
        1,
        True,
    )
    pos = GAME.play(pos, "0")  # 10 = 2: both bits are safe
    analysis = GAME.analyse(pos)
    assert analysis.best_moves == ("0", "1")
    assert {item.verdict for item in analysis.moves} == {Verdict.SAFE}


def test_analysis_of_a_finished_game_names_the_winner():
    end = replay(GAME, ["1"])
    analysis = GAME.analyse(end)
    assert (analysis.winner, analysis.plies, analysis.best_moves) == (2, 0, ())


def test_verdict_of_a_played_move():
    pos = GAME.start()
    assert GAME.verdict_of(pos, "1").verdict is Verdict.LOSES_AT_ONCE
    assert GAME.verdict_of(pos, "0").verdict is Verdict.SAFE


@pytest.mark.parametrize("text", ["", "   ", "x", "2", "01", "one", "0 1", "1" * 40])
def test_malformed_moves_are_refused(text):
    pos = GAME.start()
    with pytest.raises(MalformedMove) as caught:
        GAME.play(pos, text)
    assert "0 or 1" in str(caught.value)


def test_non_text_is_malformed():
    with pytest.raises(MalformedMove):
        GAME.play(GAME.start(), 1)


def test_errors_are_value_errors_and_change_nothing():
    assert issubclass(MalformedMove, IllegalMove)
    assert issubclass(IllegalMove, ValueError)
    pos = GAME.start()
    with pytest.raises(ValueError):
        GAME.play(pos, "7")
    assert pos == GAME.start()


def test_moves_after_the_end_raise_game_over():
    end = replay(GAME, ["1"])
    for text in ["0", "1", "x", ""]:
        with pytest.raises(GameOver) as caught:
            GAME.play(end, text)
        assert "The game is over" in str(caught.value)


def test_resign():
    pos = replay(GAME, ["0", "1"])
    assert pos.to_move == 1
    resigned = GAME.resign(pos, 1)
    assert resigned.result.winner == 2
    assert GAME.describe_outcome(resigned) == "Player 1 resigned."
    assert GAME.legal_moves(resigned) == []
    # Either player may resign, even when it is not their turn.
    assert GAME.resign(pos, 2).result.winner == 1
    with pytest.raises(GameOver):
        GAME.resign(resigned, 2)
    with pytest.raises(ValueError):
        GAME.resign(pos, 3)


def test_json_round_trip_is_exact():
    for pos in [GAME.start(), replay(GAME, ["0", "1", "1"]), replay(GAME, ["1"])]:
        data = GAME.to_json(pos)
        assert set(data) == {"ply", "result", "head", "tail", "length", "rem", "low"}
        assert round_trip(GAME, pos) == pos
        assert GAME.to_json(round_trip(GAME, pos)) == data


def test_from_json_refuses_foreign_data():
    with pytest.raises(ValueError):
        GAME.from_json({"ply": 0})
    with pytest.raises(ValueError):
        GAME.from_json(["not", "an", "object"])


def test_100000_plies_keep_the_position_small_and_the_decimal_right():
    plies = 100_000
    rng = random.Random(2024)
    pos = GAME.start()
    bits = ["1"]
    for _ in range(plies):
        safe = GAME.analyse(pos).best_moves
        bit = rng.choice(safe)
        pos = GAME.play(pos, bit)
        bits.append(bit)
    assert pos.result is None
    assert pos.ply == plies
    assert pos.length == plies + 1
    # Constant size: a few hundred bits, never the whole number.
    assert len(pos.head) == HEAD
    assert len(pos.tail) == TAIL
    encoded = json.dumps(GAME.to_json(pos))
    assert len(encoded) < 600
    assert round_trip(GAME, pos) == pos
    # Now the exact number, once, with Python's big integers.
    whole = "".join(bits)
    number = int(whole, 2)
    assert pos.rem == number % 3
    assert pos.binary == f"{whole[:HEAD]}…{whole[-TAIL:]}"
    assert pos.value is None  # too long to keep exactly
    unsafe = next(bit for bit in "01" if (2 * number + int(bit)) % 3 == 0)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        digits = str(number)
        end_digits = str(2 * number + int(unsafe))
    finally:
        sys.set_int_max_str_digits(limit)
    assert sys.get_int_max_str_digits() == limit
    assert len(digits) > 4300  # str(int) would have refused it under the default limit
    assert pos.decimal == f"…{digits[-LOW_DIGITS:]} ({len(digits):,} digits)"
    # The next move still works, and the losing move states the number it made.
    end = GAME.play(pos, unsafe)
    assert end.result.winner == 2  # 100,000 plies made: Player 1 is to move, and loses
    assert GAME.describe_outcome(end) == (
        f"Player 1 made {whole[:HEAD]}…{(whole + unsafe)[-TAIL:]} "
        f"(decimal …{end_digits[-LOW_DIGITS:]} ({len(end_digits):,} digits)), "
        "which is divisible by 3."
    )


def test_decimal_is_exact_while_the_number_is_kept_whole():
    rng = random.Random(7)
    pos = GAME.start()
    bits = "1"
    while pos.length < HEAD + TAIL + 5:
        bit = rng.choice(GAME.analyse(pos).best_moves)
        pos = GAME.play(pos, bit)
        bits += bit
        if pos.length <= HEAD + TAIL:
            assert pos.complete
            assert pos.binary == bits
            assert pos.decimal == str(int(bits, 2))
        else:
            assert not pos.complete
            assert pos.decimal.endswith(" digits)")
            assert pos.decimal.startswith("…" + str(int(bits, 2))[-LOW_DIGITS:])
