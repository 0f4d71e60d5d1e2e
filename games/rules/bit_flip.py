"""Bit Flip, fill the byte (rule book 002).

A row of bits, all ``0``, positions 1 (left) to ``width`` (right). A turn flips
one ``0`` bit, or two adjacent ``0`` bits, to ``1``. The mover who makes every
bit ``1`` wins; a player with no move loses. Invalid input is refused and the
same player tries again.

This is the octal game Kayles: the position splits into independent runs of
zeros. Who wins comes from the Sprague-Grundy theory: a run of ``n`` zeros is
worth Kayles' nim-value ``kayles(n)`` (OEIS A002186), a row the XOR of its runs'
values, and the player to move wins exactly when that XOR is not 0. The values are
found by mex up to ``PERIODIC_FROM + PERIOD`` and repeat with period 12 from
n = 71 on (Guy and Smith, 1956), so a move's verdict costs the same at any width.

How many moves perfect play takes (the winner hurrying, the loser delaying) has no
such theory: it is searched over the sorted run lengths while at most
``EXACT_ZEROS`` zeros are left (cold, about 15 ms for the worst such position, a
single run);
beyond, the analysis gives the winner and every move's verdict, and a count only for
the moves into a position within the search.

The width is at most ``MAX_WIDTH``: what the board, the move list and the analysis
board's answer (two moves a bit) still show usably.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from .base import (
    Ending,
    Game,
    IllegalMove,
    MalformedMove,
    Option,
    Outcome,
    Position,
    other,
    theory_caches,
)

MAX_WIDTH = 1000  # the widest row a page shows usably (the analysis lists two moves a bit)
# The plies are searched exactly while at most this many zeros are left.
EXACT_ZEROS = 20
# Kayles' values repeat with this period from PERIODIC_FROM on (Guy and Smith, 1956).
PERIOD, PERIODIC_FROM = 12, 71


def mex(values) -> int:
    """The smallest whole number not among ``values``."""
    values = set(values)
    n = 0
    while n in values:
        n += 1
    return n


def _kayles_table(longest: int) -> tuple[int, ...]:
    """Kayles' nim-values of runs of 0..longest zeros, by mex over the moves: a move takes
    one zero or two adjacent ones and leaves a run on each side."""
    values = [0]
    for n in range(1, longest + 1):
        values.append(
            mex(
                values[left] ^ values[n - take - left]
                for take in (1, 2)
                if take <= n
                for left in range(n - take + 1)
            )
        )
    return tuple(values)


_KAYLES = _kayles_table(PERIODIC_FROM + PERIOD - 1)


def kayles(n: int) -> int:
    """The nim-value of a run of ``n`` zeros (Kayles; OEIS A002186), at any length."""
    if n < len(_KAYLES):
        return _KAYLES[n]
    return _KAYLES[PERIODIC_FROM + (n - PERIODIC_FROM) % PERIOD]


@functools.lru_cache(maxsize=4096)
def _splits(n: int, take: int) -> tuple[int, ...]:
    """For each way to flip ``take`` neighbouring zeros of a run of ``n``, from the left:
    the nim-value of the two runs it leaves (a run's moves cost one lookup each)."""
    return tuple(kayles(left) ^ kayles(n - take - left) for left in range(n - take + 1))


theory_caches.append(_splits)


def nim_value(bits: str) -> int:
    """The nim-value of a row: the XOR of its runs' values (0: the player to move loses)."""
    value = 0
    for run in bits.split("1"):
        value ^= kayles(len(run))
    return value


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
                f"How many bits the number has (1 to {MAX_WIDTH}; the analysis is exact at "
                "every width)."
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

    # ---- analysis: nim-values (Kayles), and a search for the plies when small ----

    decisive = True  # normal play: the player left without a move loses

    def winner(self, pos: BitFlipPosition) -> int | None:
        """The player to move wins exactly when the row's nim-value is not 0."""
        if pos.result is not None or self.searchable(pos):
            return super().winner(pos)
        return pos.to_move if nim_value(pos.bits) else other(pos.to_move)

    def searchable(self, pos: BitFlipPosition) -> bool:
        return pos.bits.count("0") <= EXACT_ZEROS

    def search_reaches_next(self, pos: BitFlipPosition) -> bool:
        return pos.bits.count("0") <= EXACT_ZEROS + 2  # a move flips one zero or two

    def theory_wins(self, pos: BitFlipPosition) -> dict[str, tuple[bool, bool]]:
        """A move wins exactly when it leaves a row of nim-value 0: a move in a run of n
        zeros leaves a run of ``left`` and one of ``n - taken - left`` in its place."""
        zeros = pos.bits.count("0")
        total = nim_value(pos.bits)
        singles: list[tuple[str, tuple[bool, bool]]] = []
        pairs: list[tuple[str, tuple[bool, bool]]] = []
        first = 1
        for run in pos.bits.split("1"):
            n = len(run)
            rest = total ^ kayles(n)
            one, two = zeros == 1, zeros == 2
            singles.extend(
                (str(first + left), (value == rest, one))
                for left, value in enumerate(_splits(n, 1))
            )
            pairs.extend(
                (f"{first + left} {first + left + 1}", (value == rest, two))
                for left, value in enumerate(_splits(n, 2))
            )
            first += n + 1
        return dict(singles + pairs)

    def prefer(self, pos: BitFlipPosition, moves: list[str], winning: bool) -> list[str]:
        """The winner flips two bits where it can (fewer zeros left), the loser one."""
        sizes = {move: len(move.split()) for move in moves}
        want = max(sizes.values()) if winning else min(sizes.values())
        return [move for move in moves if sizes[move] == want]

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
