"""Last Digit Standing: the numbers 1 to n, removed one at a time."""

from __future__ import annotations

from games.rules.last_digit_standing import LastDigitPosition

from . import register
from .base import Display, Fact, Presenter


def numbers(values) -> str:
    return " ".join(str(value) for value in values)


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


@register
class LastDigitStandingPresenter(Presenter):
    slug = "last-digit-standing"
    verb = "Remove"
    verb_past = "removed"
    display_class = LastDigitStandingDisplay

    def cells(self, pos: LastDigitPosition, legal=(), hinted=(), touched=()):
        legal, hinted, touched = set(legal), set(hinted), set(touched)
        return [
            {
                "digit": str(d),  # text: the template would localize a number
                "move": str(d),
                "label": self.label(str(d)),
                "key": str(d),
                "remaining": d in pos.remaining,
                "legal": str(d) in legal,
                "hint": str(d) in hinted,
                "last": str(d) in touched,
            }
            for d in range(1, pos.highest + 1)
        ]

    def facts(self, pos: LastDigitPosition) -> list[Fact]:
        return [
            Fact("Remaining", numbers(pos.remaining) or "none", "remaining"),
            Fact(
                "Last removed",
                str(pos.last)
                if pos.last is not None
                else "— (the first move may remove any digit)",
                "last-removed",
            ),
        ]

    def key_for(self, move):
        return move

    def mini_tiles(self, pos):
        return [
            {"text": str(d), "one": False, "gone": d not in pos.remaining}
            for d in range(1, pos.highest + 1)
        ]

    def keys(self, pos):
        top = pos.highest
        typed = "; type both digits for 10 and above" if top >= 10 else ""
        return [(f"1 to {top}", f"remove that number{typed}")]
