"""Bit Flip: Divisor: a byte whose bits are flipped to 1 one at a time."""

from __future__ import annotations

from games.rules import Ending
from games.rules.bit_flip_divisor import BitFlipDivisorPosition

from . import register
from .base import Display, Fact, Presenter, bit_tiles


def forfeited(move: str, after) -> bool:
    """Did ``move`` name a bit that cannot be flipped (and so lose)?"""
    result = after.result if after is not None else None
    return result is not None and result.ending is Ending.INVALID_BIT and result.move == move


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


@register
class BitFlipDivisorPresenter(Presenter):
    slug = "bit-flip-divisor"
    verb = "Flip"
    verb_past = "flipped"
    display_class = BitFlipDivisorDisplay

    def cells(self, pos: BitFlipDivisorPosition, legal=(), hinted=(), touched=()):
        legal, hinted, touched = set(legal), set(hinted), set(touched)
        return [
            {
                "position": str(i),  # text: the template would localize a number
                "bit": bit,
                "move": str(i),
                "label": self.label(str(i)),
                "legal": str(i) in legal,
                "hint": str(i) in hinted,
                "last": str(i) in touched,
            }
            for i, bit in enumerate(pos.bits, start=1)
        ]

    def facts(self, pos: BitFlipDivisorPosition) -> list[Fact]:
        return [
            Fact("Target divisor", str(pos.divisor), "divisor"),
            Fact("Decimal", str(pos.value), "decimal"),
        ]

    def label(self, move):
        return f"Flip bit {move}"

    def mini_tiles(self, pos):
        return bit_tiles(pos.bits)

    def describe(self, move, after=None):
        if forfeited(move, after):
            return f"named bit {move}, which cannot be flipped, and lost"
        if after is None:
            return f"flipped bit {move}"
        return f"flipped bit {move}: {after.bits} = {after.value}"

    def touched(self, move, after=None):
        return frozenset() if forfeited(move, after) else frozenset({move})

    def keys(self, pos):
        return [("← →", "move between the bits"), ("Enter or Space", "flip the bit in focus")]
