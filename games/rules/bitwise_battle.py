"""Bitwise Battle (rule book 001).

The sequence starts empty; a turn appends one bit. After each bit the winning
condition is checked on the whole sequence: if it holds, the mover wins. If the
sequence reaches the maximum length with no winner, the player who made that
last move loses.

Rulings: a sequence of only zeros (value 0) never satisfies "divisible by k";
leading zeros count for length and do not change the value; "exactly k ones" is
met the moment the count of ones reaches k.

Who wins has a closed rule, for every condition and position: a mover who can meet
the condition with this bit wins at once. Otherwise at most one of the two values the
move can make lets the opponent meet it with the next bit (for "divisible by k" the
remainder k/2 or (k - 1)/2, for "exactly k ones" the count k - 1, for "equals v" the
prefix v // 2), so the other bit is always safe: with care nobody ever meets the
condition and the maximum length decides. The player who would make the last bit
loses, after every bit left has been played (the loser delays, and the winner cannot
hurry). ``closed_value`` says it in a few lines, and the analysis costs the same at
every size; the search over (bits left, state) stays as the reference the tests compare
it with.

Bounds: at most ``MAX_LENGTH`` = 64 bits, "divisible by k" for k up to
``MAX_DIVISOR`` = 1000.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import (
    LOSS_AT_ONCE,
    WIN_AT_ONCE,
    Analysis,
    Ending,
    Game,
    MalformedMove,
    Option,
    Outcome,
    Position,
    Value,
    other,
)

MAX_LENGTH = 64
MAX_DIVISOR = 1000
DEAD = -1  # "equals v": the value can no longer become v


@dataclass(frozen=True, kw_only=True)
class BitwiseBattlePosition(Position):
    condition: str = "divisible"
    target: int = 3
    max_length: int = 20
    bits: str = ""

    @property
    def value(self) -> int:
        return int(self.bits, 2) if self.bits else 0

    @property
    def ones(self) -> int:
        return self.bits.count("1")

    @property
    def condition_text(self) -> str:
        return condition_text(self.condition, self.target)

    @property
    def bits_left(self) -> int:
        return self.max_length - len(self.bits)


def condition_text(condition: str, target: int) -> str:
    if condition == "divisible":
        return f"Binary number divisible by {target}"
    if condition == "ones":
        return f"Exactly {target} {'one' if target == 1 else 'ones'}"
    return f"Binary number equals {target}"


def holds(condition: str, target: int, value: int, ones: int) -> bool:
    if condition == "divisible":
        return value > 0 and value % target == 0
    if condition == "ones":
        return ones == target
    return value == target


class BitwiseBattle(Game):
    slug = "bitwise-battle"
    title = "Bitwise Battle"
    summary = (
        "Append bits to a shared sequence; be the first to meet the agreed condition, "
        "within the length cap."
    )
    options = (
        Option(
            "condition",
            "Condition",
            "divisible",
            choices=(
                ("divisible", "divisible by k"),
                ("ones", "exactly k ones"),
                ("equals", "equals the decimal value v"),
            ),
            help="What the binary number must satisfy for its maker to win.",
        ),
        Option(
            "target",
            "Target",
            3,
            minimum=1,
            maximum=2**MAX_LENGTH - 1,
            help=(
                f"k or v: divisible by k (2 to {MAX_DIVISOR}), exactly k ones "
                "(1 to the maximum length), or equals v (1 to 2^length - 1)."
            ),
        ),
        Option(
            "max_length",
            "Maximum length",
            20,
            minimum=1,
            maximum=MAX_LENGTH,
            help="If the sequence reaches this many bits with no winner, the last mover loses.",
        ),
    )
    position_class = BitwiseBattlePosition
    move_hint = "Enter the bit to add: 0 or 1."
    puzzle_options = (
        {},
        {"condition": "ones", "target": 4, "max_length": 9},
        {"condition": "divisible", "target": 5, "max_length": 10},
    )

    def check_options(self, options: dict) -> None:
        condition, target, length = options["condition"], options["target"], options["max_length"]
        if condition == "divisible" and not 2 <= target <= MAX_DIVISOR:
            raise ValueError(
                f"For 'divisible by k', k must be from 2 to {MAX_DIVISOR}, not {target}."
            )
        if condition == "ones" and not 1 <= target <= length:
            raise ValueError(
                f"For 'exactly k ones', k must be from 1 to the maximum length ({length}), "
                f"not {target}."
            )
        if condition == "equals" and not 1 <= target <= 2**length - 1:
            raise ValueError(
                f"For 'equals v', v must be from 1 to {2**length - 1} "
                f"(what {length} bits can hold), not {target}."
            )

    def describe_options(self, options: dict) -> str:
        text = condition_text(options["condition"], options["target"])
        return f"{text}; at most {options['max_length']} bits"

    def initial(self, *, condition: str, target: int, max_length: int) -> BitwiseBattlePosition:
        return BitwiseBattlePosition(condition=condition, target=target, max_length=max_length)

    def notation(self, pos: BitwiseBattlePosition) -> str:
        return f"{pos.bits} (decimal {pos.value})" if pos.bits else "(empty)"

    def moves(self, pos: BitwiseBattlePosition) -> list[str]:
        return ["0", "1"]

    def apply(self, pos: BitwiseBattlePosition, text: str) -> BitwiseBattlePosition:
        if text not in ("0", "1"):
            raise MalformedMove(f"{text!r} is not a bit. {self.move_hint}")
        new = replace(pos, ply=pos.ply + 1, bits=pos.bits + text)
        mover = pos.to_move
        if holds(pos.condition, pos.target, new.value, new.ones):
            return replace(new, result=Outcome(mover, Ending.CONDITION_MET))
        if len(new.bits) >= pos.max_length:
            return replace(new, result=Outcome(other(mover), Ending.LENGTH_REACHED))
        return new

    def describe_ending(self, pos: BitwiseBattlePosition, result: Outcome) -> str:
        if result.ending is Ending.LENGTH_REACHED:
            return (
                f"The sequence reached the maximum of {pos.max_length} bits with no winner; "
                f"Player {result.loser} made the last move and loses."
            )
        if pos.condition == "divisible":
            why = f"{pos.bits} = {pos.value}, and {pos.value} mod {pos.target} = 0"
        elif pos.condition == "ones":
            ones = "one" if pos.target == 1 else "ones"
            why = f"{pos.bits}, which has exactly {pos.target} {ones}"
        else:
            why = f"{pos.bits} = {pos.value}"
        return f"Player {result.winner} made {why}."

    # ---- analysis: the closed rule, and the search it is tested against ----------

    def analyse(self, pos: BitwiseBattlePosition) -> Analysis:
        if pos.result is not None:
            return self.search_analysis(pos)
        scored = []
        for move in self.moves(pos):
            child = self.play(pos, move)
            if child.result is not None:
                value = WIN_AT_ONCE if child.result.winner == pos.to_move else LOSS_AT_ONCE
            else:
                wins, plies = self.closed_value(self.key(child))
                value = (not wins, plies + 1)
            scored.append((move, value))
        return self.assemble(pos, scored)

    def closed_value(self, key) -> Value:
        """The value for the player to move, without search: a win at once if a bit meets
        the condition; else every bit left is played, and the last one loses."""
        if any(outcome is True for outcome, _ in self.successors(key)):
            return WIN_AT_ONCE
        _, _, max_length, length, _ = key
        left = max_length - length
        return (left % 2 == 0, left)

    def key(self, pos: BitwiseBattlePosition):
        condition, target = pos.condition, pos.target
        if condition == "divisible":
            state = (pos.value % target, pos.value > 0)
        elif condition == "ones":
            state = pos.ones
        else:
            state = self._equals_state(pos.value, target)
        return (condition, target, pos.max_length, len(pos.bits), state)

    @staticmethod
    def _equals_state(value: int, target: int) -> int:
        """The value while it can still grow into ``target`` (a binary prefix of it), else DEAD."""
        if value == 0:
            return 0
        if value > target or target >> (target.bit_length() - value.bit_length()) != value:
            return DEAD
        return value

    def successors(self, key):
        condition, target, max_length, length, state = key
        last = length + 1 >= max_length
        for bit in (0, 1):
            if condition == "divisible":
                rem, nonzero = state
                child = ((2 * rem + bit) % target, nonzero or bit == 1)
                won = child[1] and child[0] == 0
            elif condition == "ones":
                child = state + bit
                won = child == target
            else:
                child = DEAD if state == DEAD else self._equals_state(2 * state + bit, target)
                won = child == target
            if won:
                yield True, None
            elif last:
                yield False, None
            else:
                yield None, (condition, target, max_length, length + 1, child)
