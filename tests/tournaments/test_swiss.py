"""Swiss pairing and standings (tournaments/swiss.py): no database.

Random events (Hypothesis) check the absolute rules on every round of events of up to 200
players; small events (up to 8 players, whom the first graph holds whole) are checked against
every possible pairing, so that the matching's weights are seen to give the priorities the
module's docstring states; a worked 5-player event checks byes, seats and tie-breaks by hand.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.swiss import (
    ABSENT,
    BYE,
    FIRST,
    SECOND,
    Game,
    InvalidEvent,
    NoPairing,
    Pairing,
    Player,
    Standing,
    pair,
    standings,
)

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RESULTS = st.sampled_from([1, 0.5, 0])  # the first mover's score


def played(players: list[Player], pairing: Pairing, scores) -> list[Player]:
    """The players after the round: ``scores[i]`` is the first mover's score on board i."""
    games = {pairing.bye: BYE} if pairing.bye is not None else {}
    for (first, second), score in zip(pairing.pairs, scores, strict=True):
        games[first] = Game(second, FIRST, score)
        games[second] = Game(first, SECOND, 1 - score)
    return [Player(p.id, p.rating, (*p.games, games[p.id])) for p in players]


def check_absolute_rules(players: list[Player], pairing: Pairing) -> None:
    seated = [p for pair_ in pairing.pairs for p in pair_]
    everyone = sorted(seated + ([pairing.bye] if pairing.bye is not None else []))
    assert everyone == sorted(p.id for p in players)  # each once: paired, or the bye
    assert (pairing.bye is not None) == (len(players) % 2 == 1)
    by_id = {p.id: p for p in players}
    if pairing.bye is not None:
        assert by_id[pairing.bye].byes == 0
    for first, second in pairing.pairs:
        assert second not in {g.opponent for g in by_id[first].games}


def check_event(players: list[Player]) -> None:
    """Over the whole event: no pair twice, one bye at most, first moves within two."""
    meetings = set()
    for p in players:
        assert p.byes <= 1
        assert abs(p.balance) <= 2
        for number, game in enumerate(p.games):
            if not game.is_bye:
                meetings.add((number, frozenset((p.id, game.opponent))))
    pairs = [pair_ for _, pair_ in meetings]
    assert len(pairs) == len(set(pairs))


@SETTINGS
@given(st.data())
def test_random_events_keep_the_absolute_rules(data):
    n = data.draw(st.integers(2, 200), label="players")
    rounds = data.draw(st.integers(1, 6), label="rounds")
    ratings = data.draw(st.lists(st.integers(1000, 2200), min_size=n, max_size=n))
    players = [Player(i, rating) for i, rating in enumerate(ratings, 1)]
    for number in range(1, rounds + 1):
        try:
            pairing = pair(players, number)
        except NoPairing:
            # Up to 6 rounds, 20 players always leave a complete pairing (each has met at most
            # 5, and the first-move limit forbids only pairs of two players both +2 or both -2).
            assert n < 20
            break
        assert pairing.round == number
        check_absolute_rules(players, pairing)
        boards = len(pairing.pairs)
        players = played(
            players, pairing, data.draw(st.lists(RESULTS, min_size=boards, max_size=boards))
        )
        check_event(players)


@SETTINGS
@given(st.data())
def test_in_round_two_winners_play_winners(data):
    """No draws in round 1 and an even number of winners: round 2 pairs only equal scores."""
    n = 4 * data.draw(st.integers(1, 50), label="players / 4")
    ratings = data.draw(st.lists(st.integers(1000, 2200), min_size=n, max_size=n))
    players = [Player(i, rating) for i, rating in enumerate(ratings, 1)]
    first = pair(players, 1)
    scores = data.draw(st.lists(st.sampled_from([1, 0]), min_size=n // 2, max_size=n // 2))
    players = played(players, first, scores)
    score = {p.id: p.score for p in players}
    second = pair(players, 2)
    assert second.bye is None
    assert all(score[a] == score[b] for a, b in second.pairs)


def test_round_one_pairs_neighbours_in_rating_the_higher_moving_first():
    players = [Player(i, 2000 - 10 * i) for i in range(1, 8)]
    assert pair(players, 1) == Pairing(1, ((1, 2), (3, 4), (5, 6)), bye=7)


# ---- every pairing of a small event, against the priorities the docstring states -------------


def brute_force_best(players: list[Player]):
    """The best key (see `key`) of every complete pairing that keeps the absolute rules, or
    None if there is none: each matching is listed, none is searched for."""
    by_id = {p.id: p for p in players}
    nodes = [p.id for p in players] + (["bye"] if len(players) % 2 else [])

    def allowed(a, b):
        if b == "bye":
            return by_id[a].byes == 0
        pa, pb = by_id[a], by_id[b]
        both_two = pa.balance * pb.balance > 0 and min(abs(pa.balance), abs(pb.balance)) >= 2
        return b not in {g.opponent for g in pa.games} and not both_two

    def matchings(rest):
        if not rest:
            yield []
            return
        a, others = rest[0], rest[1:]
        for b in others:
            if allowed(a, b):
                for m in matchings([x for x in others if x != b]):
                    yield [(a, b), *m]

    keys = [key(players, m) for m in matchings(nodes)]
    return min(keys, default=None)


def key(players: list[Player], pairs) -> tuple:
    """Lower is better, in the docstring's order: the bye's score, the squared score
    differences, the bye's rank from the bottom, the squared rank differences."""
    order = sorted(players, key=lambda p: (-p.score, -p.rating, p.id))
    rank = {p.id: i for i, p in enumerate(order)}
    halves = {p.id: round(2 * p.score) for p in players}
    bye = [a for a, b in pairs if b == "bye"]
    games = [(a, b) for a, b in pairs if b != "bye"]
    return (
        halves[bye[0]] if bye else 0,
        sum((halves[a] - halves[b]) ** 2 for a, b in games),
        len(players) - 1 - rank[bye[0]] if bye else 0,
        sum((rank[a] - rank[b]) ** 2 for a, b in games),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_small_events_get_the_best_pairing_there_is(data):
    n = data.draw(st.integers(2, 8), label="players")
    ratings = data.draw(st.lists(st.integers(1000, 1100), min_size=n, max_size=n))
    players = [Player(i, rating) for i, rating in enumerate(ratings, 1)]
    for number in range(1, 8):
        best = brute_force_best(players)
        try:
            pairing = pair(players, number)
        except NoPairing:
            assert best is None  # no complete pairing exists
            return
        check_absolute_rules(players, pairing)
        pairs = list(pairing.pairs) + ([(pairing.bye, "bye")] if pairing.bye is not None else [])
        assert key(players, pairs) == best
        boards = len(pairing.pairs)
        players = played(
            players, pairing, data.draw(st.lists(RESULTS, min_size=boards, max_size=boards))
        )
        check_event(players)


# ---- a worked example ------------------------------------------------------------------------


def test_a_five_player_event_of_three_rounds():
    """Five players rated 1900 down to 1500 (ids 1-5), three rounds, results fixed.

    Round 1: all on 0, ranked by rating. The bye goes to the lowest-ranked, 5; then neighbours:
      1-2 and 3-4, the higher-ranked moving first. Results: 1 beats 2; 3 and 4 draw.
    Round 2: 1 (1), 5 (1, the bye), 3 (0.5), 4 (0.5), 2 (0). The bye goes to the lowest score
      group, 2. 3 and 4 have met, so two pairs cross half a point: 1-3 and 5-4 (rank gaps 2 and
      2, squares 8) beat 1-4 and 5-3 (3 and 1, squares 10). 1 and 3 both moved first once and
      did so in the same round: the higher-ranked, 1, moves first. 4 moved second once, 5 never
      played: 4 moves first. Results: 3 beats 1; 4 and 5 draw.
    Round 3: 3 (1.5), 5 (1.5), 1 (1), 2 (1), 4 (1). Only 1, 3 and 4 may still have a bye; the
      lowest of them score 1: 1 and 4. A bye to 4 would leave 1-2 (met) or two floats (3-2,
      5-1); a bye to 1 leaves 3-5 and 2-4, no float: score differences come before the bye's
      rank, so 1 has it. 5 (-1 in first moves) moves first against 3 (0); 2 (-1) against 4 (0).
      Results: 5 and 3 draw; 2 beats 4.

    Final scores: 1, 2, 3 and 5 on 2; 4 on 1. Tie-breaks (FIDE's virtual opponent: a bye in round
    R is a win over an opponent with the player's score before R plus half a point for each
    later round; in the opponents' tie-breaks, the bye counts half a point). Opponents' scores
    so counted: 1 -> 1.5, 2 -> 1.5, 3 -> 2, 4 -> 1, 5 -> 1.5.
      1: beat 2 (1.5), lost to 3 (2), bye in round 3 (virtual 1 + 0 = 1):
         Buchholz 1.5 + 2 + 1 = 4.5; Sonneborn-Berger 1.5 + 1 = 2.5.
      3: drew 4 (1), beat 1 (1.5), drew 5 (1.5): Buchholz 4; SB 0.5 + 1.5 + 0.75 = 2.75.
      5: bye in round 1 (virtual 0 + 2 x 0.5 = 1), drew 4 (1), drew 3 (2):
         Buchholz 1 + 1 + 2 = 4; SB 1 + 0.5 + 1 = 2.5.
      2: lost to 1 (1.5), bye in round 2 (virtual 0 + 0.5 = 0.5), beat 4 (1):
         Buchholz 1.5 + 0.5 + 1 = 3; SB 0.5 + 1 = 1.5.
      4: drew 3 (2), drew 5 (1.5), lost to 2 (1.5): Buchholz 5; SB 1 + 0.75 = 1.75.
    Order: 1 (Buchholz 4.5), then 3 and 5 (Buchholz 4; SB 2.75 against 2.5), 2, then 4.
    """
    players = [Player(i, 2000 - 100 * i) for i in range(1, 6)]

    first = pair(players, 1)
    assert first == Pairing(1, ((1, 2), (3, 4)), bye=5)
    players = played(players, first, [1, 0.5])

    second = pair(players, 2)
    assert second == Pairing(2, ((1, 3), (4, 5)), bye=2)
    players = played(players, second, [0, 0.5])

    third = pair(players, 3)
    assert third == Pairing(3, ((5, 3), (2, 4)), bye=1)
    players = played(players, third, [0.5, 1])

    assert {first.bye, second.bye, third.bye} == {5, 2, 1}
    check_event(players)
    assert standings(players) == [
        Standing(1, 1, 2, 4.5, 2.5),
        Standing(2, 3, 2, 4, 2.75),
        Standing(3, 5, 2, 4, 2.5),
        Standing(4, 2, 2, 3, 1.5),
        Standing(5, 4, 1, 5, 1.75),
    ]
    # A fourth round: only 3 (2 points) and 4 (1) may still have a bye; 4 takes it, and 1-5 and
    # 2-3 are the only pairs left of the others. 1 is two first moves ahead: 5 moves first; 3
    # (-1) moves first against 2 (0).
    assert pair(players, 4) == Pairing(4, ((5, 1), (3, 2)), bye=4)


# ---- seats, and histories that do not add up --------------------------------------------------


def test_the_player_with_fewer_first_moves_moves_first():
    # 1 moved first twice against 3 and 4 (+2); 2 moved second twice against 4 and 3 (-2).
    a = Player(1, 1500, (Game(3, FIRST, 1), Game(4, FIRST, 1)))
    b = Player(2, 1400, (Game(4, SECOND, 1), Game(3, SECOND, 1)))
    c = Player(3, 1300, (Game(1, SECOND, 0), Game(2, FIRST, 0)))
    d = Player(4, 1200, (Game(2, FIRST, 0), Game(1, SECOND, 0)))
    pairing = pair([a, b, c, d], 3)
    assert pairing.pairs == ((2, 1), (4, 3))  # 4 (0) and 3 (0): 4 moved second in round 2


def test_two_players_both_two_first_moves_ahead_never_meet():
    a = Player(1, 1500, (Game(3, FIRST, 1), Game(4, FIRST, 1)))
    b = Player(2, 1400, (Game(4, FIRST, 1), Game(3, FIRST, 1)))
    c = Player(3, 1300, (Game(1, SECOND, 0), Game(2, SECOND, 0)))
    d = Player(4, 1200, (Game(2, SECOND, 0), Game(1, SECOND, 0)))
    # 1-2 and 3-4 is the only pairing without a repeat, and it would put one of 1 and 2 three
    # first moves ahead, and one of 3 and 4 three behind.
    with pytest.raises(NoPairing):
        pair([a, b, c, d], 3)


def test_a_round_without_a_game_has_no_seat_and_scores_a_win_or_nothing():
    words = "A round without a game has no seat, and scores 1 .a bye. or 0 .absent."
    with pytest.raises(InvalidEvent, match=words):
        Game(None, FIRST, 1)
    with pytest.raises(InvalidEvent, match=words):
        Game(None, None, 0.5)
    assert BYE.is_bye and not ABSENT.is_bye and ABSENT.unplayed


def test_an_absent_player_keeps_their_history_and_is_not_paired():
    # Round 1: 1 beat 2, 3 beat 4. Player 4 withdrew: round 2 pairs 1, 2, 3 (one bye).
    a = Player(1, 1500, (Game(2, FIRST, 1),))
    b = Player(2, 1400, (Game(1, SECOND, 0),))
    c = Player(3, 1300, (Game(4, FIRST, 1),))
    d = Player(4, 1200, (Game(3, SECOND, 0),))
    pairing = pair([a, b, c, d], 2, absent=[4])
    seated = {p for board in pairing.pairs for p in board} | {pairing.bye}
    assert seated == {1, 2, 3} and pairing.bye is not None
    # The absence is a round without a game scoring nothing; the standings take it.
    d2 = Player(4, 1200, (Game(3, SECOND, 0), ABSENT))
    others = {
        1: Player(1, 1500, (Game(2, FIRST, 1), Game(3, FIRST, 1))),
        2: Player(2, 1400, (Game(1, SECOND, 0), BYE)),
        3: Player(3, 1300, (Game(4, FIRST, 1), Game(1, SECOND, 0))),
    }
    table = standings([*others.values(), d2])
    assert [row.id for row in table][-1] == 4 and table[-1].score == 0
    with pytest.raises(
        InvalidEvent, match=r"A seat is 1 \(moved first\) or 2 \(moved second\), not 3\."
    ):
        Game(2, 3, 1)
    with pytest.raises(InvalidEvent, match=r"A game scores 1, 0\.5 or 0, not 2\."):
        Game(2, FIRST, 2)


def invalid(players, round_number=2) -> str:
    with pytest.raises(InvalidEvent) as error:
        pair(players, round_number)
    return str(error.value)


def test_histories_that_do_not_add_up_are_refused_in_words():
    one, two = Player(1, 1500, (Game(2, FIRST, 1),)), Player(2, 1400, (Game(1, SECOND, 0),))
    assert invalid([one, two, Player(3, 1300)]) == (
        "Player 3 has 0 rounds recorded; every player needs one for each of the 1 rounds "
        "played (a bye included)."
    )
    assert invalid([one, Player(2, 1400, (Game(1, SECOND, 1),))]) == (
        "Round 1: players 1 and 2 do not record the same game."
    )
    assert invalid([one, Player(2, 1400, (Game(1, FIRST, 0),))]) == (
        "Round 1: players 1 and 2 do not record the same game."
    )
    assert invalid([one]) == "Player 1's opponent in round 1, 2, is not listed."
    assert invalid([one, two, one]) == "Player 1 is listed twice."
    assert invalid([Player(1, 1), Player(2, 1)], 0) == "Rounds count from 1, not 0."
    twice = [Player(1, 1500, (BYE, BYE)), Player(2, 1400, (BYE, BYE))]
    assert invalid(twice, 3) == "Player 1 has had 2 byes; one is the most."
    with pytest.raises(NoPairing, match=r"Round 1 needs two players; there are 1\."):
        pair([Player(1, 1500)], 1)
