"""Last Digit Standing (rule book 004): the worked example as corrected by RULINGS.md."""

from __future__ import annotations

import pytest

from games.rules import GameOver, IllegalMove, MalformedMove, Verdict, get_game
from tests.rules.helpers import replay, round_trip

GAME = get_game("last-digit-standing")


def legal_by_definition(remaining, last):
    """The digits a player may remove, straight from the rule text."""
    if last is None:
        return [str(d) for d in remaining]
    return [str(d) for d in remaining if d % last == 0 or last % d == 0]


def test_start_any_digit_may_be_removed_first():
    pos = GAME.start()
    assert pos.remaining == (1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert pos.last is None
    assert GAME.legal_moves(pos) == [str(d) for d in range(1, 10)]


def test_worked_example_as_corrected():
    pos = GAME.start()
    expected = [
        # (player, digit removed, sequence after, the next player's legal digits)
        (1, "3", (1, 2, 4, 5, 6, 7, 8, 9), ["1", "6", "9"]),
        (2, "6", (1, 2, 4, 5, 7, 8, 9), ["1", "2"]),
        (1, "2", (1, 4, 5, 7, 8, 9), ["1", "4", "8"]),
        (2, "4", (1, 5, 7, 8, 9), ["1", "8"]),
        (1, "8", (1, 5, 7, 9), ["1"]),
    ]
    for player, digit, remaining, legal in expected:
        assert pos.to_move == player
        pos = GAME.play(pos, digit)
        assert pos.remaining == remaining
        assert pos.last == int(digit)
        assert GAME.legal_moves(pos) == legal
        assert legal == legal_by_definition(pos.remaining, pos.last)
        # The game goes on after every one of these moves.
        assert pos.result is None
    # Player 2 is not stuck after 8: 1 divides 8.
    assert pos.to_move == 2
    pos = GAME.play(pos, "1")
    assert pos.remaining == (5, 7, 9)
    # After 1 every remaining digit is legal.
    assert GAME.legal_moves(pos) == ["5", "7", "9"]
    pos = GAME.play(pos, "5")
    # 7 and 9 are neither divisors nor multiples of 5: Player 2 cannot move.
    assert pos.result.winner == 1
    assert GAME.describe_outcome(pos) == (
        "Player 2 cannot remove a divisor or multiple of 5 (digits left: 7 9)."
    )
    assert pos.ply == 7
    assert GAME.legal_moves(pos) == []


def test_the_books_valid_options_were_wrong():
    after_3 = replay(GAME, ["3"])
    assert "1" in GAME.legal_moves(after_3)  # the book forgot 1
    after_6 = replay(GAME, ["3", "6"])
    assert "4" not in GAME.legal_moves(after_6)  # 4 does not divide 6
    with pytest.raises(IllegalMove) as caught:
        GAME.play(after_6, "4")
    assert str(caught.value) == ("4 is neither a divisor nor a multiple of 6. You may remove: 1 2.")


def test_removing_the_last_related_digit_wins():
    pos = replay(GAME, ["5"])
    assert GAME.legal_moves(pos) == ["1"]
    pos = GAME.play(pos, "1")
    assert GAME.legal_moves(pos) == ["2", "3", "4", "6", "7", "8", "9"]
    pos = GAME.play(pos, "7")  # nothing left divides or is a multiple of 7
    assert pos.result.winner == 1
    assert GAME.describe_outcome(pos) == (
        "Player 2 cannot remove a divisor or multiple of 7 (digits left: 2 3 4 6 8 9)."
    )


def test_removing_every_digit():
    pos = replay(GAME, ["1", "2"], highest=2)
    assert pos.remaining == ()
    assert pos.result.winner == 2
    assert GAME.describe_outcome(pos) == (
        "Player 1 cannot remove a divisor or multiple of 2 (digits left: none)."
    )


@pytest.mark.parametrize(
    ("moves", "text", "message"),
    [
        (["3"], "3", "3 has already been removed."),
        (["3"], "0", "There is no 0: the sequence runs from 1 to 9."),
        (["3"], "10", "There is no 10: the sequence runs from 1 to 9."),
        (["3"], "-1", "There is no -1: the sequence runs from 1 to 9."),
        (["3"], "5", "5 is neither a divisor nor a multiple of 3. You may remove: 1 6 9."),
        (["3", "6"], "3", "3 has already been removed."),
    ],
)
def test_illegal_moves_are_refused(moves, text, message):
    pos = replay(GAME, moves)
    with pytest.raises(IllegalMove) as caught:
        GAME.play(pos, text)
    assert not isinstance(caught.value, MalformedMove)
    assert str(caught.value) == message


@pytest.mark.parametrize("text", ["", " ", "x", "3 6", "three", "3.0", "9" * 33])
def test_malformed_text_is_refused(text):
    with pytest.raises(MalformedMove) as caught:
        GAME.play(GAME.start(), text)
    assert str(caught.value) == "Enter a digit to remove."


def test_highest_option():
    pos = GAME.start(highest=12)
    assert pos.remaining == tuple(range(1, 13))
    pos = GAME.play(pos, "12")
    assert GAME.legal_moves(pos) == ["1", "2", "3", "4", "6"]


def test_game_over_resign_and_json():
    pos = replay(GAME, ["3", "6"])
    data = GAME.to_json(pos)
    assert data == {
        "ply": 2,
        "result": None,
        "highest": 9,
        "remaining": [1, 2, 4, 5, 7, 8, 9],
        "last": 6,
    }
    assert round_trip(GAME, pos) == pos
    resigned = GAME.resign(pos, 1)
    assert resigned.result.winner == 2
    assert round_trip(GAME, resigned) == resigned
    with pytest.raises(GameOver):
        GAME.play(resigned, "1")


def test_analysis_of_the_start():
    analysis = GAME.analyse(GAME.start())
    # Player 1 wins in 3 plies: remove 5 or 7, Player 2 must take 1, then Player 1
    # removes the other of 5 and 7, which nothing left divides or multiplies.
    assert (analysis.winner, analysis.plies, analysis.best_moves) == (1, 3, ("5", "7"))
    assert analysis.verdict("1").verdict is Verdict.THROWS_WIN
    assert analysis.verdict("1").plies == 2
