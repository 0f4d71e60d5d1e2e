"""Last Bit Standing (rule book 000).

The number starts as ``1``; a turn appends ``0`` or ``1`` on the right. A move
that makes the number divisible by 3 loses at once. Between moves the number is
1 or 2 mod 3, and from either there is always a safe bit, so a careful game never
ends: it ends by a blunder or a resignation.

The number grows without limit, so the position keeps what a move needs in
constant size: the remainder mod 3, the first and last bits, the length and the
last decimal digits. A move costs the same at ply 100,000 as at ply 10. The full
number is the move log: ``"1" + "".join(moves)``.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass, replace

from .base import (
    Analysis,
    Ending,
    Game,
    MalformedMove,
    MoveVerdict,
    Outcome,
    Position,
    Verdict,
    other,
)

HEAD = 128  # bits kept from the left end
TAIL = 128  # bits kept from the right end (after the head)
LOW_DIGITS = 24  # decimal digits kept from the right end
LOW_MOD = 10**LOW_DIGITS


@dataclass(frozen=True, kw_only=True)
class LastBitPosition(Position):
    head: str = "1"  # the first HEAD bits (all of them while the number is short)
    tail: str = ""  # the last TAIL bits after the head
    length: int = 1  # how many bits the number has
    rem: int = 1  # the number mod 3
    low: int = 1  # the number mod 10**24

    @property
    def complete(self) -> bool:
        """Are all the bits kept (head + tail is the whole number)?"""
        return self.length == len(self.head) + len(self.tail)

    @property
    def binary(self) -> str:
        """The number in binary; with an ellipsis in the middle once it is long."""
        if self.complete:
            return self.head + self.tail
        return f"{self.head}…{self.tail}"

    @property
    def value(self) -> int | None:
        """The exact number, while all its bits are kept."""
        return int(self.head + self.tail, 2) if self.complete else None

    @property
    def decimal(self) -> str:
        """The number in decimal: exact while short, else its last digits and its size."""
        value = self.value
        if value is not None:
            return str(value)
        digits = decimal_digits(self.head, self.length)
        return f"…{self.low:0{LOW_DIGITS}d} ({digits} digits)"


def decimal_digits(head: str, length: int) -> str:
    """How many decimal digits a number of ``length`` bits starting with ``head`` has.

    Exact (not a float estimate): the number lies in [top * 2**s, (top + 1) * 2**s),
    and when both ends have the same number of digits, so does the number.
    Otherwise it says "about".
    """
    shift = length - len(head)
    top = int(head, 2)
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        log2 = decimal.Decimal(2).log10()
        low = decimal.Decimal(top).log10() + shift * log2
        high = decimal.Decimal(top + 1).log10() + shift * log2
        low_digits = int(low.to_integral_value(rounding=decimal.ROUND_FLOOR)) + 1
        high_digits = int(high.to_integral_value(rounding=decimal.ROUND_FLOOR)) + 1
    if low_digits == high_digits:
        return f"{low_digits:,}"
    return f"about {low_digits:,}"


class LastBitStanding(Game):
    slug = "last-bit-standing"
    title = "Last Bit Standing"
    summary = "Append a bit to a shared binary number; whoever makes a multiple of 3 loses."
    options = ()
    position_class = LastBitPosition
    move_hint = "Enter the bit to append: 0 or 1."

    def initial(self) -> LastBitPosition:
        return LastBitPosition()

    def notation(self, pos: LastBitPosition) -> str:
        return f"{pos.binary} (decimal {pos.decimal})"

    def moves(self, pos: LastBitPosition) -> list[str]:
        return ["0", "1"]

    def apply(self, pos: LastBitPosition, text: str) -> LastBitPosition:
        if text not in ("0", "1"):
            raise MalformedMove(f"{text!r} is not a bit. {self.move_hint}")
        bit = int(text)
        if pos.length < HEAD:
            head, tail = pos.head + text, pos.tail
        else:
            head, tail = pos.head, (pos.tail + text)[-TAIL:]
        new = replace(
            pos,
            ply=pos.ply + 1,
            head=head,
            tail=tail,
            length=pos.length + 1,
            rem=(2 * pos.rem + bit) % 3,
            low=(2 * pos.low + bit) % LOW_MOD,
        )
        if new.rem == 0:
            new = replace(new, result=Outcome(other(pos.to_move), Ending.MULTIPLE_OF_THREE))
        return new

    def describe_ending(self, pos: LastBitPosition, result: Outcome) -> str:
        return (
            f"Player {result.loser} made {pos.binary} (decimal {pos.decimal}), "
            f"which is divisible by 3."
        )

    def safe_moves(self, pos: LastBitPosition) -> list[str]:
        return [bit for bit in ("0", "1") if (2 * pos.rem + int(bit)) % 3 != 0]

    def analyse(self, pos: LastBitPosition) -> Analysis:
        """No search: the game never ends under safe play, so nobody can force a win."""
        mover = pos.to_move
        if pos.result is not None:
            return Analysis(mover, pos.result.winner, 0, (), ())
        safe = self.safe_moves(pos)
        moves = tuple(
            MoveVerdict(bit, Verdict.SAFE, None, None, blunder=False)
            if bit in safe
            else MoveVerdict(bit, Verdict.LOSES_AT_ONCE, other(mover), 1, blunder=True)
            for bit in ("0", "1")
        )
        note = (
            "Nobody can force a win: there is always a safe bit, so a careful game "
            "never ends. It ends by a blunder or a resignation."
        )
        return Analysis(mover, None, None, tuple(safe), moves, note=note)
