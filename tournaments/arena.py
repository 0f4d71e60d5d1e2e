"""Arena scoring and the pairing of waiting players, as on lichess: pure Python, no Django.

Scoring (lichess's arena FAQ, and ``ArenaSheet.scala`` in lila): a win scores 2, a draw 1, a
loss 0. Two wins in a row start a streak ("on fire"): while on it, every game counts double, so
a win scores 4 and a draw 2; the first game that is not a win (a draw or a loss) ends it, after
being scored. Two wins followed by a draw make 2 + 2 + 2 = 6. Not here: berserk (half the clock
for an extra point on a win) and lichess's rule that a draw in the first moves scores nothing;
both depend on how a game went, not only on its result.

Pairing: whoever is waiting when the app asks is paired, as many as possible, never with the
opponent of their own last game (nor with a player whose last opponent they were), preferring
close ranks (the smallest sum of squared rank differences: 1-3 and 2-4 rather than 1-4 and 2-3),
then close scores. It is a maximum-weight matching from networkx with the largest number of
pairs first, as lila's ``AntmaPairing`` is (there the rank difference is the main cost too).
Whoever cannot be paired keeps waiting. More than `GROUP` players waiting are paired in groups
of that many in rank order, the one left over in a group joining the next: the matching's
time grows with the cube of the players (networkx's is pure Python). In groups of 100 (as
lila's arena pairs) 200 waiting players took 0.5 s of CPU and 500 took 1.1 s, held by the
one interpreter that also serves every page and move of the arena (benchmarks/tournaments.py:
it was a quarter of the server's time with 1,000 players); in groups of 20, 0.05 s and
0.13 s. Since the weights prefer neighbours in rank, a pair across two groups of 20 is
rarely what the whole matching would have chosen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations

import networkx as nx

WIN, DRAW, LOSS = "win", "draw", "loss"
POINTS = {WIN: 2, DRAW: 1, LOSS: 0}
GROUP = 20


class ArenaError(ValueError):
    """Something about an arena that the caller must know."""


class UnknownResult(ArenaError):
    """A result that is not "win", "draw" or "loss"."""


@dataclass(frozen=True)
class ArenaScore:
    total: int
    on_fire: bool  # two wins in a row: the next game counts double
    points: tuple[int, ...]  # what each game scored, in order


@dataclass(frozen=True)
class ArenaPairing:
    pairs: tuple[tuple[int, int], ...]  # the better-ranked player first; seats are the app's
    waiting: tuple[int, ...]  # could not be paired this time, in rank order


def score(results: Iterable[str]) -> ArenaScore:
    """A player's arena score from the results of their games, oldest first."""
    points, wins_in_a_row = [], 0
    for number, result in enumerate(results, 1):
        if result not in POINTS:
            raise UnknownResult(
                f'Game {number}\'s result is "win", "draw" or "loss", not {result!r}.'
            )
        points.append(POINTS[result] * (2 if wins_in_a_row >= 2 else 1))
        wins_in_a_row = wins_in_a_row + 1 if result == WIN else 0
    return ArenaScore(sum(points), wins_in_a_row >= 2, tuple(points))


def pair_waiting(
    waiting: Iterable[int],
    last_opponent: Mapping[int, int],
    scores: Mapping[int, int],
    ranks: Mapping[int, int],
) -> ArenaPairing:
    """Pair the players waiting. ``last_opponent`` maps a player to the opponent of their last
    game (absent: none yet); ``scores`` and ``ranks`` (1 is the top) are the current ones."""
    order = sorted(set(waiting), key=lambda p: (ranks[p], p))
    spread = max((scores[p] for p in order), default=0) - min((scores[p] for p in order), default=0)

    def cost(a: int, b: int) -> int:  # rank first, then score: lexicographic in one integer
        return (ranks[a] - ranks[b]) ** 2 * (spread + 1) + abs(scores[a] - scores[b])

    ceiling = (max((ranks[p] for p in order), default=0) ** 2 + 1) * (spread + 1)  # > any cost
    pairs, carried = [], []
    for start in range(0, len(order), GROUP):
        group = carried + order[start : start + GROUP]
        graph = nx.Graph()
        graph.add_nodes_from(group)
        for a, b in combinations(group, 2):
            if last_opponent.get(a) != b and last_opponent.get(b) != a:
                graph.add_edge(a, b, weight=ceiling - cost(a, b))
        matched = nx.max_weight_matching(graph, maxcardinality=True)
        pairs += [(a, b) if (ranks[a], a) < (ranks[b], b) else (b, a) for a, b in matched]
        paired = {p for pair in matched for p in pair}
        carried = [p for p in group if p not in paired]
    pairs.sort(key=lambda pair: (ranks[pair[0]], pair[0]))
    return ArenaPairing(tuple(pairs), tuple(sorted(carried, key=lambda p: (ranks[p], p))))
