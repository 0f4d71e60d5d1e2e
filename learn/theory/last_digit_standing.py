"""Last Digit Standing: the divisibility graph of 1..highest, with the winning first moves.

The edges come from the rules: after a first move removes ``a``, the legal moves
are exactly the numbers related to ``a``. The winning first moves come from
``analyse`` of the start.
"""

from __future__ import annotations

import math

from games.rules import Game
from games.rules.last_digit_standing import EXACT_NUMBERS

from . import Theory, register

RING = 140.0  # the circle the numbers sit on, at least
NODE_RADIUS = 15.0
SPACING = 2 * NODE_RADIUS + 6  # along the ring, from one number's centre to the next
MARGIN = 40.0  # around the ring


def ring_radius(count: int) -> float:
    """A ring wide enough that its numbers never overlap (at 100 numbers, about 570)."""
    return max(RING, count * SPACING / (2 * math.pi))


def picture_size(count: int) -> float:
    return round(2 * (ring_radius(count) + MARGIN), 1)


def edges(game: Game, highest: int) -> list[tuple[int, int]]:
    """Pairs (a, b), a < b, where removing a first lets the opponent remove b."""
    start = game.start(highest=highest)
    found = set()
    for first in game.legal_moves(start):
        after = game.play(start, first)
        replies = game.legal_moves(after) if after.result is None else []
        for reply in replies:
            a, b = sorted((int(first), int(reply)))
            found.add((a, b))
    return sorted(found)


def layout(numbers: list[int], pairs: list[tuple[int, int]]) -> dict[int, tuple[float, float]]:
    """A number related to every other one goes in the middle; the rest on a circle,
    in order, starting at the top."""
    neighbours = {n: set() for n in numbers}
    for a, b in pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    middle = [n for n in numbers if len(neighbours[n]) == len(numbers) - 1][:1]
    ring = [n for n in numbers if n not in middle]
    radius = ring_radius(len(ring))
    centre = picture_size(len(ring)) / 2
    places = {n: (centre, centre) for n in middle}
    for i, n in enumerate(ring):
        angle = 2 * math.pi * i / len(ring) - math.pi / 2
        places[n] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle))
    return places


def pairing(numbers: list[int], pairs: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The numbers split into related pairs, if they can be (backtracking: the smallest
    number left takes each partner in turn); None if they cannot."""
    partners = {n: [] for n in numbers}
    for a, b in pairs:
        partners[a].append(b)
        partners[b].append(a)

    def search(left: frozenset[int]) -> list[tuple[int, int]] | None:
        if not left:
            return []
        n = min(left)
        for m in partners[n]:
            if m in left:
                rest = search(left - {n, m})
                if rest is not None:
                    return [(n, m), *rest]
        return None

    return search(frozenset(numbers))


def explain(numbers: list[int], pairs: list[tuple[int, int]]) -> dict:
    """Why the numbers can or cannot all be paired: an odd count, two or more numbers
    related only to 1, or a pairing that covers them all."""
    if len(numbers) % 2:
        return {"reason": "odd", "lonely": [], "pairs": None}
    neighbours = {n: {b if a == n else a for a, b in pairs if n in (a, b)} for n in numbers}
    lonely = [n for n in numbers if neighbours[n] == {1}]
    if len(lonely) >= 2:
        return {"reason": "lonely", "lonely": lonely, "pairs": None}
    return {"reason": "paired", "lonely": lonely, "pairs": pairing(numbers, pairs)}


@register("last-digit-standing")
def theory(game: Game, options: dict) -> Theory:
    highest = options["highest"]
    start = game.start(highest=highest)
    pairs = edges(game, highest)
    numbers = list(range(1, highest + 1))
    places = layout(numbers, pairs)
    analysis = game.analyse(start)
    winning = {int(move) for move in analysis.winning_moves} if analysis else set()
    verdicts = {int(v.move): v for v in analysis.moves} if analysis else {}
    nodes = [
        {
            "n": n,
            "x": round(places[n][0], 1),
            "y": round(places[n][1], 1),
            "wins": n in winning,
            "related": [b if a == n else a for a, b in pairs if n in (a, b)],
            "verdict": verdicts.get(n),
        }
        for n in numbers
    ]
    lines = [
        {
            "a": a,
            "b": b,
            "x1": round(places[a][0], 1),
            "y1": round(places[a][1], 1),
            "x2": round(places[b][0], 1),
            "y2": round(places[b][1], 1),
        }
        for a, b in pairs
    ]
    maximum = game.option("highest").maximum
    return Theory(
        game,
        options,
        {
            "nodes": nodes,
            "lines": lines,
            "size": picture_size(len(numbers) - 1),
            "radius": NODE_RADIUS,
            "winning": sorted(winning),
            "winner": analysis.winner if analysis else None,
            "analysed": analysis is not None,
            "count": highest,
            "why": explain(numbers, pairs),
        },
        caps=(
            f"The numbers 1 to {highest}: the highest number is from "
            f"{game.option('highest').minimum} to {maximum}.",
            "The winning first moves come from the exact analysis of the start at every "
            "size (maximum matchings); the number of moves it takes is searched only while "
            f"at most {EXACT_NUMBERS} numbers are left.",
        ),
        start_summary=analysis.summary if analysis else "",
    )
