"""Last Digit Standing (rule book 004).

The digits 1 to ``highest`` (default 9). The first move removes any digit; every
later move removes a remaining digit that is a divisor or a multiple of the digit
the opponent removed last. A player with no such digit loses.

1 divides every number: while 1 remains it is always a legal move, and after 1
is removed every remaining digit is legal.

The highest number is at most ``MAX_HIGHEST`` = 20. The exact analysis runs
over (numbers left, last removed) and grows about 2.5 times per extra number.
Cold, on a 2-core machine, the full sequence 1-20 (the worst position) takes
about 0.2 s, 1-22 about 0.5 s and 1-24 about 1.7 s, over the 1 s budget
(``python -m benchmarks.analysis`` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import Ending, Game, IllegalMove, MalformedMove, Option, Outcome, Position, parse_int

MAX_HIGHEST = 20  # the cold analysis of the full sequence must stay well under 1 s


@dataclass(frozen=True, kw_only=True)
class LastDigitPosition(Position):
    highest: int = 9
    remaining: tuple[int, ...] = tuple(range(1, 10))
    last: int | None = None  # the digit removed by the previous move

    @property
    def removed(self) -> list[int]:
        return [d for d in range(1, self.highest + 1) if d not in self.remaining]


def related(a: int, b: int) -> bool:
    """Is a a divisor or a multiple of b?"""
    return a % b == 0 or b % a == 0


def allowed(remaining, last):
    return [d for d in remaining if last is None or related(d, last)]


class LastDigitStanding(Game):
    slug = "last-digit-standing"
    title = "Last Digit Standing"
    summary = (
        "Remove a digit that divides, or is a multiple of, the one your opponent just "
        "removed; whoever cannot, loses."
    )
    options = (
        Option(
            "highest",
            "Highest number",
            9,
            minimum=2,
            maximum=MAX_HIGHEST,
            help=(
                f"The sequence holds the numbers from 1 to this one (2 to {MAX_HIGHEST}; "
                "longer sequences would make the exact analysis too slow)."
            ),
        ),
    )
    position_class = LastDigitPosition
    move_hint = "Enter a digit to remove."
    puzzle_options = ({}, {"highest": 12})

    def initial(self, *, highest: int) -> LastDigitPosition:
        return LastDigitPosition(highest=highest, remaining=tuple(range(1, highest + 1)))

    def notation(self, pos: LastDigitPosition) -> str:
        return "remaining: " + (" ".join(map(str, pos.remaining)) or "none")

    def moves(self, pos: LastDigitPosition) -> list[str]:
        return [str(d) for d in allowed(pos.remaining, pos.last)]

    def canonical(self, pos: LastDigitPosition, move: str) -> str:
        number = parse_int(move)
        return move.strip() if number is None else str(number)

    def apply(self, pos: LastDigitPosition, text: str) -> LastDigitPosition:
        digit = parse_int(text)
        if digit is None:
            raise MalformedMove(self.move_hint)
        if not 1 <= digit <= pos.highest:
            raise IllegalMove(f"There is no {digit}: the sequence runs from 1 to {pos.highest}.")
        if digit not in pos.remaining:
            raise IllegalMove(f"{digit} has already been removed.")
        if pos.last is not None and not related(digit, pos.last):
            raise IllegalMove(
                f"{digit} is neither a divisor nor a multiple of {pos.last}. "
                f"You may remove: {' '.join(self.moves(pos))}."
            )
        remaining = tuple(d for d in pos.remaining if d != digit)
        new = replace(pos, ply=pos.ply + 1, remaining=remaining, last=digit)
        if not allowed(remaining, digit):
            new = replace(new, result=Outcome(pos.to_move, Ending.NO_MOVE))
        return new

    def describe_ending(self, pos: LastDigitPosition, result: Outcome) -> str:
        left = " ".join(map(str, pos.remaining)) if pos.remaining else "none"
        return (
            f"Player {result.loser} cannot remove a divisor or multiple of {pos.last} "
            f"(digits left: {left})."
        )

    # ---- analysis over (remaining as a bit mask, last) ------------------------

    def key(self, pos: LastDigitPosition):
        mask = 0
        for d in pos.remaining:
            mask |= 1 << d
        return (pos.highest, mask, pos.last or 0)

    def successors(self, key):
        highest, mask, last = key
        for d in range(1, highest + 1):
            if mask >> d & 1 and (last == 0 or d % last == 0 or last % d == 0):
                yield None, (highest, mask & ~(1 << d), d)
