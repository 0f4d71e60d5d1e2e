"""Bit Flip, fill the byte (rule book 002): the book's example, invalid input, Kayles."""

from __future__ import annotations

import pytest

from games.rules import GameOver, IllegalMove, MalformedMove, Verdict, get_game
from games.rules.bit_flip import BitFlipPosition
from tests.rules.helpers import replay, round_trip

GAME = get_game("bit-flip")


def kayles_grundy(limit: int) -> list[int]:
    """Grundy numbers of Kayles rows 0..limit, from the definition (mex over every move)."""
    grundy = [0] * (limit + 1)
    for n in range(1, limit + 1):
        reachable = set()
        for take in (1, 2):
            for left in range(n - take + 1):
                right = n - take - left
                if right >= 0:
                    reachable.add(grundy[left] ^ grundy[right])
        g = 0
        while g in reachable:
            g += 1
        grundy[n] = g
    return grundy


def test_kayles_grundy_values_are_the_known_sequence():
    # OEIS A002186: 0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, ...
    assert kayles_grundy(15) == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7]


def test_start():
    pos = GAME.start()
    assert (pos.width, pos.bits) == (8, "00000000")
    assert pos.zeros == [1, 2, 3, 4, 5, 6, 7, 8]
    moves = GAME.legal_moves(pos)
    assert moves[:8] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert moves[8:] == ["1 2", "2 3", "3 4", "4 5", "5 6", "6 7", "7 8"]


def test_book_example_player_2_wins_with_bit_8():
    pos = GAME.start()
    steps = [
        (1, "3", "00100000"),
        (2, "5 6", "00101100"),
        (1, "7", "00101110"),
        (2, "1 2", "11101110"),
        (1, "4", "11111110"),
    ]
    for player, move, bits in steps:
        assert pos.to_move == player
        pos = GAME.play(pos, move)
        assert pos.bits == bits
        assert pos.result is None
    assert pos.to_move == 2
    pos = GAME.play(pos, "8")
    assert pos.bits == "11111111"
    assert pos.result.winner == 2
    assert GAME.describe_outcome(pos) == "Player 2 flipped bit 8 and completed 11111111."
    assert GAME.legal_moves(pos) == []


def test_completing_with_two_bits_wins():
    pos = replay(GAME, ["1", "2"], width=4)
    pos = GAME.play(pos, "4 3")
    assert pos.result.winner == 1
    assert GAME.describe_outcome(pos) == "Player 1 flipped bits 3 and 4 and completed 1111."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3", "Bit 3 is already 1: only 0 bits can be flipped."),
        ("3 4", "Bit 3 is already 1: only 0 bits can be flipped."),
        ("2 3", "Bit 3 is already 1: only 0 bits can be flipped."),
        ("1 4", "Bits 1 and 4 are not adjacent: two bits must be side by side."),
        ("5 5", "Name two different bits, or just one."),
        ("4 5 6", "You may flip one bit or two adjacent bits, not 3."),
        ("9", "There is no bit 9: the bits are numbered 1 to 8."),
        ("0", "There is no bit 0: the bits are numbered 1 to 8."),
        ("8 9", "There is no bit 9: the bits are numbered 1 to 8."),
    ],
)
def test_invalid_moves_are_refused_and_the_same_player_tries_again(text, message):
    pos = replay(GAME, ["3"])
    assert pos.to_move == 2
    with pytest.raises(IllegalMove) as caught:
        GAME.play(pos, text)
    assert not isinstance(caught.value, MalformedMove)
    assert str(caught.value) == message
    assert pos.to_move == 2
    assert GAME.play(pos, "4").bits == "00110000"  # Player 2 then plays a legal move


@pytest.mark.parametrize("text", ["", "  ", "x", "three", "3-4", "-3", "3.5", "1" * 33])
def test_malformed_text_is_refused(text):
    with pytest.raises(MalformedMove) as caught:
        GAME.play(GAME.start(), text)
    assert "bit number" in str(caught.value)


def test_pairs_may_be_typed_in_either_order_and_are_logged_sorted():
    pos = GAME.start()
    assert GAME.play(pos, "6 5") == GAME.play(pos, "5 6")
    assert GAME.play(pos, "5,6") == GAME.play(pos, "5 6")
    assert GAME.canonical(pos, " 6  5 ") == "5 6"
    assert GAME.canonical(pos, "x") == "x"


def test_width_option():
    pos = GAME.start(width=3)
    assert pos.bits == "000"
    assert GAME.legal_moves(pos) == ["1", "2", "3", "1 2", "2 3"]
    pos = GAME.play(pos, "2")
    assert GAME.legal_moves(pos) == ["1", "3"]  # no adjacent pair of 0 bits is left
    pos = GAME.play(pos, "1")
    pos = GAME.play(pos, "3")
    assert pos.result.winner == 1
    assert pos.ply == 3


def test_game_over_and_resign():
    end = replay(GAME, ["1 2"], width=2)
    assert end.result.winner == 1
    with pytest.raises(GameOver):
        GAME.play(end, "1")
    pos = replay(GAME, ["1"])
    resigned = GAME.resign(pos, 2)
    assert resigned.result.winner == 1
    assert GAME.describe_outcome(resigned) == "Player 2 resigned."
    with pytest.raises(GameOver):
        GAME.play(resigned, "2")


def test_json_round_trip_is_exact():
    for pos in [GAME.start(), replay(GAME, ["3", "5 6"]), replay(GAME, ["1 2"], width=2)]:
        assert GAME.to_json(pos) == {
            "ply": pos.ply,
            "result": None
            if pos.result is None
            else {
                "winner": pos.result.winner,
                "ending": pos.result.ending.value,
                "move": pos.result.move,
            },
            "width": pos.width,
            "bits": pos.bits,
        }
        assert round_trip(GAME, pos) == pos


def test_start_winner_matches_kayles_for_every_width():
    grundy = kayles_grundy(GAME.option("width").maximum)
    for width in range(1, GAME.option("width").maximum + 1):
        analysis = GAME.analyse(GAME.start(width=width))
        # Kayles: the first player wins every row except those of Grundy value 0.
        assert (analysis.winner == 1) == (grundy[width] != 0), width


def test_winner_matches_the_nim_sum_of_the_zero_runs():
    grundy = kayles_grundy(12)
    for bits in [
        "00100000",
        "01011000",
        "00011000",
        "10000001",
        "0101010101",
        "000100010000",
        "110011",
        "000000000000",
    ]:
        pos = BitFlipPosition(ply=0, width=len(bits), bits=bits)
        nim_sum = 0
        for run in bits.split("1"):
            nim_sum ^= grundy[len(run)]
        assert (GAME.analyse(pos).winner == 1) == (nim_sum != 0), bits


def test_analysis_of_the_start_and_a_mirror_strategy():
    analysis = GAME.analyse(GAME.start())
    assert analysis.winner == 1
    # The classic Kayles win: take the middle (bits 4 5) and mirror.
    assert "4 5" in analysis.best_moves
    assert analysis.verdict("4 5").verdict is Verdict.KEEPS_WIN
    assert analysis.verdict("4 5").plies == analysis.plies
    after = GAME.analyse(GAME.play(GAME.start(), "4 5"))
    assert after.winner == 1
    assert after.to_move == 2
    assert after.plies == analysis.plies - 1
