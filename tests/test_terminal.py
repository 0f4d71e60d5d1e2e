"""The terminal client, ``python manage.py play``, driven through standard input.

No test here has database access: pytest-django would fail any that touched it.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.rules import get_game
from games.rules.computer import choose_move

ROOT = Path(__file__).resolve().parent.parent


def play(*args: str, lines=()) -> str:
    """Run the command with these input lines; its standard output."""
    out = io.StringIO()
    stdin = io.StringIO("".join(f"{line}\n" for line in lines))
    call_command("play", *args, stdin=stdin, stdout=out)
    return out.getvalue()


def abandoned(*args: str, lines=()) -> tuple[str, CommandError]:
    out = io.StringIO()
    stdin = io.StringIO("".join(f"{line}\n" for line in lines))
    with pytest.raises(CommandError) as caught:
        call_command("play", *args, stdin=stdin, stdout=out)
    return out.getvalue(), caught.value


def in_order(output: str, expected: list[str]) -> None:
    """Each expected line appears in the output, in this order."""
    lines = output.splitlines()
    at = 0
    for line in expected:
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            raise AssertionError(f"{line!r} missing after line {at}:\n{output}") from None


# ---- whole hotseat games, one per book ---------------------------------------


def test_last_bit_standing_hotseat():
    output = play("last-bit-standing", lines=["0", "1", "0", "1"])
    in_order(
        output,
        [
            "Welcome to Last Bit Standing!",
            "Current Binary Number: 1 (Decimal: 1)",
            "Player 1's Turn:",
            "Choose a bit to append (0 or 1):",
            "0",
            "Current Binary Number: 10 (Decimal: 2)",
            "Player 2's Turn:",
            "Current Binary Number: 1010 (Decimal: 10)",
            "Player 2's Turn:",
            "Choose a bit to append (0 or 1):",
            "1",
            "New Binary Number: 10101 (Decimal: 21)",
            "Invalid move! The number is divisible by 3.",
            "Player 2 loses the game.",
            "Congratulations, Player 1 wins!",
        ],
    )
    assert output.splitlines()[-1] == "Congratulations, Player 1 wins!"


def test_bitwise_battle_hotseat_divisible_by_5_ends_at_101():
    output = play(
        "bitwise-battle",
        "--option",
        "condition=divisible",
        "--option",
        "target=5",
        lines=["1", "0", "1", "0", "1"],  # the last two are never read
    )
    in_order(
        output,
        [
            "Welcome to Bitwise Battle!",
            "Winning Condition: Binary number divisible by 5.",
            "Player 1's turn.",
            "Current Sequence: ",
            "Choose a bit to add (0 or 1): 1",
            "Checking winning condition...",
            "Binary Sequence: 1 (Decimal: 1)",
            "1 mod 5 = 1",
            "Player 1's turn ends. No win yet.",
            "Player 2's turn.",
            "Current Sequence: 1",
            "Choose a bit to add (0 or 1): 0",
            "Binary Sequence: 10 (Decimal: 2)",
            "2 mod 5 = 2",
            "Player 2's turn ends. No win yet.",
            "Current Sequence: 10",
            "Choose a bit to add (0 or 1): 1",
            "Checking winning condition...",
            "Binary Sequence: 101 (Decimal: 5)",
            "5 mod 5 = 0",
            "Player 1 Wins!",
        ],
    )
    assert output.splitlines()[-1] == "Player 1 Wins!"
    assert "Current Sequence: 101" not in output


def test_bitwise_battle_mod_line_and_length_cap():
    output = play(
        "bitwise-battle",
        "--option",
        "target=5",
        "--option",
        "max_length=5",
        lines=["1", "0", "0", "0", "0"],
    )
    in_order(
        output,
        [
            "Maximum length: 5 bits (if it is reached with no winner, "
            "the player who made the last move loses).",
            "Binary Sequence: 10000 (Decimal: 16)",
            "16 mod 5 = 1",
            "The sequence has reached the maximum length of 5 bits with no winner.",
            "Player 1 made the last move and loses.",
            "Player 2 Wins!",
        ],
    )


def test_bitwise_battle_ones_and_equals():
    output = play(
        "bitwise-battle",
        "--option",
        "condition=ones",
        "--option",
        "target=4",
        lines=list("101101"),
    )
    in_order(output, ["Winning Condition: Exactly 4 ones.", "Ones: 4 (the goal is exactly 4)"])
    assert output.splitlines()[-1] == "Player 2 Wins!"
    output = play(
        "bitwise-battle", "--option", "condition=equals", "--option", "target=2", lines=["1", "0"]
    )
    in_order(output, ["Winning Condition: Binary number equals 2.", "1 is not 2", "2 = 2"])
    assert output.splitlines()[-1] == "Player 2 Wins!"


def test_bit_flip_hotseat_book_example():
    output = play("bit-flip", lines=["3", "5 6", "7", "1 2", "4", "8"])
    in_order(
        output,
        [
            "Welcome to Bit Flip!",
            "Initial Binary Number:",
            "Positions: [1][2][3][4][5][6][7][8]",
            "Bits:      [0][0][0][0][0][0][0][0]",
            "Player 1, it's your turn.",
            "Available bits to flip: 1 2 3 4 5 6 7 8",
            "Enter the bit number(s) you wish to flip (separate by space if flipping two bits):",
            "3",
            "Player 1 flipped bit 3.",
            "Bits:      [0][0][1][0][0][0][0][0]",
            "Player 2, it's your turn.",
            "Available bits to flip: 1 2 4 5 6 7 8",
            "Player 2 flipped bits 5 and 6.",
            "Bits:      [0][0][1][0][1][1][0][0]",
            "Bits:      [0][0][1][0][1][1][1][0]",
            "Bits:      [1][1][1][0][1][1][1][0]",
            "Bits:      [1][1][1][1][1][1][1][0]",
            "Available bits to flip: 8",
            "Player 2 flipped bit 8.",
            "Bits:      [1][1][1][1][1][1][1][1]",
            "Player 2 wins the game by completing the binary number to 11111111.",
        ],
    )
    assert output.splitlines()[-1] == (
        "Player 2 wins the game by completing the binary number to 11111111."
    )


def test_bit_flip_wide_rows_line_up():
    output = play("bit-flip", "--option", "width=10", lines=["1 2", "3 4", "5 6", "7 8", "9 10"])
    in_order(
        output,
        [
            "Positions: [ 1][ 2][ 3][ 4][ 5][ 6][ 7][ 8][ 9][10]",
            "Bits:      [ 0][ 0][ 0][ 0][ 0][ 0][ 0][ 0][ 0][ 0]",
            "Player 1 wins the game by completing the binary number to 1111111111.",
        ],
    )


def test_bit_flip_divisor_hotseat_book_example():
    output = play("bit-flip-divisor", lines=["8", "7", "6"])
    in_order(
        output,
        [
            "Welcome to Bit Flip: Divisor!",
            "Target Divisor is set to 7.",
            "Current Binary Number: 00000000 (Decimal 0)",
            "Player 1's turn.",
            "Select a bit to flip (1-8): 8",
            "Bit 8 flipped to 1.",
            "Current Binary Number: 00000001 (Decimal 1)",
            "1 is not divisible by 7.",
            "Turn passes to Player 2.",
            "Select a bit to flip (1-8): 7",
            "Bit 7 flipped to 1.",
            "Current Binary Number: 00000011 (Decimal 3)",
            "3 is not divisible by 7.",
            "Turn passes to Player 1.",
            "Select a bit to flip (1-8): 6",
            "Bit 6 flipped to 1.",
            "Current Binary Number: 00000111 (Decimal 7)",
            "7 is divisible by 7.",
            "Player 1 wins!",
        ],
    )
    assert output.splitlines()[-1] == "Player 1 wins!"


def test_bit_flip_divisor_invalid_move_the_maker_loses():
    output = play("bit-flip-divisor", lines=["8", "8"])
    in_order(
        output,
        [
            "Select a bit to flip (1-8): 8",
            "Bit 8 flipped to 1.",
            "Select a bit to flip (1-8): 8",
            "Error: Bit 8 is already set to 1.",
            "Invalid move! Player 1 wins by default.",  # Player 2 made it
        ],
    )
    assert output.splitlines()[-1] == "Invalid move! Player 1 wins by default."
    output = play("bit-flip-divisor", lines=["9"])
    in_order(
        output,
        ["Error: There is no bit 9: the bits are 1-8.", "Invalid move! Player 2 wins by default."],
    )


def test_bit_flip_divisor_alternate_scenario_divisor_5():
    output = play(
        "bit-flip-divisor", "--option", "divisor=5", lines=["1", "2", "3", "5", "4", "6", "7", "8"]
    )
    in_order(
        output,
        [
            "Target Divisor is set to 5.",
            "Current Binary Number: 11111110 (Decimal 254)",
            "254 is not divisible by 5.",
            "Turn passes to Player 2.",
            "Bit 8 flipped to 1.",
            "Current Binary Number: 11111111 (Decimal 255)",
            "255 is divisible by 5.",
            "Player 2 wins!",
        ],
    )


def test_bit_flip_divisor_no_bit_left():
    output = play(
        "bit-flip-divisor", "--option", "divisor=2", lines=["8", "1", "2", "3", "4", "5", "6", "7"]
    )
    in_order(
        output,
        ["255 is not divisible by 2.", "Player 1 has no 0 bit left to flip.", "Player 2 wins!"],
    )


def test_last_digit_standing_hotseat_corrected_example():
    output = play("last-digit-standing", lines=["3", "6", "2", "4", "8", "1", "5"])
    in_order(
        output,
        [
            "Welcome to Last Digit Standing!",
            "Initial Sequence:",
            "1 2 3 4 5 6 7 8 9",
            "Player 1, it's your turn.",
            "Enter a digit to remove:",
            "> 3",
            "You removed 3.",
            "Updated Sequence:",
            "1 2 4 5 6 7 8 9",
            "Player 2, it's your turn.",
            "You must remove a digit that is a divisor or multiple of 3.",
            "Available digits: 1 6 9",
            "Enter a digit to remove:",
            "> 6",
            "You must remove a digit that is a divisor or multiple of 6.",
            "Available digits: 1 2",
            "Available digits: 1 4 8",
            "Available digits: 1 8",
            "You removed 8.",
            "1 5 7 9",
            "Player 2, it's your turn.",
            "You must remove a digit that is a divisor or multiple of 8.",
            "Available digits: 1",
            "> 1",
            "You removed 1.",
            "5 7 9",
            "Available digits: 5 7 9",
            "> 5",
            "Player 2, it's your turn.",
            "You must remove a digit that is a divisor or multiple of 5.",
            "Remaining digits: 7 9",
            "No valid moves available.",
            "Player 2, you cannot make a valid move.",
            "Player 1 wins the game!",
        ],
    )
    assert output.splitlines()[-1] == "Player 1 wins the game!"


# ---- against the computer ----------------------------------------------------


def expected_game(slug, level, human, seed, options=None):
    """The game the command must play: the computer's moves come from the same seeded
    generator; the human always types the last legal move."""
    game = get_game(slug)
    pos = game.start(**(options or {}))
    rng = random.Random(seed)
    typed, computer = [], []
    while pos.result is None:
        if pos.to_move == human:
            move = game.legal_moves(pos)[-1]
            typed.append(move)
        else:
            move = choose_move(game, pos, level, rng)
            computer.append((pos.to_move, move))
        pos = game.play(pos, move)
    return typed, computer, pos


WINNER_LINE = {
    "last-bit-standing": "Congratulations, Player {} wins!",
    "bitwise-battle": "Player {} Wins!",
    "bit-flip": "Player {} wins the game by completing the binary number to 11111111.",
    "bit-flip-divisor": "Player {} wins!",
    "last-digit-standing": "Player {} wins the game!",
}


@pytest.mark.parametrize("level", ["perfect", "random", "casual", "strong"])
@pytest.mark.parametrize("human", [1, 2])
@pytest.mark.parametrize("slug", list(WINNER_LINE))
def test_against_the_computer(slug, human, level):
    seed = 7
    typed, computer, end = expected_game(slug, level, human, seed)
    output = play(slug, "--vs", level, "--first", str(human), "--seed", str(seed), lines=typed)
    in_order(
        output,
        [f"Player {player} (computer, {level}) plays {move}." for player, move in computer],
    )
    assert output.count("(computer,") == len(computer)
    assert output.splitlines()[-1] == WINNER_LINE[slug].format(end.result.winner)
    if slug == "last-bit-standing" and level != "random":
        assert end.result.winner != human  # the computer never makes a multiple of 3


def test_perfect_computer_wins_a_won_game():
    # Bit Flip, 8 bits: the first player wins (Kayles). The computer moves first.
    typed, _, end = expected_game("bit-flip", "perfect", 2, 3)
    assert end.result.winner == 1
    output = play("bit-flip", "--vs", "perfect", "--first", "2", "--seed", "3", lines=typed)
    assert output.splitlines()[-1].startswith("Player 1 wins the game")


# ---- bad input, resign, hints, options, end of input ----------------------------


@pytest.mark.parametrize(
    ("slug", "lines", "messages"),
    [
        (
            "last-bit-standing",
            ["", "x", "2", "10", "0"],
            [
                "Nothing was entered. Enter the bit to append: 0 or 1.",
                "'x' is not a bit. Enter the bit to append: 0 or 1.",
                "'2' is not a bit. Enter the bit to append: 0 or 1.",
                "'10' is not a bit. Enter the bit to append: 0 or 1.",
            ],
        ),
        (
            "bitwise-battle",
            ["five", "1"],
            ["'five' is not a bit. Enter the bit to add: 0 or 1."],
        ),
        (
            "bit-flip",
            ["", "nine", "9", "1 3", "1 2 3", "3", "3", "4"],
            [
                "Nothing was entered. Enter the bit number to flip, or two adjacent bit numbers "
                "separated by a space (for example 3, or 4 5).",
                "'nine' is not a move. Enter the bit number to flip, or two adjacent bit numbers "
                "separated by a space (for example 3, or 4 5).",
                "There is no bit 9: the bits are numbered 1 to 8. Try again.",
                "Bits 1 and 3 are not adjacent: two bits must be side by side. Try again.",
                "You may flip one bit or two adjacent bits, not 3. Try again.",
                "Bit 3 is already 1: only 0 bits can be flipped. Try again.",
            ],
        ),
        (
            "bit-flip-divisor",
            ["", "eight", "3 4", "8"],
            [
                "Nothing was entered. Select a bit to flip: a position from 1 to 8.",
                "'eight' is not a move. Select a bit to flip: a position from 1 to 8.",
                "'3 4' is not a move. Select a bit to flip: a position from 1 to 8.",
                "Bit 8 flipped to 1.",
            ],
        ),
        (
            "last-digit-standing",
            ["x", "0", "3", "3", "5", "6"],
            [
                "'x' is not a move. Enter a digit to remove.",
                "There is no 0: the sequence runs from 1 to 9. Try again.",
                "You removed 3.",
                "3 has already been removed. Try again.",
                "5 is neither a divisor nor a multiple of 3. You may remove: 1 6 9. Try again.",
                "You removed 6.",
            ],
        ),
    ],
)
def test_bad_input_is_explained_and_asked_again(slug, lines, messages):
    output, error = abandoned(slug, lines=lines)
    in_order(output, messages)
    assert error.returncode == 3
    assert output.splitlines()[-1] == "The game was abandoned before it ended."


def test_resign():
    output = play("last-digit-standing", lines=["3", "RESIGN"])
    in_order(output, ["You removed 3.", "Player 2 resigns.", "Player 1 wins the game!"])
    output = play("bit-flip", lines=["resign"])
    assert output.splitlines()[-2:] == ["Player 1 resigns.", "Player 2 wins the game!"]
    output = play("bit-flip-divisor", "--vs", "perfect", "--seed", "1", lines=["resign"])
    assert output.splitlines()[-2:] == ["Player 1 resigns.", "Player 2 wins!"]
    output = play("last-bit-standing", lines=["resign"])
    assert output.splitlines()[-1] == "Congratulations, Player 2 wins!"


def test_hints():
    output = play("last-digit-standing", "--hint", lines=["5", "1", "7"])
    in_order(
        output,
        [
            "Hint: Player 1 wins with perfect play, 3 moves from here. Best moves: 5, 7",
            "Hint: Player 1 wins with perfect play, 2 moves from here. Best moves: 1",
            "Hint: Player 1 wins with perfect play, 1 move from here. Best moves: 7",
            "Player 1 wins the game!",
        ],
    )
    output = play("last-bit-standing", "--hint", lines=["1"])
    assert (
        "Hint: Nobody can force a win: there is always a safe bit, so a careful game never "
        "ends. It ends by a blunder or a resignation. Safe moves: 0"
    ) in output.splitlines()
    # Against the computer, hints come before the human's moves only.
    typed, _, _ = expected_game("bit-flip", "perfect", 2, 5)
    output = play(
        "bit-flip", "--vs", "perfect", "--first", "2", "--seed", "5", "--hint", lines=typed
    )
    assert output.count("Hint: ") == len(typed)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bit-flip", "--option", "width=1001"], "Width must be from 1 to 1000, not 1001."),
        (["bit-flip", "--option", "width=abc"], "Width must be a whole number from 1 to 1000"),
        (["bit-flip-divisor", "--option", "divisor=1"], "from 2 to 255, not 1."),
        (["last-digit-standing", "--option", "highest=101"], "from 2 to 100, not 101."),
        (["bit-flip", "--option", "colour=red"], "Bit Flip has no option 'colour'"),
        (["last-bit-standing", "--option", "x=1"], "(its options: none)"),
        (["bit-flip", "--option", "width"], "--option takes NAME=VALUE"),
        (
            ["bitwise-battle", "--option", "condition=ones", "--option", "target=30"],
            "from 1 to the maximum length (20)",
        ),
        (["bit-flip", "--first", "2"], "--first only makes sense with --vs"),
    ],
)
def test_bad_options_are_refused(args, message):
    out = io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("play", *args, stdin=io.StringIO(""), stdout=out)
    assert message in str(caught.value)
    assert out.getvalue() == ""  # no game was started


def test_end_of_input_abandons_the_game():
    output, error = abandoned("bit-flip", lines=["3"])
    assert error.returncode == 3
    assert "abandoned" in str(error)
    assert "Player 1 flipped bit 3." in output


def manage(*args: str, text: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if not env.get("DJANGO_SECRET_KEY"):
        env["DJANGO_DEBUG"] = "1"
    return subprocess.run(
        [sys.executable, "manage.py", "play", *args],
        cwd=ROOT,
        env=env,
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_scripted_from_a_shell_pipe():
    # printf '3\n5 6\n' | python manage.py play bit-flip: two moves, then the input ends.
    result = manage("bit-flip", text="3\n5 6\n")
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert "CommandError: The game was abandoned: the input ended." in result.stderr
    assert "Player 2 flipped bits 5 and 6." in result.stdout
    assert result.stdout.splitlines()[-1] == "The game was abandoned before it ended."
    # A whole game exits 0.
    result = manage("bit-flip-divisor", "--option", "divisor=7", text="8\n7\n6\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Player 1 wins!"
    assert result.stderr == ""
