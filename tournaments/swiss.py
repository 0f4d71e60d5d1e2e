"""Swiss-system pairing and standings: pure Python, no Django.

A player is an id, a rating and one `Game` per round played so far (a bye included), so the
app can rebuild the whole event from its rows and ask for the next round. Nothing is stored here.

The rules followed, in order of priority:

1. Absolute: no two players meet twice; a player gets at most one bye in the event, and only
   when the number of players is odd; nobody's first moves may exceed their second moves (or the
   reverse) by more than two. If no complete pairing keeps these, `pair` raises `NoPairing`
   rather than bend them: in a small event, near its end, the event is over.
2. Everyone is paired (one bye when the count is odd).
3. The bye goes to the lowest score group that can take it.
4. Score differences inside pairs are as small as possible (the sum of their squares, in
   half points: two players floating one group are better than one floating two).
5. The bye goes to the lowest-ranked player of that group who can take it.
6. Within a score group, players meet the nearest in rank (1-2, 3-4, ...; the sum of the
   squares of the rank differences is as small as possible), and a player who floats down
   meets the top of the group below.

Ranks for pairing are by score, then rating, then id. These priorities are the weights of one
maximum-weight matching (networkx's, whose ``maxcardinality`` gives rule 2) over the pairs that
rule 1 allows. Seats are given after the pairs are chosen: of two players, the one with the lower
balance (first moves minus second moves; with as many games played, the one who moved first
fewer times) moves first; on equal balances, the one who moved second in the latest round where
their seats differed (last round, if they did); then the higher-ranked. So no balance ever goes
past two either way: two players meet with equal balances only below two.

Where it differs from FIDE's Dutch system (C.04.3): within a score group it pairs neighbours
in rank, as the Monrad system does, not the top half against the bottom half; a weighted
matching replaces the Dutch transpositions and exchanges, so there is no float history
(a player may float down two rounds running) and colours play no part in who meets whom beyond
the absolute limit of two (no strong or mild preferences, no "three times the same seat in a
row" rule, no exception for the leaders in the last round).

networkx's matching is pure Python and slows down fast with the number of pairs it weighs
(400 players and every pair between them take 9 s). So its graph first holds, for each player,
only the pairs with the `WINDOW` nearest players below them in rank whom they may meet, and
byes only for the `WINDOW` lowest-ranked players who can take one: that is where the weights
look anyway. On 60 random events of 61 to 150 players, 3 to 7 rounds in, it paired every one
as well as the whole graph did (equal costs at every priority). Only if that graph cannot pair
everyone is the window widened (doubled, up to the whole field), so `NoPairing` still means
that no complete pairing exists. The one rule this adds: a player meets someone beyond those
nearest, or the bye goes above those lowest, only when nothing nearer pairs everyone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

import networkx as nx

FIRST, SECOND = 1, 2
# How many of the nearest opponents allowed below each player the first graph holds: with 8,
# 1,000 players take 1.1-1.9 s of CPU a round from round 3 on (benchmarks/swiss_pairing.py).
WINDOW = 8
_BYE = "bye"  # the node a bye is a pairing with; player ids are ints


class SwissError(ValueError):
    """Something about a Swiss event that the caller must know."""


class InvalidEvent(SwissError):
    """The players' histories do not describe one consistent event."""


class NoPairing(SwissError):
    """No complete pairing of the round keeps the absolute rules: the event cannot go on."""


@dataclass(frozen=True)
class Game:
    """One round of a player's history: opponent None is a round without a game, either a
    bye (no seat, a win's 1 point) or an absence (no seat, 0: the player had withdrawn)."""

    opponent: int | None
    seat: int | None  # FIRST (moved first) or SECOND
    score: float  # 1, 0.5 or 0

    def __post_init__(self) -> None:
        if self.opponent is None:
            if self.seat is not None or self.score not in (0, 1):
                raise InvalidEvent(
                    "A round without a game has no seat, and scores 1 (a bye) or 0 (absent)."
                )
        elif self.seat not in (FIRST, SECOND):
            raise InvalidEvent(f"A seat is 1 (moved first) or 2 (moved second), not {self.seat!r}.")
        elif self.score not in (0, 0.5, 1):
            raise InvalidEvent(f"A game scores 1, 0.5 or 0, not {self.score!r}.")

    @property
    def is_bye(self) -> bool:
        return self.opponent is None and self.score == 1

    @property
    def unplayed(self) -> bool:
        """A bye or an absence: no opponent."""
        return self.opponent is None


BYE = Game(None, None, 1)
ABSENT = Game(None, None, 0)


@dataclass(frozen=True)
class Player:
    id: int
    rating: float
    games: tuple[Game, ...] = ()  # one per earlier round, in order

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))

    @property
    def score(self) -> float:
        return sum(game.score for game in self.games)

    @property
    def byes(self) -> int:
        return sum(game.is_bye for game in self.games)

    @property
    def balance(self) -> int:
        """First moves minus second moves."""
        return sum(1 if g.seat == FIRST else -1 for g in self.games if not g.unplayed)

    @property
    def unplayed(self) -> int:
        return sum(game.unplayed for game in self.games)


@dataclass(frozen=True)
class Pairing:
    round: int
    pairs: tuple[tuple[int, int], ...]  # (moves first, moves second), the top board first
    bye: int | None = None


@dataclass(frozen=True)
class Standing:
    rank: int
    id: int
    score: float
    buchholz: float
    sonneborn_berger: float


def pair(players: Iterable[Player], round_number: int, absent: Iterable[int] = ()) -> Pairing:
    """Pair round ``round_number`` (from 1) of the players, whose histories hold every earlier
    round, leaving out those in ``absent`` (withdrawn: their history stays, as their
    opponents' does). Raises `NoPairing` when no complete pairing keeps the absolute rules."""
    players = list(players)
    if round_number < 1:
        raise InvalidEvent(f"Rounds count from 1, not {round_number}.")
    _check(players, round_number - 1)
    absent = set(absent)
    players = [p for p in players if p.id not in absent]
    if len(players) < 2:
        raise NoPairing(f"Round {round_number} needs two players; there are {len(players)}.")
    field = _Field(players)
    window = WINDOW
    while (pairs := field.match(window)) is None:
        if window >= len(players):  # the graph held every pair and every bye
            raise NoPairing(
                f"Round {round_number} cannot be paired: every way of pairing the "
                f"{len(players)} players repeats a game, gives someone a second bye, or leaves "
                "someone three first moves ahead of their second moves (or behind). "
                "The event ends here."
            )
        window *= 2
    bye = next((a if b == _BYE else b for a, b in pairs if _BYE in (a, b)), None)
    boards = [field.seats(a, b) for a, b in pairs if _BYE not in (a, b)]
    boards.sort(key=lambda seats: min(field.rank[seats[0]], field.rank[seats[1]]))
    return Pairing(round_number, tuple(boards), bye)


def standings(players: Iterable[Player]) -> list[Standing]:
    """The players by score, Buchholz, Sonneborn-Berger, rating, then id.

    Buchholz is the sum of the opponents' scores; Sonneborn-Berger the sum of the scores of
    the opponents beaten and half those of the opponents drawn. Unplayed games follow FIDE's
    tie-break rule of 2009-2022: a bye is a win over a virtual opponent who had the player's
    score before that round, lost it, and drew every later round; and in the tie-breaks of a
    player's opponents, that player's bye counts as a draw (half a point, not one).
    """
    players = list(players)
    played = len(players[0].games) if players else 0
    _check(players, played)
    # A score as the opponents count it: each round without a game as a draw.
    seen = {p.id: p.score - 1.0 * p.byes + 0.5 * p.unplayed for p in players}
    rows = []
    for p in players:
        buchholz = sonneborn_berger = before = 0.0
        for number, game in enumerate(p.games, 1):
            if game.unplayed:
                opponent = before + 0.5 * (played - number)
            else:
                opponent = seen[game.opponent]
            buchholz += opponent
            sonneborn_berger += game.score * opponent
            before += game.score
        rows.append((p, buchholz, sonneborn_berger))
    rows.sort(key=lambda row: (-row[0].score, -row[1], -row[2], -row[0].rating, row[0].id))
    return [Standing(rank, p.id, p.score, b, sb) for rank, (p, b, sb) in enumerate(rows, 1)]


def _check(players: Sequence[Player], played: int) -> None:
    """Raise `InvalidEvent` unless the histories describe one event of ``played`` rounds."""
    by_id = {}
    for p in players:
        if p.id in by_id:
            raise InvalidEvent(f"Player {p.id} is listed twice.")
        by_id[p.id] = p
        if len(p.games) != played:
            raise InvalidEvent(
                f"Player {p.id} has {len(p.games)} rounds recorded; every player needs one "
                f"for each of the {played} rounds played (a bye included)."
            )
        if p.byes > 1:
            raise InvalidEvent(f"Player {p.id} has had {p.byes} byes; one is the most.")
    for p in players:
        for number, game in enumerate(p.games, 1):
            if game.unplayed:
                continue
            other = by_id.get(game.opponent)
            if other is None:
                raise InvalidEvent(
                    f"Player {p.id}'s opponent in round {number}, {game.opponent}, is not listed."
                )
            theirs = other.games[number - 1]
            if (
                theirs.opponent != p.id
                or theirs.seat == game.seat
                or theirs.score + game.score != 1
            ):
                raise InvalidEvent(
                    f"Round {number}: players {p.id} and {other.id} do not record the same game."
                )


class _Field:
    """The players as the pairing sees them, and the weights of its matching.

    Costs are integers in levels, each level's unit larger than everything below it can add
    up to, so that the matching minimises them in order: the bye's score (rule 3), the squared
    score differences (4), the bye's rank (5), the squared rank differences (6).
    """

    def __init__(self, players: Sequence[Player]) -> None:
        self.order = [p.id for p in sorted(players, key=lambda p: (-p.score, -p.rating, p.id))]
        self.rank = {pid: i for i, pid in enumerate(self.order)}
        self.halves = {p.id: round(2 * p.score) for p in players}
        self.balance = {p.id: p.balance for p in players}
        self.met = {p.id: {g.opponent for g in p.games} for p in players}
        self.had_bye = {p.id: p.byes > 0 for p in players}
        self.games = {p.id: p.games for p in players}
        n, top_score = len(players), max(self.halves.values())
        self.rank_unit = n**3  # more than any sum of squared rank differences
        self.score_unit = n**4  # more than that plus the bye's rank
        self.bye_unit = (n + 2) * (top_score**2 + 1) * self.score_unit
        self.ceiling = self.bye_unit * (top_score + 1)  # more than any cost

    def allowed(self, a: int, b: int) -> bool:
        """Rule 1: a pair that has not met, and not two players two first moves ahead
        (or two behind): one of them would reach three."""
        ba, bb = self.balance[a], self.balance[b]
        return b not in self.met[a] and not (ba * bb > 0 and abs(ba) >= 2 and abs(bb) >= 2)

    def cost(self, a: int, b: int) -> int:
        score, rank = self.halves[a] - self.halves[b], self.rank[a] - self.rank[b]
        return score * score * self.score_unit + rank * rank

    def bye_cost(self, pid: int) -> int:
        return self.halves[pid] * self.bye_unit + (len(self.order) - 1 - self.rank[pid]) * (
            self.rank_unit
        )

    def match(self, window: int) -> list[tuple] | None:
        """The best complete pairing among pairs at most ``window`` ranks apart and byes to
        the ``window`` lowest-ranked players who can take one, or None if there is none."""
        graph = nx.Graph()
        graph.add_nodes_from(self.order)
        for i, a in enumerate(self.order):
            below = (b for b in self.order[i + 1 :] if self.allowed(a, b))
            for b in islice(below, window):
                graph.add_edge(a, b, weight=self.ceiling - self.cost(a, b))
        if len(self.order) % 2:
            graph.add_nodes_from([_BYE])
            can_take = [p for p in reversed(self.order) if not self.had_bye[p]]
            for p in can_take[:window]:
                graph.add_edge(p, _BYE, weight=self.ceiling - self.bye_cost(p))
        pairs = nx.max_weight_matching(graph, maxcardinality=True)
        return list(pairs) if 2 * len(pairs) == graph.number_of_nodes() else None

    def seats(self, a: int, b: int) -> tuple[int, int]:
        """(first mover, second mover): the lower balance moves first; on a tie, the one who
        moved second in the latest round where their seats differed; then the higher-ranked."""
        if self.balance[a] != self.balance[b]:
            return (a, b) if self.balance[a] < self.balance[b] else (b, a)
        for ga, gb in zip(reversed(self.games[a]), reversed(self.games[b]), strict=True):
            if ga.seat and gb.seat and ga.seat != gb.seat:
                return (a, b) if ga.seat == SECOND else (b, a)
        return (a, b) if self.rank[a] < self.rank[b] else (b, a)
