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
corrected by RULINGS.md; they are the game's presenter's terminal display
(games/presenters). All the game logic is in ``games.rules``: this command only
reads and writes text, and never touches the database.
"""

from __future__ import annotations

import random
import sys

from django.core.management.base import BaseCommand, CommandError

from games.presenters import presenter_for
from games.rules import IllegalMove, MalformedMove, all_games, get_game
from games.rules.base import Game, Position
from games.rules.computer import LEVELS, choose_move

RESIGN = "resign"


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
        parser.add_argument("slug", choices=[game.slug for game in all_games()], help="Which game.")
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
        self.display = presenter_for(game).display()
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
