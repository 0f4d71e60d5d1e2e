"""What goes wrong around a tournament, played out: players who join twice, come late,
withdraw mid-game, leave or never move; clocks that run out with nobody looking; several
processes (threads here) pairing and scoring one event at once; two schedulers; and a
server killed mid-round. SQLite and PostgreSQL alike (CI runs the suite on both), but for
the tests marked ``services``."""

from __future__ import annotations

import contextlib
import html
import itertools
import re
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from games import play
from games.models import Match
from tests.factories import at_once, until_sync
from tests.tournaments.helpers import accounts, event, finish, here, refreshed
from tournaments import director, scheduler
from tournaments.models import Entry, Lease, Pairing, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def entries(t):
    return {e.user.username: e for e in Entry.objects.filter(tournament=t).select_related("user")}


def pairing_of(t, user, **filters) -> Pairing:
    return Pairing.objects.get(Q(first__user=user) | Q(second__user=user), tournament=t, **filters)


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def move_back(match: Match, seconds: float) -> None:
    """The match's running turn began ``seconds`` earlier than it did."""
    Match.objects.filter(pk=match.pk).update(
        turn_started_at=Match.objects.get(pk=match.pk).turn_started_at - timedelta(seconds=seconds)
    )


def first_moves(match: Match) -> Match:
    """Both players make their first move: the real-time clocks run from now on."""
    while match.ply < 2:
        seat = match.seat_of_player(match.current.to_move)
        move = match.rules.legal_moves(match.current)[0]
        match = play.submit_move(
            match.public_id, by=play.Actor(frozenset({seat})), text=move, ply=match.ply
        )
    return match


# ---- joining and leaving ---------------------------------------------------------------------


def test_two_joins_of_one_account_at_once_make_one_entry():
    ada, bob = accounts("ada", "bob")
    for t in (event("arena", starts_in=600), event("swiss", starts_in=600)):
        version = refreshed(t).version
        results = at_once(4, lambda i, t=t: director.join(t.public_id, ada))
        joined = [r for r in results if isinstance(r, Entry)]
        refused = [r for r in results if isinstance(r, director.Refused)]
        assert len(joined) == 1 and len(refused) == 3, results
        assert all("already joined" in r.message for r in refused)
        assert Entry.objects.filter(tournament=t, user=ada).count() == 1
        assert refreshed(t).version == version + 1  # one change, not four
        director.join(t.public_id, bob)  # and the event goes on
        assert Entry.objects.filter(tournament=t).count() == 2


def test_joining_a_swiss_event_after_its_start_is_refused_and_changes_nothing():
    ada, bob, cy = accounts("ada", "bob", "cy")
    t = event("swiss", starts_in=-1)
    director.join(t.public_id, ada)
    director.join(t.public_id, bob)
    director.advance(t.public_id)
    before = refreshed(t)
    assert before.status == Tournament.Status.RUNNING and before.round == 1
    with pytest.raises(director.Refused, match="has started"):
        director.join(t.public_id, cy)
    after = refreshed(t)
    assert after.version == before.version
    assert not Entry.objects.filter(tournament=t, user=cy).exists()
    assert Pairing.objects.filter(tournament=t).count() == 1


def test_withdrawing_from_a_swiss_event_mid_game_lets_the_game_count_and_pairs_no_more():
    players = accounts("ada", "bob", "cy", "di")
    ada = players[0]
    t = event("swiss", starts_in=-1, rounds=3)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    game = pairing_of(t, ada, round=1)
    director.withdraw(t.public_id, ada)
    assert fresh(game.match).status == Match.Status.PLAYING  # the game goes on
    assert not director.advance(t.public_id)  # a round in play: nothing is due
    finish(game.match, winner=ada)
    for p in Pairing.objects.filter(tournament=t, round=1, scored=False):
        finish(p.match, winner=p.first.user)
    a = entries(t)["ada"]
    assert (a.score, a.games, a.results, a.active) == (2, 1, "W", False)
    assert a.playing_id is None
    assert director.advance(t.public_id)  # round 2: the three others, one of them a bye
    t = refreshed(t)
    assert t.round == 2
    second = list(Pairing.objects.filter(tournament=t, round=2))
    assert len(second) == 2 and sum(p.is_bye for p in second) == 1
    assert all(a.pk not in (p.first_id, p.second_id) for p in second)
    # Her game still counts for her opponent's tie-breaks, and for her own standing.
    assert entries(t)["ada"].score == 2
    for p in second:
        if not p.is_bye:
            finish(p.match, winner=p.first.user)
    director.advance(t.public_id)
    assert not Pairing.objects.filter(tournament=t, round=3, first__user=ada).exists()
    assert not Pairing.objects.filter(tournament=t, round=3, second__user=ada).exists()


def test_withdrawing_from_an_arena_mid_game_lets_the_game_count_and_pairs_no_more():
    players = accounts("ada", "bob", "cy", "di")
    ada = players[0]
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    game = pairing_of(t, ada)
    director.withdraw(t.public_id, ada)
    finish(game.match, winner=ada)
    other = Pairing.objects.get(tournament=t, scored=False)
    finish(other.match, winner=other.first.user)
    here(t, *players)  # everyone's page open: only the withdrawal keeps her out
    assert director.advance(t.public_id)
    assert Pairing.objects.filter(tournament=t).count() == 3
    third = Pairing.objects.get(tournament=t, scored=False)
    assert ada.pk not in (third.first.user_id, third.second.user_id)
    a = entries(t)["ada"]
    assert (a.score, a.results, a.active, a.waiting_since) == (2, "W", False, None)


# ---- players who are not there -----------------------------------------------------------------


def test_in_an_arena_a_waiting_player_with_no_page_open_is_paused_when_pairing_comes():
    players = accounts("ada", "bob", "cy", "di", "eve")
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)  # two games, one player waiting
    for p in Pairing.objects.filter(tournament=t):
        finish(p.match, winner=p.first.user)
    gone = players[-1]
    here(t, *players[:-1])  # four pages open; Eve closed hers
    assert director.advance(t.public_id)
    table = entries(t)
    assert not table["eve"].active and table["eve"].waiting_since is None
    again = Pairing.objects.filter(tournament=t, scored=False)
    assert again.count() == 2
    assert not again.filter(Q(first__user=gone) | Q(second__user=gone)).exists()
    assert all(table[u.username].active for u in players[:-1])


def test_a_process_that_just_started_pairs_waiting_players_before_their_pages_return(
    monkeypatch,
):
    """Restarted, a server cannot know yet who is here (the pages reconnect on their own
    time): for scheduler.SETTLING seconds the waiting players are paired, not paused."""
    players = accounts("ada", "bob", "cy", "di")
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    for p in Pairing.objects.filter(tournament=t):
        finish(p.match, winner=p.first.user)
    # No page is open. A scheduler that began a moment ago pairs them all...
    monkeypatch.setattr(scheduler.scheduler, "began", time.monotonic())
    assert director.advance(t.public_id)
    assert Pairing.objects.filter(tournament=t, scored=False).count() == 2
    assert Entry.objects.filter(tournament=t, active=True).count() == 4
    for p in Pairing.objects.filter(tournament=t, scored=False):
        finish(p.match, winner=p.first.user)
    # ... one that has run for longer knows: nobody is here, everyone is paused.
    monkeypatch.setattr(scheduler.scheduler, "began", time.monotonic() - scheduler.SETTLING - 1)
    assert director.advance(t.public_id)
    assert Pairing.objects.filter(tournament=t, scored=False).count() == 0
    assert Entry.objects.filter(tournament=t, active=True).count() == 0


@pytest.mark.parametrize("aborted_by", ["the server", "the waiting player"])
def test_an_arena_game_without_a_first_move_pauses_the_player_who_did_not_move(aborted_by):
    ada, bob = accounts("ada", "bob")
    t = event("arena", starts_in=-1)
    for user in (ada, bob):
        director.join(t.public_id, user)
    director.advance(t.public_id)
    match = Pairing.objects.get(tournament=t).match
    to_move = match.seat_of_player(match.current.to_move)
    if aborted_by == "the server":  # twice the time allowed: the server aborts it
        move_back(match, 2 * django_settings.ABORT_AFTER + 1)
        ended = play.settle_time(fresh(match))
    else:  # the allowed time is up: the player who waits may abort it
        move_back(match, django_settings.ABORT_AFTER + 1)
        ended = play.abort(match.public_id, by=play.Actor(frozenset({3 - to_move})))
    assert ended.ending == Match.Ending.ABORTED
    table = {e.user_id: e for e in Entry.objects.filter(tournament=t)}
    gone = table[match.seat_user_id(to_move)]
    stayed = table[match.seat_user_id(3 - to_move)]
    assert (gone.active, gone.waiting_since, gone.playing_id) == (False, None, None)
    assert stayed.active and stayed.waiting_since is not None and stayed.playing_id is None
    assert gone.games == stayed.games == 0 and gone.score == stayed.score == 0  # no result


def test_a_swiss_game_without_a_first_move_is_lost_by_the_player_who_did_not_move():
    players = accounts("ada", "bob", "cy", "di")
    t = event("swiss", starts_in=-1, rounds=2)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    played, silent = Pairing.objects.filter(tournament=t, round=1)
    finish(played.match, winner=played.first.user)
    match = silent.match
    to_move = match.seat_of_player(match.current.to_move)
    move_back(match, 2 * django_settings.ABORT_AFTER + 1)
    assert play.settle_time(fresh(match)).ending == Match.Ending.ABORTED
    silent.refresh_from_db()
    assert silent.scored and silent.won_by == 3 - to_move  # the round needs a result
    table = {e.user_id: e for e in Entry.objects.filter(tournament=t)}
    lost, won = table[match.seat_user_id(to_move)], table[match.seat_user_id(3 - to_move)]
    assert (lost.score, lost.results, won.score, won.results) == (0, "L", 2, "W")
    # The standings read the same result as the scores (no draw in the tie-breaks).
    ranked = list(Entry.objects.filter(tournament=t).order_by("rank"))
    assert [e.score for e in ranked] == sorted((e.score for e in ranked), reverse=True)
    # The game's page says so under its "Aborted: no result" (issue 42, item 3: it said
    # only that), as the tournament's docs do.
    page = Client().get(match.get_absolute_url()).content.decode()
    said = (
        "The game itself has no result, but the Swiss tournament scores it: "
        f"{match.player_name(to_move)} did not make a first move, so "
        f"{match.player_name(3 - to_move)} scores the win."
    )
    assert said in html.unescape(re.sub(r"<[^>]+>", "", page))
    assert director.advance(t.public_id) and refreshed(t).round == 2


def test_a_real_time_clock_that_runs_out_is_a_loss_on_time_scored_in_the_event():
    ada, bob = accounts("ada", "bob")
    t = event("arena", starts_in=-1, base=60, increment=0)
    for user in (ada, bob):
        director.join(t.public_id, user)
    director.advance(t.public_id)
    match = first_moves(Pairing.objects.get(tournament=t).match)
    to_move = match.seat_of_player(match.current.to_move)
    move_back(match, 61)
    ended = play.settle_time(fresh(match))  # what the opponent's page does at zero
    assert (ended.ending, ended.winner_seat) == (Match.Ending.TIME, 3 - to_move)
    table = {e.user_id: e for e in Entry.objects.filter(tournament=t)}
    winner, loser = table[match.seat_user_id(3 - to_move)], table[match.seat_user_id(to_move)]
    assert (winner.score, winner.results, loser.score, loser.results) == (2, "W", 0, "L")
    assert winner.playing_id is None and winner.waiting_since is not None


def test_a_clock_that_runs_out_with_nobody_looking_is_settled_by_the_scheduler(settings):
    """Both players of a Swiss game left mid-game: no page asks for the board, yet the
    round must end. The scheduler's tick finishes the game on time, scores it and pairs
    the next round."""
    settings.TOURNAMENT_SCHEDULE = "off"
    players = accounts("ada", "bob", "cy", "di")
    t = event("swiss", starts_in=-1, rounds=2, base=60, increment=0)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    played, left = Pairing.objects.filter(tournament=t, round=1)
    finish(played.match, winner=played.first.user)
    match = first_moves(left.match)
    to_move = match.seat_of_player(match.current.to_move)
    assert scheduler.tick() == []  # time is not up yet: nothing due
    move_back(match, 61)
    assert t.public_id in scheduler.tick()
    left.refresh_from_db()
    assert left.scored and left.won_by == 3 - to_move
    assert fresh(left.match).ending == Match.Ending.TIME
    t = refreshed(t)
    assert t.round == 2 and Pairing.objects.filter(tournament=t, round=2).count() == 2


# ---- two processes at once ----------------------------------------------------------------------


def _stress_arena(players: int, seconds: float, games_wanted: int, *, churn: bool = False):
    """An arena of ``players`` waiting players, paired by three threads calling
    ``advance`` at once while two others finish the games in play (as the pages and the
    scheduler of several processes would), until ``games_wanted`` games were made.
    ``churn``: a sixth thread has six players withdraw and join again all along (waiting,
    being paired, in a game, as it comes): every write takes its locks in the director's
    order, and none waits for another for ever (PostgreSQL would end one of them with a
    deadlock error, which this thread or another would raise)."""
    users = accounts(*(f"p{i:02d}" for i in range(players)))
    t = event("arena", starts_in=-1, rated=False)
    director.join(t.public_id, users[0])
    assert director.advance(t.public_id)  # started: one player, nobody to pair
    for user in users[1:]:
        director.join(t.public_id, user)
    here(t, *users)

    # All of them wait: four processes pair them at the same moment.
    results = at_once(4, lambda i: director.advance(t.public_id))
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sorted(results) == [False, False, False, True]
    assert Pairing.objects.filter(tournament=t).count() == players // 2

    stop = threading.Event()
    deadline = time.monotonic() + seconds

    def work(i):
        made = 0
        while not stop.is_set() and time.monotonic() < deadline:
            if i == 5:  # six players pausing and coming back
                for user in users[:6]:
                    with contextlib.suppress(director.Refused):
                        director.withdraw(t.public_id, user)
                    with contextlib.suppress(director.Refused):
                        director.join(t.public_id, user)
                        made += 1
            elif i < 3:  # a process pairing whoever waits
                here(t, *users)
                made += director.advance(t.public_id)
            else:  # players finishing their games
                mine = Pairing.objects.filter(tournament=t, scored=False).order_by("pk")
                for p in list(mine)[i - 3 :: 2][:2]:
                    # (Ended meanwhile by the other finisher: fine.)
                    with contextlib.suppress(play.Refused):
                        finish(p.match, winner=p.first.user if p.pk % 3 else None)
            if Pairing.objects.filter(tournament=t).count() >= games_wanted:
                stop.set()
        return made

    results = at_once(6 if churn else 5, work)
    assert not [r for r in results if isinstance(r, BaseException)], results
    if churn:
        assert results[5] > 0  # the six players did come back, again and again
    return t


def assert_never_two_games_at_once(t):
    pairings = list(Pairing.objects.filter(tournament=t).select_related("match"))
    # Every game of the event is one pairing's, once; no orphan game, no double pairing.
    matches = Match.objects.filter(event=director.event_label(t))
    assert matches.count() == len(pairings) == len({p.match_id for p in pairings})
    assert all(p.first_id != p.second_id for p in pairings)
    games_of: dict[int, list[Match]] = {}
    for p in pairings:
        for entry_id in (p.first_id, p.second_id):
            games_of.setdefault(entry_id, []).append(p.match)
    for entry in Entry.objects.filter(tournament=t):
        games = sorted(games_of.get(entry.pk, []), key=lambda m: (m.started_at, m.pk))
        in_play = [m for m in games if m.status == Match.Status.PLAYING]
        assert len(in_play) <= 1, (entry.name, in_play)
        for before, after in itertools.pairwise(games):  # one after the other
            assert before.finished_at is not None and before.finished_at <= after.started_at
        assert entry.playing_id == (in_play[0].pk if in_play else None)
        counted = [
            p for p in pairings if entry.pk in (p.first_id, p.second_id) and p.won_by is not None
        ]
        assert entry.games == len(counted)


def test_pairing_from_several_threads_at_once_never_pairs_a_player_twice():
    t = _stress_arena(players=12, seconds=25, games_wanted=30)
    assert Pairing.objects.filter(tournament=t).count() >= 12
    assert_never_two_games_at_once(t)


@pytest.mark.services
def test_on_postgresql_several_processes_pairing_at_once_never_pair_a_player_twice():
    assert connection.vendor == "postgresql"
    t = _stress_arena(players=20, seconds=30, games_wanted=40)
    assert Pairing.objects.filter(tournament=t).count() >= 20
    assert_never_two_games_at_once(t)


@pytest.mark.services
def test_on_postgresql_players_pausing_and_returning_while_others_are_paired_never_deadlock():
    assert connection.vendor == "postgresql"
    t = _stress_arena(players=20, seconds=30, games_wanted=40, churn=True)
    assert Pairing.objects.filter(tournament=t).count() >= 20
    assert_never_two_games_at_once(t)


# ---- the scheduler ------------------------------------------------------------------------------


def test_the_scheduler_lease_is_held_by_one_holder_at_a_time(settings):
    settings.TOURNAMENT_LEASE = 10
    for attempt in range(3):  # the race, a few times over
        Lease.objects.all().delete()
        results = at_once(4, lambda i, a=attempt: scheduler.take_lease(f"holder-{a}-{i}"))
        assert results.count(True) == 1, results
        winner = f"holder-{attempt}-{results.index(True)}"
        assert Lease.objects.get().holder == winner
    now = timezone.now()
    Lease.objects.all().delete()
    assert scheduler.take_lease("a", now=now)
    assert not scheduler.take_lease("b", now=now + timedelta(seconds=5))
    assert scheduler.take_lease("a", now=now + timedelta(seconds=6))  # renewed: until +16
    assert not scheduler.take_lease("b", now=now + timedelta(seconds=15))
    later = now + timedelta(seconds=17)  # "a" died: its lease expired
    assert scheduler.take_lease("b", now=later)
    assert not scheduler.take_lease("a", now=later)
    assert Lease.objects.get().holder == "b"


def test_scheduled_events_are_made_once_however_many_holders_make_them(settings):
    settings.TOURNAMENT_SCHEDULE = "hourly"
    now = timezone.now()
    # The hour to come, and the one begun if it began less than 5 minutes ago.
    slots = [
        s for s in scheduler.scheduled_slots(now) if s["starts_at"] >= now - timedelta(minutes=5)
    ]
    assert slots
    made = at_once(3, lambda i: scheduler.make_scheduled(now))
    assert not [m for m in made if isinstance(m, BaseException)], made
    assert sum(made) == len(slots)
    assert scheduler.make_scheduled(now) == 0  # and again: nothing
    keys = list(Tournament.objects.values_list("schedule_key", flat=True))
    assert sorted(keys) == sorted(s["schedule_key"] for s in slots)
    settings.TOURNAMENT_SCHEDULE = "off"
    Tournament.objects.all().delete()
    assert scheduler.make_scheduled(now) == 0 and not Tournament.objects.exists()


def test_due_finds_what_is_due_and_only_that(settings):
    settings.TOURNAMENT_SCHEDULE = "off"
    ada, bob, cy = accounts("ada", "bob", "cy")
    later = event("arena", starts_in=600)
    starting = event("swiss", starts_in=-1)
    arena = event("arena", starts_in=-1)
    for user in (ada, bob):
        director.join(starting.public_id, user)
        director.join(arena.public_id, user)
    assert set(scheduler.due()) == {starting.public_id, arena.public_id}
    scheduler.tick()
    swiss = refreshed(starting)
    assert swiss.round == 1 and refreshed(arena).status == Tournament.Status.RUNNING
    # A round in play and an arena whose players are all playing: nothing due.
    assert scheduler.due() == []
    director.join(arena.public_id, cy)  # one waiting: still nothing to pair
    assert scheduler.due() == []
    finish(Pairing.objects.get(tournament=starting).match, winner=ada)
    assert scheduler.due() == [starting.public_id]  # the round is over
    assert later.public_id not in scheduler.due()


# ---- a server restarted -------------------------------------------------------------------------

FAST = {
    "BITSITE_TOURNAMENT_SCHEDULER": "1",  # the test servers run without it by default
    "BITSITE_TOURNAMENT_TICK": "0.2",
    "BITSITE_TOURNAMENT_GATHER": "0.1",
    "BITSITE_TOURNAMENT_LEASE": "3",
}


def pairings_per_round(t) -> dict[int, Counter]:
    """Per round: how many games each entry has in it (1, or the round's count is off)."""
    rounds: dict[int, Counter] = {}
    for p in Pairing.objects.filter(tournament=t):
        for entry_id in (p.first_id, p.second_id):
            if entry_id is not None:
                rounds.setdefault(p.round, Counter())[entry_id] += 1
    return rounds


@pytest.mark.parametrize("daphne", [FAST], indirect=True)
@pytest.mark.parametrize("stop", ["term", "kill"])
def test_a_server_restarted_mid_round_resumes_the_swiss_event(daphne, stop):
    players = accounts("ada", "bob", "cy", "di")
    t = event("swiss", starts_in=600, rounds=2)
    for user in players:
        director.join(t.public_id, user)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    # The server's scheduler starts it: round 1, two games in play.
    until_sync(lambda: refreshed(t).round == 1, timeout=60, every=0.05)
    round_one = list(Pairing.objects.filter(tournament=t, round=1))
    assert len(round_one) == 2
    daphne.stop() if stop == "term" else daphne.kill()
    assert not daphne.running
    for p in round_one:  # the games end while no server runs
        finish(p.match, winner=p.first.user)
    assert refreshed(t).round == 1
    logged = daphne.log_path.stat().st_size  # (what a process stopped mid-push logged)
    daphne.start()  # a new process: it reads the event from the database
    until_sync(lambda: refreshed(t).round == 2, timeout=60, every=0.05)
    round_two = list(Pairing.objects.filter(tournament=t, round=2))
    assert len(round_two) == 2
    for p in round_two:
        finish(p.match, winner=p.second.user)
    until_sync(lambda: refreshed(t).status == Tournament.Status.FINISHED, timeout=60, every=0.05)
    per_round = pairings_per_round(t)
    assert sorted(per_round) == [1, 2]
    entry_ids = set(Entry.objects.filter(tournament=t).values_list("pk", flat=True))
    for counts in per_round.values():
        assert set(counts) == entry_ids and set(counts.values()) == {1}
    met = [frozenset((p.first_id, p.second_id)) for p in Pairing.objects.filter(tournament=t)]
    assert len(met) == len(set(met)) == 4
    assert sum(e.score for e in Entry.objects.filter(tournament=t)) == 4 * 2
    assert "Traceback" not in daphne.log_path.read_text()[logged:]


@pytest.mark.parametrize("daphne", [FAST], indirect=True)
def test_players_waiting_in_an_arena_when_the_server_restarts_are_paired_after_it(daphne):
    players = accounts("ada", "bob", "cy", "di")
    t = event("arena", starts_in=600)
    for user in players:
        director.join(t.public_id, user)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    until_sync(lambda: Pairing.objects.filter(tournament=t).count() == 2, timeout=60, every=0.05)
    daphne.kill()
    first = list(Pairing.objects.filter(tournament=t))
    for p in first:
        finish(p.match, winner=p.first.user)
    assert Entry.objects.filter(tournament=t, waiting_since__isnull=False).count() == 4
    logged = daphne.log_path.stat().st_size
    daphne.start()
    # Their pages have not come back yet (a browser's backoff reaches 8 s): the new
    # process, which cannot know yet who is here, pairs them all the same.
    until_sync(lambda: Pairing.objects.filter(tournament=t).count() == 4, timeout=60, every=0.05)
    again = list(Pairing.objects.filter(tournament=t, scored=False))
    assert len(again) == 2
    assert Entry.objects.filter(tournament=t, active=True).count() == 4
    last = {frozenset((p.first_id, p.second_id)) for p in first}
    assert all(frozenset((p.first_id, p.second_id)) not in last for p in again)
    assert_never_two_games_at_once(t)
    assert "Traceback" not in daphne.log_path.read_text()[logged:]
