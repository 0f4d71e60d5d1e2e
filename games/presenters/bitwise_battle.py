"""Bitwise Battle: a sequence of bits and the condition its maker wins by."""

from __future__ import annotations

from games.rules.bitwise_battle import BitwiseBattlePosition

from . import register
from .base import Display, Fact, Presenter, bit_tiles


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


@register
class BitwiseBattlePresenter(Presenter):
    slug = "bitwise-battle"
    verb = "Add"
    verb_past = "added"
    display_class = BitwiseBattleDisplay

    def board(self, pos, legal=(), hinted=(), touched=()):
        touched = frozenset(touched)
        drawn = super().board(pos, legal, hinted)  # the buttons: none of them was touched
        drawn["touched"] = touched
        drawn["tiles"] = [
            {"position": str(i), "bit": bit, "last": str(i) in touched}
            for i, bit in enumerate(pos.bits, start=1)
        ]
        return drawn

    def facts(self, pos: BitwiseBattlePosition) -> list[Fact]:
        facts = [
            Fact("Winning condition", pos.condition_text, "condition"),
            Fact("Maximum length", f"{pos.max_length} bits ({pos.bits_left} left)", "length"),
            Fact("Decimal", str(pos.value) if pos.bits else "—", "decimal"),
        ]
        if pos.condition == "divisible" and pos.bits:
            # Neutral words: 0 leaves no remainder, yet only zeros never win (RULINGS).
            facts.append(
                Fact(f"Remainder when divided by {pos.target}", str(pos.value % pos.target), "rem")
            )
        if pos.condition == "ones":
            facts.append(Fact("Ones so far", f"{pos.ones} of {pos.target}", "ones"))
        return facts

    def describe(self, move, after=None):
        if after is None:
            return f"added {move}"
        return f"added {move}: {after.bits} = {after.value}"

    def touched(self, move, after=None):
        return frozenset() if after is None else frozenset({str(len(after.bits))})

    def key_for(self, move):
        return move

    def mini_tiles(self, pos):
        return bit_tiles(pos.bits)

    def keys(self, pos):
        return [("0", "add 0"), ("1", "add 1")]
