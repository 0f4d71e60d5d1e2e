"""Puzzle themes, computed from what a puzzle's winning moves do, by each game's theory.

Pure Python (no Django). ``themes_of(game, pos, analysis)`` gives the keys of the themes
of a puzzle position; the generator (learn/puzzles.py) stores them with each puzzle, and
the pages read them from there. Nothing is hand-labelled: every theme is a test on the
position after a winning move (any of them, when there are several).

Every game:
- ``short`` / ``medium`` / ``long``: the win takes 3, 5, or 7 and more plies.
- ``only-move``: exactly one legal move wins.
- ``forcing``: a winning move leaves the opponent a single legal reply.

Bit Flip (Kayles: a row's value is the XOR of its runs' nim-values; a move wins when it
leaves value 0):
- ``split-halves``: the move leaves exactly two runs of zeros of the same length, so
  every later move can be mirrored in the other half.
- ``pair-runs``: the move leaves the runs in equal pairs (more than one pair): copy each
  move onto the twin run.
- ``nim-balance``: the runs left do not pair up, yet their nim-values XOR to 0: no
  symmetry, only the arithmetic wins.

Last Digit Standing (undirected vertex geography on the divisibility graph: the player to
move from the number last removed, v, loses exactly when some maximum matching of the
numbers left plus v misses v; the winner answers each move with its partner):
- ``pair-numbers``: after the move, the numbers the game can still reach (the part of
  the divisibility graph joined to the move) pair up completely (a perfect matching):
  whatever the opponent removes, remove its partner.
- ``strand-numbers``: they do not all pair up, but a maximum matching leaves out only
  numbers the opponent can never be led to: pair what they can reach, strand the rest.
- ``take-one``: the winning move removes 1 (after it, every number is legal: the pairing
  must cover them all).
- ``lone-prime``: the winning move is a prime p with 2p above the highest number: only 1
  is related to it.
- ``go-up`` / ``go-down``: the winning move is a multiple / a divisor of the number the
  opponent removed last.

Bit Flip: Divisor (no closed form: the exact search over the byte's values):
- ``make-multiple``: the winning line ends by making a multiple of the divisor.
- ``last-bit``: the winning line ends with no 0 bit left: count the zeros, flip the last.

Bitwise Battle and Last Bit Standing have no puzzles (two legal moves in every position,
and the rule asks for at least three), so no themes either.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.rules import Analysis, Ending, Game, Position
from games.rules.bit_flip import nim_value, runs
from games.rules.last_digit_standing import perfectly_paired, reachable

from .solutions import solve_position

SHORT, MEDIUM = 3, 5


@dataclass(frozen=True)
class Theme:
    key: str
    title: str
    about: str
    games: tuple[str, ...] = ()  # the games it can apply to; () for every game


THEMES: dict[str, Theme] = {
    t.key: t
    for t in (
        Theme("short", "Short", "The win takes 3 plies: a move, any reply, the finishing move."),
        Theme("medium", "Medium", "The win takes 5 plies with perfect play."),
        Theme("long", "Long", "The win takes 7 plies or more with perfect play."),
        Theme("only-move", "The only move", "Exactly one of the legal moves keeps the win."),
        Theme("forcing", "Forcing move", "A winning move leaves the opponent a single reply."),
        Theme(
            "split-halves",
            "Split the row into equal halves",
            "The winning move leaves two runs of zeros of the same length: answer every "
            "move with its mirror image in the other run.",
            ("bit-flip",),
        ),
        Theme(
            "pair-runs",
            "Pair the runs",
            "The winning move leaves the runs of zeros in equal pairs: copy each move onto "
            "the twin run.",
            ("bit-flip",),
        ),
        Theme(
            "nim-balance",
            "Balance the nim-values",
            "The runs left do not pair up, yet their Kayles nim-values XOR to 0: no symmetry "
            "to copy, only the arithmetic wins.",
            ("bit-flip",),
        ),
        Theme(
            "pair-numbers",
            "Pair the numbers",
            "After the winning move the numbers still reachable pair up completely, each with "
            "a divisor or multiple: whatever the opponent removes, remove its partner.",
            ("last-digit-standing",),
        ),
        Theme(
            "strand-numbers",
            "Pair the numbers, strand the rest",
            "The numbers still reachable do not all pair up, but those a maximum pairing "
            "leaves out can never be reached: pair what the opponent can reach.",
            ("last-digit-standing",),
        ),
        Theme(
            "take-one",
            "Take the 1",
            "The winning move removes 1, which divides every number.",
            ("last-digit-standing",),
        ),
        Theme(
            "lone-prime",
            "A lone prime",
            "The winning move is a prime with no multiple left in the sequence: only 1 is "
            "related to it.",
            ("last-digit-standing",),
        ),
        Theme(
            "go-up",
            "Up to a multiple",
            "The winning move is a multiple of the number removed last.",
            ("last-digit-standing",),
        ),
        Theme(
            "go-down",
            "Down to a divisor",
            "The winning move is a divisor of the number removed last.",
            ("last-digit-standing",),
        ),
        Theme(
            "make-multiple",
            "Set up a multiple",
            "The winning line ends by making a multiple of the divisor.",
            ("bit-flip-divisor",),
        ),
        Theme(
            "last-bit",
            "Count the zeros",
            "No multiple can be forced: the winning line ends by flipping the last 0 bit.",
            ("bit-flip-divisor",),
        ),
    )
}


def theme(key: str) -> Theme | None:
    return THEMES.get(key)


# ---- Bit Flip: Kayles ------------------------------------------------------------------


def _bit_flip(after: Position) -> set[str]:
    lengths = runs(after.bits)
    if not lengths:
        return set()
    counts = {length: lengths.count(length) for length in lengths}
    if all(count % 2 == 0 for count in counts.values()):
        return {"split-halves"} if len(lengths) == 2 else {"pair-runs"}
    if nim_value(after.bits) == 0:
        return {"nim-balance"}
    return set()


# ---- Last Digit Standing: maximum matchings ----------------------------------------------


def _primes_up_to(n: int) -> set[int]:
    return {p for p in range(2, n + 1) if all(p % d for d in range(2, int(p**0.5) + 1))}


def _last_digit(pos: Position, move: str, after: Position) -> set[str]:
    digit = int(move)
    paired = perfectly_paired(reachable(after.remaining, digit))
    found = {"pair-numbers" if paired else "strand-numbers"}
    if digit == 1:
        found.add("take-one")
    if digit in _primes_up_to(pos.highest) and 2 * digit > pos.highest:
        found.add("lone-prime")
    if pos.last is not None and digit != 1 and pos.last != 1:
        found.add("go-up" if digit % pos.last == 0 else "go-down")
    return found


# ---- Bit Flip: Divisor: how the winning line ends -----------------------------------------


def _divisor(game: Game, pos: Position, move: str) -> set[str]:
    end = game.play(pos, move)
    for step in solve_position(game, end).line:  # to the end: a byte has 8 bits at most
        end = game.play(end, step)
    if end.result.ending is Ending.DIVISIBLE:
        return {"make-multiple"}
    if end.result.ending is Ending.NO_BIT_LEFT:
        return {"last-bit"}
    return set()


# ---- all of them ---------------------------------------------------------------------------


def themes_of(game: Game, pos: Position, analysis: Analysis) -> list[str]:
    """The themes of a puzzle position (the mover wins), in THEMES' order."""
    winning = [m.move for m in analysis.moves if m.winner == pos.to_move]
    found: set[str] = set()
    depth = analysis.plies or 0
    found.add("short" if depth <= SHORT else "medium" if depth <= MEDIUM else "long")
    if len(winning) == 1:
        found.add("only-move")
    for move in winning:
        after = game.play(pos, move)
        if len(game.legal_moves(after)) == 1:
            found.add("forcing")
        if game.slug == "bit-flip":
            found |= _bit_flip(after)
        elif game.slug == "last-digit-standing":
            found |= _last_digit(pos, move, after)
        elif game.slug == "bit-flip-divisor":
            found |= _divisor(game, pos, move)
    return [key for key in THEMES if key in found]


def hint(game: Game, pos: Position, analysis: Analysis, labels) -> str:
    """Where to look, without naming the move: for Bit Flip the run of zeros a winning move
    is in (when there are several runs); otherwise a handful of moves, about half of the
    legal ones, among which one wins. ``labels``: move -> what its button says."""
    winning = [m.move for m in analysis.moves if m.winner == pos.to_move]
    if not winning:
        return ""
    first = winning[0]
    if game.slug == "bit-flip" and len(runs(pos.bits)) > 1:
        bit = int(first.split()[0])
        start = bit
        while start > 1 and pos.bits[start - 2] == "0":
            start -= 1
        end = bit
        while end < len(pos.bits) and pos.bits[end] == "0":
            end += 1
        return f"Look at the run of {end - start + 1} zeros from bit {start} to bit {end}."
    legal = game.legal_moves(pos)
    size = max(2, (len(legal) + 1) // 2)
    losing = sorted(
        (m for m in analysis.moves if m.winner != pos.to_move),
        key=lambda m: -(m.plies or 0),  # the most tempting first: those that lose slowest
    )
    shown = {first, *(m.move for m in losing[: size - 1])}
    ordered = [labels(m) for m in legal if m in shown]
    return "One of these wins: " + ", ".join(ordered) + "."
