"""Bit Flip, fill the byte (rule book 002).

A row of bits, all ``0``, positions 1 (left) to ``width`` (right). A turn flips
one ``0`` bit, or two adjacent ``0`` bits, to ``1``. The mover who makes every
bit ``1`` wins; a player with no move loses. Invalid input is refused and the
same player tries again.

This is the octal game Kayles: the position splits into independent runs of
zeros, and the analysis works on the sorted run lengths.

The width is at most ``MAX_WIDTH`` = 32. The exact analysis (winner, and the
number of moves with the winner hurrying and the loser delaying) needs every
multiset of run lengths that fits in the width; its cost grows about 1.5 times
per extra bit. Cold, on a 2-core machine, the empty 32-bit row (the worst
position) takes about 0.2 s, 36 bits 0.5 s and 40 bits 1.3 s, over the 1 s
budget (``python -m benchmarks.analysis`` measures it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .base import Ending, Game, IllegalMove, MalformedMove, Option, Outcome, Position

MAX_WIDTH = 32  # the cold analysis of the widest row must stay well under 1 s


@dataclass(frozen=True, kw_only=True)
class BitFlipPosition(Position):
    width: int = 8
    bits: str = "00000000"

    @property
    def zeros(self) -> list[int]:
        return [i for i, bit in enumerate(self.bits, start=1) if bit == "0"]


def runs(bits: str) -> tuple[int, ...]:
    """The lengths of the runs of zeros, sorted: all that matters for the future."""
    return tuple(sorted(len(run) for run in bits.split("1") if run))


class BitFlip(Game):
    slug = "bit-flip"
    title = "Bit Flip"
    summary = "Flip one 0 bit or two adjacent 0 bits to 1; whoever fills the byte wins."
    options = (
        Option(
            "width",
            "Width",
            8,
            minimum=1,
            maximum=MAX_WIDTH,
            help=(
                f"How many bits the number has (1 to {MAX_WIDTH}; wider rows would make "
                "the exact analysis too slow)."
            ),
        ),
    )
    position_class = BitFlipPosition
    puzzle_options = ({}, {"width": 12})
    move_hint = (
        "Enter the bit number to flip, or two adjacent bit numbers separated by a space "
        "(for example 3, or 4 5)."
    )

    def initial(self, *, width: int) -> BitFlipPosition:
        return BitFlipPosition(width=width, bits="0" * width)

    def moves(self, pos: BitFlipPosition) -> list[str]:
        bits = pos.bits
        singles = [str(i) for i in range(1, pos.width + 1) if bits[i - 1] == "0"]
        pairs = [
            f"{i} {i + 1}" for i in range(1, pos.width) if bits[i - 1] == "0" and bits[i] == "0"
        ]
        return singles + pairs

    def parse(self, pos: BitFlipPosition, text: str) -> list[int]:
        parts = [part for part in re.split(r"[\s,]+", text) if part]
        if not parts or not all(re.fullmatch(r"\d{1,31}", part) for part in parts):
            raise MalformedMove(self.move_hint)
        if len(parts) > 2:
            raise IllegalMove(f"You may flip one bit or two adjacent bits, not {len(parts)}.")
        numbers = sorted(int(part) for part in parts)
        for n in numbers:
            if not 1 <= n <= pos.width:
                raise IllegalMove(f"There is no bit {n}: the bits are numbered 1 to {pos.width}.")
        if len(numbers) == 2:
            a, b = numbers
            if a == b:
                raise IllegalMove("Name two different bits, or just one.")
            if b != a + 1:
                raise IllegalMove(
                    f"Bits {a} and {b} are not adjacent: two bits must be side by side."
                )
        for n in numbers:
            if pos.bits[n - 1] == "1":
                raise IllegalMove(f"Bit {n} is already 1: only 0 bits can be flipped.")
        return numbers

    def canonical(self, pos: BitFlipPosition, move: str) -> str:
        parts = [part for part in re.split(r"[\s,]+", move.strip()) if part]
        if parts and all(part.isdecimal() for part in parts):
            return " ".join(str(n) for n in sorted(int(part) for part in parts))
        return move.strip()

    def apply(self, pos: BitFlipPosition, text: str) -> BitFlipPosition:
        numbers = self.parse(pos, text)
        bits = list(pos.bits)
        for n in numbers:
            bits[n - 1] = "1"
        new = replace(pos, ply=pos.ply + 1, bits="".join(bits))
        if "0" not in new.bits:
            move = " ".join(str(n) for n in numbers)
            new = replace(new, result=Outcome(pos.to_move, Ending.BYTE_FILLED, move))
        return new

    def describe_ending(self, pos: BitFlipPosition, result: Outcome) -> str:
        numbers = result.move.split()
        flipped = " and ".join(numbers)
        return (
            f"Player {result.winner} flipped bit{'s' if len(numbers) > 1 else ''} {flipped} "
            f"and completed {pos.bits}."
        )

    # ---- analysis over sorted run lengths (Kayles) ---------------------------

    def key(self, pos: BitFlipPosition):
        return runs(pos.bits)

    def successors(self, key):
        seen = set()
        for index, run in enumerate(key):
            if run in seen:
                continue
            seen.add(run)
            rest = key[:index] + key[index + 1 :]
            for take in (1, 2):
                if take > run:
                    continue
                for left in range((run - take) // 2 + 1):
                    right = run - take - left
                    child = tuple(sorted(rest + tuple(n for n in (left, right) if n)))
                    if not child:
                        yield True, None  # every bit is 1: the mover wins
                    else:
                        yield None, child
