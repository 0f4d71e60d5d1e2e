"""Arena scoring and the pairing of waiting players (tournaments/arena.py): no database."""

from __future__ import annotations

import random

import pytest

from tournaments.arena import (
    GROUP,
    ArenaPairing,
    ArenaScore,
    UnknownResult,
    pair_waiting,
    score,
)


def test_a_win_scores_two_a_draw_one_a_loss_nothing():
    assert score([]) == ArenaScore(0, False, ())
    assert score(["win", "draw", "loss", "draw"]) == ArenaScore(4, False, (2, 1, 0, 1))


def test_two_wins_in_a_row_make_the_next_wins_count_double():
    assert score(["win", "win"]) == ArenaScore(4, True, (2, 2))
    assert score(["win", "win", "win", "win"]) == ArenaScore(12, True, (2, 2, 4, 4))


def test_a_draw_on_a_streak_counts_double_and_ends_it():
    # lichess's own example: two wins and a draw make 2 + 2 + (2 x 1) = 6.
    assert score(["win", "win", "draw"]) == ArenaScore(6, False, (2, 2, 2))
    assert score(["win", "win", "win", "draw", "win"]) == ArenaScore(12, False, (2, 2, 4, 2, 2))


def test_a_loss_ends_a_streak_and_a_new_one_needs_two_wins_again():
    results = ["win", "win", "win", "loss", "win", "win", "win"]
    assert score(results) == ArenaScore(16, True, (2, 2, 4, 0, 2, 2, 4))


def test_an_unknown_result_is_refused_in_words():
    with pytest.raises(
        UnknownResult, match="""Game 2's result is "win", "draw" or "loss", not 'W'"""
    ):
        score(["win", "W"])


def ranked(ids):
    """Ranks 1, 2, ... in the order given, and scores falling with them."""
    return {p: r for r, p in enumerate(ids, 1)}, {p: 100 - 3 * r for r, p in enumerate(ids)}


def test_waiting_players_meet_the_nearest_in_rank():
    ranks, scores = ranked([1, 2, 3, 4, 5, 6])
    assert pair_waiting([6, 5, 4, 3, 2, 1], {}, scores, ranks) == ArenaPairing(
        ((1, 2), (3, 4), (5, 6)), ()
    )


def test_never_the_last_opponent_again():
    ranks, scores = ranked([1, 2, 3, 4])
    # 1 and 2 have just played each other: 1-3 and 2-4 (rank gaps 2 and 2) beat 1-4 and 2-3.
    pairing = pair_waiting([1, 2, 3, 4], {1: 2, 2: 1}, scores, ranks)
    assert pairing == ArenaPairing(((1, 3), (2, 4)), ())
    # Told by one side only (2's last game was against someone else since), it still holds.
    assert pair_waiting([1, 2, 3, 4], {1: 2}, scores, ranks) == pairing


def test_an_odd_player_out_waits():
    ranks, scores = {1: 1, 2: 2, 3: 3}, {1: 20, 2: 10, 3: 8}
    # Ranks 1-2 and 2-3 are as near: 2 and 3 are nearer in score, so 1 waits.
    assert pair_waiting([1, 2, 3], {}, scores, ranks) == ArenaPairing(((2, 3),), (1,))
    # 2 and 3 have just played: 1 meets one of them, the other waits.
    pairing = pair_waiting([1, 2, 3], {2: 3, 3: 2}, scores, ranks)
    assert pairing == ArenaPairing(((1, 2),), (3,))
    # Two players who have just played each other both wait.
    assert pair_waiting([2, 3], {2: 3, 3: 2}, scores, ranks) == ArenaPairing((), (2, 3))
    assert pair_waiting([], {}, {}, {}) == ArenaPairing((), ())


def test_a_crowd_is_paired_in_groups_and_all_of_it_is_paired():
    rng = random.Random(7)
    ids = rng.sample(range(10_000), 2 * GROUP + 51)
    ranks, scores = ranked(ids)
    last = {}
    for a, b in zip(ids[::2], ids[1::2], strict=False):  # each just played a neighbour
        last[a], last[b] = b, a
    pairing = pair_waiting(ids, last, scores, ranks)
    seated = [p for pair in pairing.pairs for p in pair]
    assert sorted(seated + list(pairing.waiting)) == sorted(ids)
    assert len(pairing.waiting) == 1
    assert not [(a, b) for a, b in pairing.pairs if last.get(a) == b or last.get(b) == a]
    assert all(ranks[a] < ranks[b] for a, b in pairing.pairs)
