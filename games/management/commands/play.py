"""Play one of the five games in the terminal: ``python manage.py play <slug>``.

    python manage.py play bit-flip
    python manage.py play bit-flip-divisor --option divisor=5 --vs perfect --first 2
    printf '3\\n5 6\\n' | python manage.py play bit-flip

Hotseat by default (both players at one keyboard), or against the computer with
``--vs random|casual|strong|perfect``; ``--first 2`` makes the human Player 2
(Player 1 always moves first). Moves are read from standard input line by line,
so a game can be scripted. Typing ``resign`` resigns. ``--hint`` prints the
exact analysis before each of the human's moves.

The prompts and messages follow each rule book's command-line sample, as
corrected by RULINGS.md. All the game logic is in ``games.rules``: this command
only reads and writes text, and never touches the database.
"""

from __future__ import annotations

import random
import sys

from django.core.management.base import BaseCommand, CommandError

from games.rules import GAMES, IllegalMove, MalformedMove, get_game
from games.rules.base import Game, Position
from games.rules.computer import LEVELS, choose_move

RESIGN = "resign"


def numbers(values) -> str:
    return " ".join(str(value) for value in values)


class Display:
    """The texts of one game, in its rule book's words. Subclasses fill in the details."""

    # A line printed before reading a move (None: none), then the prompt on the
    # input line itself.
    prompt_line: str | None = None
    input_prompt: str = ""

    def __init__(self, game: Game) -> None:
        self.game = game

    def welcome(self, pos: Position) -> list[str]:
        return [f"Welcome to {self.game.title}!", ""]

    def turn(self, pos: Position) -> list[str]:
        """Lines that open a turn, before the prompt."""
        return [f"Player {pos.to_move}'s turn."]

    def moved(self, before: Position, move: str, after: Position, who: str) -> list[str]:
        """Lines after a move was played (including how it ended the game, if it did)."""
        raise NotImplementedError

    def winner(self, pos: Position) -> list[str]:
        """The closing line naming the winner."""
        return [f"Player {pos.result.winner} wins!"]

    def finished(self, pos: Position, how: str) -> list[str]:
        """Lines once the game is over; ``how`` is "move" or "resign"."""
        return self.winner(pos)


class LastBitStandingDisplay(Display):
    prompt_line = "Choose a bit to append (0 or 1):"

    @staticmethod
    def number(pos) -> str:
        return f"{pos.binary} (Decimal: {pos.decimal})"

    def welcome(self, pos):
        return [
            "Welcome to Last Bit Standing!",
            "Append 0 or 1 to the number; whoever makes a multiple of 3 loses.",
            "",
        ]

    def turn(self, pos):
        return [f"Current Binary Number: {self.number(pos)}", f"Player {pos.to_move}'s Turn:"]

    def moved(self, before, move, after, who):
        if after.result is None:
            return [""]  # the next turn shows the new number
        return [
            f"New Binary Number: {self.number(after)}",
            "Invalid move! The number is divisible by 3.",
            f"Player {before.to_move} loses the game.",
            "",
        ]

    def winner(self, pos):
        return [f"Congratulations, Player {pos.result.winner} wins!"]


class BitwiseBattleDisplay(Display):
    input_prompt = "Choose a bit to add (0 or 1): "

    def welcome(self, pos):
        return [
            "Welcome to Bitwise Battle!",
            f"Winning Condition: {pos.condition_text}.",
            f"Maximum length: {pos.max_length} bits (if it is reached with no winner, "
            "the player who made the last move loses).",
            "",
        ]

    def turn(self, pos):
        return [f"Player {pos.to_move}'s turn.", f"Current Sequence: {pos.bits}"]

    def check_line(self, pos) -> str:
        value, target = pos.value, pos.target
        if pos.condition == "divisible":
            line = f"{value} mod {target} = {value % target}"
            if value == 0:
                line += " (a sequence of only zeros does not count)"
            return line
        if pos.condition == "ones":
            return f"Ones: {pos.ones} (the goal is exactly {target})"
        return f"{value} = {target}" if value == target else f"{value} is not {target}"

    def moved(self, before, move, after, who):
        mover = before.to_move
        lines = [
            "",
            "Checking winning condition...",
            f"Binary Sequence: {after.bits} (Decimal: {after.value})",
            self.check_line(after),
            "",
        ]
        if after.result is None:
            lines += [f"Player {mover}'s turn ends. No win yet.", ""]
        elif after.result.winner != mover:
            lines += [
                f"The sequence has reached the maximum length of {after.max_length} bits "
                "with no winner.",
                f"Player {mover} made the last move and loses.",
                "",
            ]
        return lines

    def winner(self, pos):
        return [f"Player {pos.result.winner} Wins!"]


class BitFlipDisplay(Display):
    prompt_line = (
        "Enter the bit number(s) you wish to flip (separate by space if flipping two bits):"
    )

    @staticmethod
    def grid(pos) -> list[str]:
        size = len(str(pos.width))
        positions = "".join(f"[{i:>{size}}]" for i in range(1, pos.width + 1))
        bits = "".join(f"[{bit:>{size}}]" for bit in pos.bits)
        return [f"Positions: {positions}", f"Bits:      {bits}"]

    def welcome(self, pos):
        return ["Welcome to Bit Flip!", "", "Initial Binary Number:", *self.grid(pos), ""]

    def turn(self, pos):
        return [
            f"Player {pos.to_move}, it's your turn.",
            f"Available bits to flip: {numbers(pos.zeros)}",
        ]

    def moved(self, before, move, after, who):
        flipped = self.game.canonical(before, move).split()
        what = f"bit {flipped[0]}" if len(flipped) == 1 else f"bits {' and '.join(flipped)}"
        return [
            f"Player {before.to_move} flipped {what}.",
            "",
            "Updated Bits:",
            *self.grid(after),
            "",
        ]

    def finished(self, pos, how):
        winner = pos.result.winner
        if how == "move":
            return [f"Player {winner} wins the game by completing the binary number to {pos.bits}."]
        return [f"Player {winner} wins the game!"]


class BitFlipDivisorDisplay(Display):
    input_prompt = "Select a bit to flip (1-8): "

    @staticmethod
    def number(pos) -> str:
        return f"Current Binary Number: {pos.bits} (Decimal {pos.value})"

    def welcome(self, pos):
        return [
            "Welcome to Bit Flip: Divisor!",
            f"Target Divisor is set to {pos.divisor}.",
            self.number(pos),
        ]

    def turn(self, pos):
        # After the first move, "Turn passes to Player N." has already said it.
        return [f"Player {pos.to_move}'s turn."] if pos.ply == 0 else []

    def moved(self, before, move, after, who):
        mover, divisor = before.to_move, before.divisor
        position = int(move)
        if after.bits == before.bits:  # a forfeit: nothing was flipped
            if 1 <= position <= len(before.bits):
                error = f"Error: Bit {position} is already set to 1."
            else:
                error = f"Error: There is no bit {position}: the bits are 1-8."
            return [error, f"Invalid move! Player {after.result.winner} wins by default."]
        lines = [f"Bit {position} flipped to 1.", self.number(after)]
        if after.result is not None and after.result.winner == mover and after.value % divisor == 0:
            return [*lines, f"{after.value} is divisible by {divisor}."]
        lines.append(f"{after.value} is not divisible by {divisor}.")
        if after.result is not None:
            return [*lines, f"Player {after.to_move} has no 0 bit left to flip."]
        return [*lines, f"Turn passes to Player {after.to_move}.", ""]

    def finished(self, pos, how):
        if how == "forfeit":
            return []  # "Invalid move! Player N wins by default." said it
        return self.winner(pos)


class LastDigitStandingDisplay(Display):
    prompt_line = "Enter a digit to remove:"
    input_prompt = "> "

    def welcome(self, pos):
        return [
            "Welcome to Last Digit Standing!",
            "",
            "Initial Sequence:",
            numbers(pos.remaining),
            "",
        ]

    def turn(self, pos):
        lines = [f"Player {pos.to_move}, it's your turn."]
        if pos.last is not None:
            lines += [
                f"You must remove a digit that is a divisor or multiple of {pos.last}.",
                f"Available digits: {' '.join(self.game.legal_moves(pos))}",
            ]
        return lines

    def moved(self, before, move, after, who):
        digit = after.last
        lines = [
            "",
            f"{who} removed {digit}.",
            "",
            "Updated Sequence:",
            numbers(after.remaining) or "(empty)",
            "",
        ]
        if after.result is not None:
            stuck = after.to_move
            lines += [
                f"Player {stuck}, it's your turn.",
                f"You must remove a digit that is a divisor or multiple of {digit}.",
                f"Remaining digits: {numbers(after.remaining) or 'none'}",
                "",
                "No valid moves available.",
                f"Player {stuck}, you cannot make a valid move.",
            ]
        return lines

    def winner(self, pos):
        return [f"Player {pos.result.winner} wins the game!"]


DISPLAYS = {
    "last-bit-standing": LastBitStandingDisplay,
    "bitwise-battle": BitwiseBattleDisplay,
    "bit-flip": BitFlipDisplay,
    "bit-flip-divisor": BitFlipDivisorDisplay,
    "last-digit-standing": LastDigitStandingDisplay,
}


def hint_line(game: Game, pos: Position) -> str:
    analysis = game.analyse(pos)
    best = ", ".join(analysis.best_moves)
    label = "Safe moves" if analysis.winner is None else "Best moves"
    return f"Hint: {analysis.summary} {label}: {best}"


class Abandoned(Exception):
    """The input ended (or was interrupted) before the game did."""


class Command(BaseCommand):
    help = (
        "Play a game in the terminal: hotseat, or against the computer with --vs. "
        "Moves are read from standard input, one per line; type 'resign' to resign."
    )
    # Nothing here needs the database or the system checks.
    requires_system_checks = []
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("slug", choices=[game.slug for game in GAMES], help="Which game.")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="A game option, e.g. --option divisor=5 (repeatable).",
        )
        parser.add_argument("--vs", choices=LEVELS, help="Play against the computer at this level.")
        parser.add_argument(
            "--first",
            type=int,
            choices=(1, 2),
            help="With --vs: 1 if you are Player 1 (who moves first, the default), 2 if not.",
        )
        parser.add_argument(
            "--hint", action="store_true", help="Print the exact analysis before each move."
        )
        parser.add_argument("--seed", type=int, help="Seed for the computer's choices.")

    def handle(self, *args, **options):
        self.stdin = options.get("stdin") or sys.stdin
        self.echo = not getattr(self.stdin, "isatty", lambda: False)()
        game = get_game(options["slug"])
        if options["first"] is not None and not options["vs"]:
            raise CommandError("--first only makes sense with --vs (against the computer).")
        try:
            pos = game.start(**self.parse_options(options["option"]))
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.game = game
        self.display = DISPLAYS[game.slug](game)
        self.level = options["vs"]
        self.human = options["first"] or 1
        self.hint = options["hint"]
        self.rng = random.Random(options["seed"])
        try:
            self.run(pos)
        except (Abandoned, KeyboardInterrupt):
            self.say("", "The game was abandoned before it ended.")
            raise CommandError("The game was abandoned: the input ended.", returncode=3) from None

    @staticmethod
    def parse_options(items: list[str]) -> dict[str, str]:
        parsed = {}
        for item in items:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise CommandError(
                    f"--option takes NAME=VALUE (for example --option divisor=5), not {item!r}."
                )
            parsed[name.strip()] = value.strip()
        return parsed

    def say(self, *lines: str) -> None:
        for line in lines:
            self.stdout.write(line)

    def run(self, pos: Position) -> None:
        game, display = self.game, self.display
        self.say(*display.welcome(pos))
        how = "move"
        while pos.result is None:
            mover = pos.to_move
            self.say(*display.turn(pos))
            if self.level and mover != self.human:
                move = choose_move(game, pos, self.level, self.rng)
                self.say(f"Player {mover} (computer, {self.level}) plays {move}.")
                after = game.play(pos, move)
                self.say(*display.moved(pos, move, after, "The computer"))
                pos = after
                continue
            if self.hint:
                self.say(hint_line(game, pos))
            move, after = self.ask(pos)
            if move == RESIGN:
                pos = after
                how = "resign"
                self.say("", f"Player {mover} resigns.")
                break
            self.say(*display.moved(pos, move, after, "You"))
            if after.result is not None and move not in game.legal_moves(pos):
                how = "forfeit"
            pos = after
        self.say(*display.finished(pos, how))

    def ask(self, pos: Position) -> tuple[str, Position]:
        """Read lines until one is a move the rules accept (or 'resign')."""
        display = self.display
        while True:
            if display.prompt_line is not None:
                self.say(display.prompt_line)
            text = self.read(display.input_prompt)
            if text.strip().lower() == RESIGN:
                return RESIGN, self.game.resign(pos, pos.to_move)
            try:
                after = self.game.play(pos, text)
            except MalformedMove as error:
                typed = text.strip()
                said = f"{typed!r} is not a move." if typed else "Nothing was entered."
                message = str(error)
                if message == self.game.move_hint:
                    message = f"{said} {message}"
                self.say(message)
                continue
            except IllegalMove as error:
                self.say(f"{error} Try again.")
                continue
            return self.game.canonical(pos, text), after

    def read(self, prompt: str) -> str:
        self.stdout.write(prompt, ending="")
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise Abandoned
        text = line.rstrip("\r\n")
        if self.echo:  # scripted input: show it, so the transcript reads like the book's
            self.stdout.write(text)
        return text
