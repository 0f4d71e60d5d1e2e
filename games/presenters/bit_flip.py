"""Bit Flip: a row of bits, flipped one or two adjacent at a time."""

from __future__ import annotations

from games.rules.bit_flip import BitFlipPosition

from . import register
from .base import Display, Presenter, bit_tiles


def numbers(values) -> str:
    return " ".join(str(value) for value in values)


def bits_words(move: str) -> str:
    """ "4" -> "bit 4", "4 5" -> "bits 4 and 5"."""
    parts = move.split()
    return f"bit {parts[0]}" if len(parts) == 1 else f"bits {' and '.join(parts)}"


class BitFlipDisplay(Display):
    prompt_line = (
        "Enter the bit number(s) you wish to flip (separate by space if flipping two bits):"
    )
    input_prompt = ""

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
        flipped = self.game.canonical(before, move)
        return [
            f"Player {before.to_move} flipped {bits_words(flipped)}.",
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


@register
class BitFlipPresenter(Presenter):
    slug = "bit-flip"
    verb = "Flip"
    verb_past = "flipped"
    display_class = BitFlipDisplay

    def cells(self, pos: BitFlipPosition, legal=(), hinted=(), touched=()):
        legal, hinted, touched = set(legal), set(hinted), set(touched)
        cells = []
        for i, bit in enumerate(pos.bits, start=1):
            move, pair = str(i), f"{i} {i + 1}"
            cells.append(
                {
                    "position": str(i),  # text: the template would localize a number
                    "bit": bit,
                    "move": move,
                    "label": self.label(move),
                    "key": self.key_for(move),
                    "pair_key": self.key_for(pair),
                    "legal": move in legal,
                    "hint": move in hinted,
                    "last": move in touched,
                    "pair": pair,
                    "pair_label": self.label(pair),
                    "pair_legal": pair in legal,
                    "pair_hint": pair in hinted,
                }
            )
        return cells

    def facts(self, pos):
        return []

    def mini_tiles(self, pos):
        return bit_tiles(pos.bits)

    def label(self, move):
        return f"Flip {bits_words(move)}"

    def describe(self, move, after=None):
        return f"flipped {bits_words(move)}"

    def touched(self, move, after=None):
        return frozenset(move.split())

    def key_for(self, move):
        """A bit's number key ("0" is bit 10; two digits from 11), "p" and it for the pair
        that starts at that bit: "p3" flips bits 3 and 4."""
        first, *pair = move.split()
        return ("p" if pair else "") + ("0" if first == "10" else first)

    def keys(self, pos):
        width, what = pos.width, "flip that bit"
        if width >= 10:
            more = "; type both digits for 11 and above" if width > 10 else ""
            what += f" (0 is bit 10{more})"
        return [
            (f"1 to {min(width, 9)}" + (", 0" if width >= 10 else ""), what),
            ("p, then a bit's key", "flip the pair that starts at that bit (p 3: bits 3 and 4)"),
            ("← →", "move between the bits (or the pairs)"),
            ("Enter or Space", "flip the bit (or the pair) in focus"),
        ]
