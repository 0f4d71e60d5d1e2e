"""Bit Flip: Divisor (rule book 003, also titled "Bit Flip" in its book).

Eight bits, all ``0``, positions 1 (most significant) to 8. A turn flips exactly
one ``0`` bit to ``1``. If the new value is divisible by the target divisor, the
mover wins at once. A player with no ``0`` bit left loses.

The book makes an invalid move lose at once. Ruling: naming a bit that is
already ``1``, or a position outside 1-8, loses the game for its maker; text
that names no position at all is refused without penalty.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import Ending, Game, MalformedMove, Option, Outcome, Position, other, parse_int

WIDTH = 8


@dataclass(frozen=True, kw_only=True)
class BitFlipDivisorPosition(Position):
    divisor: int = 7
    bits: str = "0" * WIDTH

    @property
    def value(self) -> int:
        return int(self.bits, 2)

    @property
    def zeros(self) -> list[int]:
        return [i for i, bit in enumerate(self.bits, start=1) if bit == "0"]


class BitFlipDivisor(Game):
    slug = "bit-flip-divisor"
    title = "Bit Flip: Divisor"
    summary = (
        "Flip one 0 bit of a byte to 1; whoever makes a multiple of the divisor wins, "
        "and an invalid bit loses."
    )
    options = (
        Option(
            "divisor",
            "Target divisor",
            7,
            minimum=2,
            maximum=255,
            help="Make the byte's value a multiple of this number to win.",
        ),
    )
    position_class = BitFlipDivisorPosition
    move_hint = "Select a bit to flip: a position from 1 to 8."
    puzzle_options = ({}, {"divisor": 11}, {"divisor": 13})

    def initial(self, *, divisor: int) -> BitFlipDivisorPosition:
        return BitFlipDivisorPosition(divisor=divisor)

    def notation(self, pos: BitFlipDivisorPosition) -> str:
        return f"{pos.bits} (decimal {pos.value})"

    def moves(self, pos: BitFlipDivisorPosition) -> list[str]:
        return [str(i) for i in pos.zeros]

    def canonical(self, pos: BitFlipDivisorPosition, move: str) -> str:
        number = parse_int(move)
        return move.strip() if number is None else str(number)

    def apply(self, pos: BitFlipDivisorPosition, text: str) -> BitFlipDivisorPosition:
        position = parse_int(text)
        if position is None:
            raise MalformedMove(self.move_hint)
        mover = pos.to_move
        new = replace(pos, ply=pos.ply + 1)
        if not 1 <= position <= WIDTH or pos.bits[position - 1] == "1":
            return replace(new, result=Outcome(other(mover), Ending.INVALID_BIT, str(position)))
        bits = pos.bits[: position - 1] + "1" + pos.bits[position:]
        new = replace(new, bits=bits)
        if new.value % pos.divisor == 0:
            return replace(new, result=Outcome(mover, Ending.DIVISIBLE))
        if "0" not in bits:
            return replace(new, result=Outcome(mover, Ending.NO_BIT_LEFT))
        return new

    def describe_ending(self, pos: BitFlipDivisorPosition, result: Outcome) -> str:
        if result.ending is Ending.INVALID_BIT:
            position = int(result.move)
            if not 1 <= position <= WIDTH:
                return (
                    f"Player {result.loser} named bit {position}, outside 1-8: "
                    "an invalid move loses."
                )
            return (
                f"Player {result.loser} named bit {position}, which is already set to 1: "
                "an invalid move loses."
            )
        if result.ending is Ending.DIVISIBLE:
            return (
                f"Player {result.winner} made {pos.bits} (decimal {pos.value}), "
                f"and {pos.value} is divisible by {pos.divisor}."
            )
        return (
            f"Player {result.loser} has no 0 bit left to flip, and {pos.value} is not "
            f"divisible by {pos.divisor}."
        )

    # ---- analysis over (divisor, bits) ----------------------------------------

    def key(self, pos: BitFlipDivisorPosition):
        return (pos.divisor, pos.value)

    def successors(self, key):
        divisor, value = key
        for shift in range(WIDTH):
            bit = 1 << shift
            if value & bit:
                continue
            child = value | bit
            if child % divisor == 0:
                yield True, None
            else:
                yield None, (divisor, child)
