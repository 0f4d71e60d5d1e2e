"""Last Digit Standing (rule book 004).

The digits 1 to ``highest`` (default 9). The first move removes any digit; every
later move removes a remaining digit that is a divisor or a multiple of the digit
the opponent removed last. A player with no such digit loses.

1 divides every number: while 1 remains it is always a legal move, and after 1
is removed every remaining digit is legal.

Who wins comes from a theorem: the game is undirected vertex geography on the
divisibility graph (the numbers, an edge between two when one divides the other),
and the player to move from the last removed number v wins exactly when every
maximum matching of the graph on the remaining numbers plus v covers v
(Fraenkel, Scheinerman and Ullman, 1993). So a move to u wins exactly when some
maximum matching of the remaining numbers (u among them) misses u: one maximum
matching and one Edmonds search from its unmatched numbers (the Gallai-Edmonds
decomposition, ``missable``) give every move's verdict at once, in polynomial time.
(Edmonds' blossom algorithm is written here on plain lists: networkx's general
weighted matching, the tests' reference, takes about 5 ms at 100 numbers, and the
analysis board follows a line of 30 positions in its 100 ms.)

How many moves perfect play takes has no such theorem: it is searched over (numbers
left, last removed) while at most ``EXACT_NUMBERS`` numbers are left (cold, up to
about 20 ms for the densest ten of 1-100, such as 1 3 4 5 8 10 12 40 64 96: at 11 or
12 dense numbers it can take over half a second); beyond, the
analysis gives the winner and every move's verdict, and no count.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .base import Ending, Game, IllegalMove, MalformedMove, Option, Outcome, Position, parse_int

MAX_HIGHEST = 100  # the board draws a hundred numbers usably, at 360 px too
# The plies are searched exactly while at most this many numbers are left.
EXACT_NUMBERS = 10


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


def neighbours(numbers: Iterable[int]) -> dict[int, list[int]]:
    """The divisibility graph on ``numbers``: each number's divisors and multiples among them."""
    numbers = sorted(set(numbers))
    present = set(numbers)
    top = numbers[-1] if numbers else 0
    adjacent: dict[int, list[int]] = {n: [] for n in numbers}
    for a in numbers:
        for b in range(2 * a, top + 1, a):
            if b in present:
                adjacent[a].append(b)
                adjacent[b].append(a)
    return adjacent


def _grow(adj: list[list[int]], mate: list[int], roots: list[int]):
    """Edmonds' alternating forest from ``roots`` (unmatched vertices), blossoms
    contracted as they close (the array form of Edmonds' blossom algorithm). Returns
    (outer, parent, end): the vertices at even distance from a root, the forest's
    links, and an unmatched vertex outside the roots reached by an augmenting path
    (-1: none; with one root only, as two trees never meet from a single root)."""
    size = len(adj)
    base = list(range(size))
    parent = [-1] * size
    outer = [False] * size
    for root in roots:
        outer[root] = True
    queue = deque(roots)

    def meet(a: int, b: int) -> int:
        """The base of the blossom closed by the edge a-b between two outer vertices."""
        seen = [False] * size
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            if mate[b] == -1:  # two trees meet: an augmenting path, so not maximum
                raise AssertionError("the forest's matching was not maximum")
            b = parent[mate[b]]

    def mark(v: int, top: int, child: int, blossom: list[bool]) -> None:
        while base[v] != top:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if (outer[to] and mate[to] == -1) or (mate[to] != -1 and parent[mate[to]] != -1):
                top = meet(v, to)  # ``to`` is outer too: the edge closes a blossom
                blossom = [False] * size
                mark(v, top, to, blossom)
                mark(to, top, v, blossom)
                for i in range(size):
                    if blossom[base[i]]:
                        base[i] = top
                        if not outer[i]:
                            outer[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    return outer, parent, to  # an augmenting path ends at ``to``
                outer[mate[to]] = True  # ``to`` is inner, its mate outer
                queue.append(mate[to])
    return outer, parent, -1


def maximum_matching(adj: list[list[int]]) -> list[int]:
    """A maximum matching of the graph ``adj`` (vertex -> neighbours): each vertex's
    mate, or -1. Greedy first, then an augmenting path searched from each unmatched
    vertex in turn (Edmonds, 1965): polynomial, O(V^3) at worst."""
    size = len(adj)
    mate = [-1] * size
    for v in range(size):
        if mate[v] == -1:
            for to in adj[v]:
                if mate[to] == -1:
                    mate[v], mate[to] = to, v
                    break
    for root in range(size):
        if mate[root] != -1:
            continue
        _, parent, end = _grow(adj, mate, [root])
        while end != -1:  # flip the path: root ... parent[end] - end
            before = parent[end]
            after = mate[before]
            mate[end], mate[before] = before, end
            end = after
    return mate


def missable(numbers: Iterable[int]) -> frozenset[int]:
    """The numbers that some maximum matching of the divisibility graph on ``numbers``
    leaves unmatched (the set D of the Gallai-Edmonds decomposition).

    One maximum matching, then Edmonds' forest grown from all its unmatched numbers at
    once: as the matching is maximum no augmenting path turns up, and the numbers the
    forest reaches at even distance (its outer ones) are exactly those some maximum
    matching misses (Gallai-Edmonds). Tested against networkx's maximum matchings, with
    and without each number."""
    adjacent = neighbours(numbers)
    order = list(adjacent)
    index = {n: i for i, n in enumerate(order)}
    missed = missed_vertices([[index[m] for m in adjacent[n]] for n in order])
    return frozenset(order[i] for i in missed)


def perfectly_paired(numbers: Iterable[int]) -> bool:
    """Do ``numbers`` pair up completely, each with a divisor or multiple? Exactly when no
    maximum matching misses a number (``missable`` is empty): a maximum matching is then
    perfect."""
    return not missable(numbers)


def reachable(remaining: Iterable[int], last: int) -> list[int]:
    """The numbers a game could still reach from ``last``: its part of the divisibility
    graph on ``remaining`` plus ``last``, without ``last``, in order."""
    adjacent = neighbours([*remaining, last])
    seen, frontier = {last}, [last]
    while frontier:
        frontier = [m for n in frontier for m in adjacent[n] if m not in seen]
        seen.update(frontier)
    return sorted(seen - {last})


def missed_vertices(adj: list[list[int]]) -> set[int]:
    """The vertices of the graph ``adj`` that some maximum matching leaves unmatched."""
    mate = maximum_matching(adj)
    outer, _, _ = _grow(adj, mate, [v for v in range(len(adj)) if mate[v] == -1])
    return {v for v in range(len(adj)) if outer[v]}


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
                "the analysis is exact at every length)."
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

    # ---- analysis: maximum matchings (geography), and a search for the plies when small

    def searchable(self, pos: LastDigitPosition) -> bool:
        return len(pos.remaining) <= EXACT_NUMBERS

    def search_reaches_next(self, pos: LastDigitPosition) -> bool:
        return len(pos.remaining) <= EXACT_NUMBERS + 1  # a move removes one number

    def theory_wins(self, pos: LastDigitPosition) -> dict[str, tuple[bool, bool]]:
        """Removing u wins exactly when some maximum matching of the remaining numbers
        misses u (``missable``); it ends the game when nothing left is related to u."""
        remaining = pos.remaining
        winning = missable(remaining)
        found = {}
        for move in self.moves(pos):
            u = int(move)
            over = not any(related(u, d) for d in remaining if d != u)
            found[move] = (u in winning, over)
        return found

    def prefer(self, pos: LastDigitPosition, moves: list[str], winning: bool) -> list[str]:
        """The winner leaves the opponent the fewest replies, the loser itself the most."""
        left = set(pos.remaining)
        replies = {
            move: sum(1 for d in left if d != int(move) and related(d, int(move))) for move in moves
        }
        want = min(replies.values()) if winning else max(replies.values())
        return [move for move in moves if replies[move] == want]

    # ---- the search over (remaining as a bit mask, last) ------------------------

    def key(self, pos: LastDigitPosition):
        mask = 0
        for d in pos.remaining:
            mask |= 1 << d
        return (mask, pos.last or 0)

    def successors(self, key):
        mask, last = key
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            d = low.bit_length() - 1
            if last == 0 or d % last == 0 or last % d == 0:
                yield None, (mask & ~low, d)
