"""Last Bit Standing: a binary number that grows by one bit a turn."""

from __future__ import annotations

from games.rules.last_bit_standing import LastBitPosition

from . import register
from .base import Display, Fact, Presenter, bit_tiles

END = "end"  # the cell a move touches: the number's last bit
TILES = 20  # the board's tiles: a longer number shows "…" and its last bits


class LastBitStandingDisplay(Display):
    prompt_line = "Choose a bit to append (0 or 1):"
    input_prompt = ""

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


@register
class LastBitStandingPresenter(Presenter):
    slug = "last-bit-standing"
    verb = "Append"
    verb_past = "appended"
    display_class = LastBitStandingDisplay

    def board(self, pos, legal=(), hinted=(), touched=()):
        """The number as tiles, like the other games' bits: all of them while it has at
        most TILES bits, else a "…" tile and the last ones (the whole number is a fact)."""
        drawn = super().board(pos, legal, hinted, touched)
        bits = pos.head + pos.tail if pos.complete else pos.tail
        shown = bits if pos.length <= TILES else bits[-(TILES - 1) :]
        first = pos.length - len(shown) + 1
        tiles = [{"gap": True}] if len(shown) < pos.length else []
        tiles += [
            {"position": f"{first + i:,}", "bit": bit, "last": False} for i, bit in enumerate(shown)
        ]
        if END in drawn["touched"]:
            tiles[-1]["last"] = True
        drawn["tiles"] = tiles
        return drawn

    def facts(self, pos: LastBitPosition) -> list[Fact]:
        return [
            Fact("Decimal", pos.decimal, "decimal"),
            Fact("Length", f"{pos.length:,} bit{'' if pos.length == 1 else 's'}", "length"),
        ]

    def describe(self, move, after=None):
        if after is None or not after.complete:
            return f"appended {move}"
        return f"appended {move}: {after.binary} = {after.decimal}"

    def touched(self, move, after=None):
        return frozenset({END})

    def key_for(self, move):
        return move

    def mini_tiles(self, pos):
        return bit_tiles(pos.head + pos.tail)  # a long number's middle is not kept: "…"

    def keys(self, pos):
        return [("0", "append 0"), ("1", "append 1")]
