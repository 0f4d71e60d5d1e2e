"""A rated result changes both players' ratings once, in the transaction that ends the
match; nothing else changes a rating (ratings/results.py)."""

from __future__ import annotations

import threading
from datetime import timedelta
from itertools import pairwise

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import override_settings
from django.utils import timezone

from games import play, presence, signals
from games.models import Match
from ratings.glicko import Glicko, game
from ratings.models import Rating, RatingChange
from ratings.results import on_match_finished
from tests.factories import actor, make_match
from tests.ratings.helpers import account, rated_match, resign

pytestmark = pytest.mark.django_db

NEW = Glicko()


def glicko_of(user, slug="bit-flip") -> Glicko:
    row = Rating.objects.get(user=user, game=slug)
    return Glicko(row.rating, row.deviation, row.volatility)


def assert_rated(user, expected: Glicko, slug="bit-flip"):
    found = glicko_of(user, slug)
    assert found.rating == pytest.approx(expected.rating, abs=1e-9)
    assert found.deviation == pytest.approx(expected.deviation, abs=1e-9)
    assert found.volatility == pytest.approx(expected.volatility, abs=1e-12)


def test_a_rated_win_changes_both_ratings_once():
    ada, bob = account("ada"), account("bob")
    match, _, token2 = rated_match(ada, bob)
    assert (match.seat1_user, match.seat2_user, match.rated) == (ada, bob, True)
    assert not Rating.objects.exists()
    resign(match, token2)  # Bob resigns: Ada wins
    winner, loser = game(NEW, NEW, 1)
    assert_rated(ada, winner)
    assert_rated(bob, loser)
    assert round(winner.rating) == 1662 and round(loser.rating) == 1338
    ada_row, bob_row = Rating.objects.get(user=ada), Rating.objects.get(user=bob)
    assert (ada_row.games, ada_row.wins, ada_row.losses, ada_row.draws) == (1, 1, 0, 0)
    assert (bob_row.games, bob_row.wins, bob_row.losses, bob_row.draws) == (1, 0, 1, 0)
    change = RatingChange.objects.get(match=match, user=ada)
    assert (change.rating_before, change.deviation_before, change.volatility_before) == (
        1500,
        350,
        0.06,
    )
    assert change.rating_after == pytest.approx(winner.rating)
    assert (change.score, change.game, change.shown_after, change.delta_text) == (
        1.0,
        "bit-flip",
        "1662?",
        "+162",
    )
    assert RatingChange.objects.get(match=match, user=bob).delta_text == "\u2212162"


def test_an_ending_told_twice_counts_once():
    ada, bob = account("ada"), account("bob")
    match, token1, _ = rated_match(ada, bob)
    ended = resign(match, token1)  # Ada resigns
    after = (glicko_of(ada), glicko_of(bob))
    on_match_finished(sender=Match, match=ended)  # the receiver called again
    with transaction.atomic():
        signals.match_finished.send(sender=Match, match=Match.objects.get(pk=match.pk))
    assert (glicko_of(ada), glicko_of(bob)) == after
    assert RatingChange.objects.filter(match=match).count() == 2
    assert Rating.objects.get(user=ada).games == 1
    with pytest.raises(IntegrityError), transaction.atomic():  # and the database says so too
        RatingChange.objects.create(
            match=match,
            user=ada,
            game="bit-flip",
            score=0,
            rating_before=1,
            rating_after=1,
            deviation_before=1,
            deviation_after=1,
            volatility_before=1,
            volatility_after=1,
        )


def test_the_second_game_starts_from_the_first_ones_ratings():
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    first, _, bob_token = rated_match(ada, bob)
    resign(first, bob_token)
    second, ada_token, _ = rated_match(ada, cy)
    resign(second, ada_token)  # Ada loses to Cy
    ada1, bob1 = game(NEW, NEW, 1)
    ada2, cy1 = game(ada1, NEW, 0)
    assert_rated(ada, ada2)
    assert_rated(bob, bob1)
    assert_rated(cy, cy1)
    assert Rating.objects.get(user=ada).games == 2
    history = RatingChange.objects.filter(user=ada).order_by("created_at", "pk")
    assert [c.match_id for c in history] == [first.pk, second.pk]
    assert history[1].rating_before == pytest.approx(ada1.rating)


def test_ratings_are_per_game():
    ada, bob = account("ada"), account("bob")
    match, _, bob_token = rated_match(ada, bob, "last-digit-standing")
    resign(match, bob_token)
    assert list(Rating.objects.filter(user=ada).values_list("game", flat=True)) == [
        "last-digit-standing"
    ]
    assert_rated(ada, game(NEW, NEW, 1)[0], "last-digit-standing")


# ---- every way of ending ---------------------------------------------------------------


def won_by_the_rules(match, token1, token2):
    tokens = {1: token1, 2: token2}
    for text in ["3", "5 6", "7", "1 2", "4", "8"]:  # Bit Flip: Player 2 fills the byte
        fresh = Match.objects.get(pk=match.pk)
        seat = fresh.seat_of_player(fresh.current.to_move)
        play.submit_move(match.public_id, by=actor(fresh, tokens[seat]), text=text, ply=fresh.ply)
    return 2  # seat 2 (Bob) won


def resigned(match, token1, token2):
    resign(match, token1)
    return 2


def drawn_by_agreement(match, token1, token2):
    play.offer_draw(match.public_id, by=actor(match, token2))
    play.answer_draw(match.public_id, by=actor(match, token1), accept=True)
    return None


def lost_on_time(match, token1, token2):
    play.submit_move(match.public_id, by=actor(match, token1), text="3", ply=0)
    play.submit_move(match.public_id, by=actor(match, token2), text="5 6", ply=1)
    Match.objects.filter(pk=match.pk).update(
        seat1_ms=1_000, turn_started_at=timezone.now() - timedelta(seconds=5)
    )
    play.settle_time(Match.objects.get(pk=match.pk))  # Ada's flag fell
    return 2


def claimed(win: bool):
    def claim(match, token1, token2):
        seat2 = presence.seat_set(match.public_id, 2)
        presence.store().stamp(presence.seen_stamp(seat2), timezone.now().timestamp() - 61)
        with override_settings(ABANDON_AFTER=60):
            play.claim(match.public_id, by=actor(match, token1), win=win)
        return 1 if win else None

    return claim


ENDINGS = {
    "rules": (won_by_the_rules, {}),
    "resigned": (resigned, {}),
    "agreement": (drawn_by_agreement, {}),
    "time": (lost_on_time, {"time_control": {"clock": "realtime", "base": 180, "increment": 2}}),
    "claimed win": (claimed(True), {}),
    "claimed draw": (claimed(False), {}),
}


@pytest.mark.parametrize("how", ENDINGS)
def test_every_real_result_is_rated(how):
    end, options = ENDINGS[how]
    ada, bob = account("ada"), account("bob")
    match, token1, token2 = rated_match(ada, bob, **options)
    winner_seat = end(match, token1, token2)
    ended = Match.objects.get(pk=match.pk)
    assert ended.status == Match.Status.FINISHED
    score = {1: 1, 2: 0, None: 0.5}[winner_seat]
    ada_after, bob_after = game(NEW, NEW, score)
    assert_rated(ada, ada_after)
    assert_rated(bob, bob_after)
    row = Rating.objects.get(user=ada)
    assert (row.wins, row.losses, row.draws) == {
        1: (1, 0, 0),
        0: (0, 1, 0),
        0.5: (0, 0, 1),
    }[score]


def test_an_aborted_rated_match_changes_nothing():
    ada, bob = account("ada"), account("bob")
    clock = {"clock": "realtime", "base": 60, "increment": 0}
    match, _, token2 = rated_match(ada, bob, time_control=clock)
    Match.objects.filter(pk=match.pk).update(turn_started_at=timezone.now() - timedelta(seconds=31))
    ended = play.abort(match.public_id, by=actor(match, token2))
    assert ended.ending == Match.Ending.ABORTED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_rated_match_resigned_before_both_moved_changes_nothing():
    ada, bob = account("ada"), account("bob")
    match, _, token2 = rated_match(ada, bob)
    ended = play.resign(match.public_id, by=actor(match, token2))
    assert (ended.ending, ended.has_result) == (Match.Ending.ABORTED, False)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_cancelled_rated_match_changes_nothing():
    ada = account("ada")
    token = "ada-browser"
    match = play.create_match("bit-flip", token=token, user=ada, rated=True)
    ended = play.resign(match.public_id, by=actor(match, token))
    assert ended.ending == Match.Ending.CANCELLED
    assert not Rating.objects.exists()


def test_unrated_matches_between_accounts_change_nothing():
    ada, bob = account("ada"), account("bob")
    match, _, token2 = rated_match(ada, bob, rated=False)
    resign(match, token2)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.parametrize("mode", ["hotseat", "computer"])
def test_games_on_one_device_and_against_the_computer_are_never_rated(mode):
    ada = account("ada")
    with pytest.raises(ValueError, match="Only a match between two signed-in people"):
        play.create_match("bit-flip", token="t", mode=mode, level="perfect", user=ada, rated=True)
    match = play.create_match("bit-flip", token="t", mode=mode, level="perfect", user=ada)
    ended = play.resign(match.public_id, by=actor(match, "t"))
    assert ended.status == Match.Status.FINISHED and ended.winner is not None
    assert not Rating.objects.exists()


def test_a_rated_match_without_two_accounts_changes_nothing():
    ada, bob = account("ada"), account("bob")
    match, token1, _ = rated_match(ada, bob)
    Match.objects.filter(pk=match.pk).update(seat2_user=None)  # Bob's account was deleted
    resign(Match.objects.get(pk=match.pk), token1)
    assert not Rating.objects.exists()


def test_anonymous_matches_change_nothing():
    match, token1, _ = make_match()
    resign(match, token1)
    assert not Rating.objects.exists()


def test_a_failure_to_rate_rolls_the_ending_back(monkeypatch):
    ada, bob = account("ada"), account("bob")
    match, token1, _ = rated_match(ada, bob)

    def broken(*args):
        raise RuntimeError("the rating could not be computed")

    monkeypatch.setattr("ratings.results.glicko.game", broken)
    with pytest.raises(RuntimeError):
        resign(match, token1)
    assert Match.objects.get(pk=match.pk).status == Match.Status.PLAYING
    assert not RatingChange.objects.exists()


# ---- endings at the same time ------------------------------------------------------------


def in_order(results, before=None) -> dict[str, Glicko]:
    """The ratings after ``results`` (winner, loser) one after the other, from ``before``
    (or new)."""
    ratings = dict(before or {})
    for winner, loser in results:
        ratings[winner], ratings[loser] = game(ratings.get(winner, NEW), ratings.get(loser, NEW), 1)
    return ratings


def ratings_now(*users) -> dict[str, Glicko]:
    return {user.username: glicko_of(user) for user in users}


def close(found: dict, expected: dict) -> bool:
    return all(
        abs(found[name].rating - value.rating) < 1e-9
        and abs(found[name].deviation - value.deviation) < 1e-9
        and abs(found[name].volatility - value.volatility) < 1e-12
        for name, value in expected.items()
    )


def at_once(*calls) -> list:
    """Run each call in a thread of its own, released together; each closes its
    connection. Returns what each raised (None if nothing)."""
    start = threading.Barrier(len(calls))
    raised = [None] * len(calls)

    def run(i, call):
        try:
            start.wait()
            call()
        except Exception as error:  # reported below
            raised[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return raised


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(3))
def test_two_endings_at_once_give_what_one_after_the_other_gives(round_):
    """Ada wins against Bob and loses against Cy at the same moment (on SQLite the single
    writer takes them in turn; on PostgreSQL the rating rows' locks do)."""
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    if round_:  # established rows: the second ending must read what the first wrote
        warm_up, _, token = rated_match(ada, cy)
        resign(warm_up, token)
    before = ratings_now(ada, cy) if round_ else {}
    first, _, bob_token = rated_match(ada, bob)
    second, ada_token, _ = rated_match(ada, cy)
    raised = at_once(lambda: resign(first, bob_token), lambda: resign(second, ada_token))
    assert raised == [None, None]
    found = ratings_now(ada, bob, cy)
    one_way = in_order([("ada", "bob"), ("cy", "ada")], before)
    other_way = in_order([("cy", "ada"), ("ada", "bob")], before)
    assert close(found, one_way) or close(found, other_way), found
    assert RatingChange.objects.filter(user=ada).count() == (3 if round_ else 2)
    assert Rating.objects.get(user=ada).games == (3 if round_ else 2)
    # The history adds up: each change starts where the one before it ended.
    history = list(RatingChange.objects.filter(user=ada).order_by("created_at", "pk"))
    for earlier, later in pairwise(history):
        assert later.rating_before == earlier.rating_after


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rows", ["new", "established"])
def test_on_postgresql_a_second_ending_waits_for_the_rows_and_reads_the_first(rows):
    """The first ending holds its transaction open; the second (another thread, another
    connection) must wait on Ada's rating row, then rate from what the first wrote. Without
    the lock it would read Ada's rating from before the first game and overwrite it."""
    assert connection.vendor == "postgresql"
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    before = {}
    if rows == "established":
        warm_up, _, token = rated_match(ada, cy)
        resign(warm_up, token)
        before = ratings_now(ada, cy)
    first, _, bob_token = rated_match(ada, bob)
    second, ada_token, _ = rated_match(ada, cy)
    raised = []

    def second_ending():
        try:
            resign(second, ada_token)
        except Exception as error:
            raised.append(error)
        finally:
            connection.close()

    waiter = threading.Thread(target=second_ending)
    with transaction.atomic():
        resign(first, bob_token)  # written, not committed
        waiter.start()
        assert waits_on_a_lock(), "the second ending did not wait for the first"
    waiter.join(timeout=30)
    assert not waiter.is_alive() and raised == []
    expected = in_order([("ada", "bob"), ("cy", "ada")], before)
    assert close(ratings_now(ada, bob, cy), expected)


def waits_on_a_lock(timeout: float = 10.0) -> bool:
    """Whether another connection to this database comes to wait on a lock."""
    import time

    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


def test_a_rated_correspondence_flag_before_both_moved_is_aborted_and_changes_nothing():
    ada, bob = account("ada"), account("bob")
    match, token1, _ = rated_match(ada, bob, time_control={"clock": "correspondence", "days": 1})
    play.submit_move(match.public_id, by=actor(match, token1), text="3", ply=0)
    Match.objects.filter(pk=match.pk).update(turn_started_at=timezone.now() - timedelta(days=2))
    ended = play.settle_time(Match.objects.get(pk=match.pk))  # Bob never made a first move
    assert (ended.ending, ended.winner) == (Match.Ending.ABORTED, None)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
