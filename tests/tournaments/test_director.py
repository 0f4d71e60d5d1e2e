"""The tournaments' write path: joining, pairing, scoring, finishing (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Match
from ratings.models import Rating
from tests.tournaments.helpers import accounts, event, finish, here, refreshed
from tournaments import director
from tournaments.models import Entry, Pairing, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def entries(t):
    return {e.user.username: e for e in Entry.objects.filter(tournament=t).select_related("user")}


def running_arena(*users):
    """An arena that has begun, ``users`` joined, each with its page open."""
    t = event("arena", starts_in=-1)
    for user in users:
        director.join(t.public_id, user)
    here(t, *users)
    return t


def test_an_arena_pairs_everyone_scores_streaks_and_pairs_again():
    ada, bob, cy, di = accounts("ada", "bob", "cy", "di")
    t = running_arena(ada, bob, cy, di)
    assert director.advance(t.public_id)
    t = refreshed(t)
    assert t.status == Tournament.Status.RUNNING
    games = list(Pairing.objects.filter(tournament=t))
    assert len(games) == 2
    for p in games:
        assert p.match.status == Match.Status.PLAYING and p.match.rated
        assert p.match.event == director.event_label(t)
        assert p.match.clock == Match.Clock.REALTIME
    # Each first player wins: 2 points each; their opponents 0; all four wait again.
    for p in games:
        finish(p.match, winner=p.first.user)
    table = entries(t)
    winners = {p.first.user.username for p in games}
    for name, e in table.items():
        assert e.score == (2 if name in winners else 0)
        assert e.playing_id is None and e.waiting_since is not None
    # Rated: the games changed the players' ratings.
    assert Rating.objects.filter(game="bit-flip").count() == 4
    # Paired again, never with the last opponent.
    assert director.advance(t.public_id)
    again = list(Pairing.objects.filter(tournament=t).order_by("pk"))[2:]
    assert len(again) == 2
    last = {frozenset((p.first_id, p.second_id)) for p in games}
    assert all(frozenset((p.first_id, p.second_id)) not in last for p in again)


def test_in_an_arena_who_has_moved_first_less_often_moves_first():
    t = running_arena(*accounts("ada", "bob", "cy", "di"))
    director.advance(t.public_id)
    one, two = Pairing.objects.filter(tournament=t).order_by("pk")
    # The first player wins one game, the second player the other: the two winners meet
    # next (the closest in score), and so do the two losers, each pair one who moved first
    # and one who moved second.
    finish(one.match, winner=one.first.user)
    finish(two.match, winner=two.second.user)
    moved_second = {one.second_id, two.second_id}
    director.advance(t.public_id)
    again = list(Pairing.objects.filter(tournament=t).order_by("pk"))[2:]
    assert len(again) == 2
    for p in again:
        assert {p.first_id, p.second_id} & moved_second == {p.first_id}


def test_two_wins_in_a_row_put_a_player_on_fire_and_double_the_next():
    ada, bob, cy = accounts("ada", "bob", "cy")
    t = event("arena", starts_in=-1)
    for user in (ada, bob, cy):
        director.join(t.public_id, user)
    here(t, ada, bob, cy)
    director.advance(t.public_id)
    played = 0
    while played < 3:
        playing = Pairing.objects.filter(tournament=t, scored=False, match__isnull=False)
        for p in playing:
            winner = ada if ada.pk in (p.first.user_id, p.second.user_id) else p.first.user
            finish(p.match, winner=winner)
            played += 1
        director.advance(t.public_id)
    a = entries(t)["ada"]
    # Ada won each of her games: 2, 2, then 4 on fire.
    assert a.results.startswith("WW")
    if len(a.results) >= 3:
        assert a.score == 2 + 2 + 4 * (len(a.results) - 2)
    assert a.on_fire
    # The standings mark her with the flame, a picture with its words (no emoji font needed;
    # drawn by the style sheet, not carried in each row of every push).
    from tournaments import live

    html = live.render_shared(refreshed(t))
    row = html.split(f'id="e-{a.pk}"', 1)[1].split("</tr>", 1)[0]
    assert '<i class="fire" role="img" aria-label="on fire"' in row
    assert 'title="On fire: two wins in a row, each game counts double"' in row
    others = [e for name, e in entries(t).items() if name != "ada" and not e.on_fire]
    for e in others:
        assert 'class="fire"' not in html.split(f'id="e-{e.pk}"', 1)[1].split("</tr>", 1)[0]


def test_joining_twice_is_refused_and_changes_nothing():
    (ada,) = accounts("ada")
    t = event("arena", starts_in=60)
    director.join(t.public_id, ada)
    with pytest.raises(director.Refused, match="already joined"):
        director.join(t.public_id, ada)
    assert Entry.objects.filter(tournament=t).count() == 1


def test_a_swiss_event_refuses_players_after_it_started():
    ada, bob, cy = accounts("ada", "bob", "cy")
    t = event("swiss", starts_in=-1)
    director.join(t.public_id, ada)
    director.join(t.public_id, bob)
    director.advance(t.public_id)
    with pytest.raises(director.Refused, match="has started"):
        director.join(t.public_id, cy)
    assert Entry.objects.filter(tournament=t).count() == 2


def test_withdrawing_mid_game_lets_the_game_count_and_pairs_no_more():
    ada, bob, cy, di = accounts("ada", "bob", "cy", "di")
    t = event("arena", starts_in=-1)
    for user in (ada, bob, cy, di):
        director.join(t.public_id, user)
    director.advance(t.public_id)
    pairing = (
        Pairing.objects.get(tournament=t, first__user=ada)
        if Pairing.objects.filter(tournament=t, first__user=ada).exists()
        else Pairing.objects.get(tournament=t, second__user=ada)
    )
    director.withdraw(t.public_id, ada)
    finish(pairing.match, winner=ada)
    a = entries(t)["ada"]
    assert a.score == 2 and not a.active and a.waiting_since is None
    director.advance(t.public_id)
    assert not Pairing.objects.filter(tournament=t, scored=False, first=a).exists()
    assert not Pairing.objects.filter(tournament=t, scored=False, second=a).exists()
    # Back again: paired at the next look.
    director.join(t.public_id, ada)
    assert entries(t)["ada"].active


def test_a_swiss_event_of_five_runs_three_rounds_with_one_bye_each_and_no_repeats():
    players = accounts("ada", "bob", "cy", "di", "eve")
    t = event("swiss", starts_in=-1, rounds=3)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    for number in (1, 2, 3):
        t = refreshed(t)
        assert t.round == number
        round_games = Pairing.objects.filter(tournament=t, round=number)
        assert round_games.filter(match__isnull=True).count() == 1  # one bye
        assert round_games.filter(match__isnull=False).count() == 2
        for p in round_games.filter(match__isnull=False):
            finish(p.match, winner=p.first.user)
        # Nothing is due until every game of the round has ended; now it is.
        assert director.advance(t.public_id)
    t = refreshed(t)
    assert t.status == Tournament.Status.FINISHED
    met = [
        frozenset((p.first_id, p.second_id))
        for p in Pairing.objects.filter(tournament=t, match__isnull=False)
    ]
    assert len(met) == len(set(met)) == 6
    byes = [p.first_id for p in Pairing.objects.filter(tournament=t, match__isnull=True)]
    assert len(byes) == len(set(byes)) == 3
    ranked = list(Entry.objects.filter(tournament=t).order_by("rank"))
    keys = [(-e.score, -e.buchholz, -e.sonneborn_berger) for e in ranked]
    assert keys == sorted(keys)
    assert sum(e.score for e in ranked) == 2 * (2 * 3) + 2 * 3  # 6 games won + 3 byes


def test_an_arena_stops_pairing_when_time_is_up_and_finishes_after_its_last_game():
    ada, bob = accounts("ada", "bob")
    t = event("arena", starts_in=-1, minutes=5)
    director.join(t.public_id, ada)
    director.join(t.public_id, bob)
    director.advance(t.public_id)
    pairing = Pairing.objects.get(tournament=t)
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(minutes=6))
    assert not director.advance(t.public_id)  # a game in play: not finished yet
    assert refreshed(t).status == Tournament.Status.RUNNING
    finish(pairing.match, winner=bob)
    assert director.advance(t.public_id)
    t = refreshed(t)
    assert t.status == Tournament.Status.FINISHED
    assert Pairing.objects.filter(tournament=t).count() == 1
    assert entries(t)["bob"].rank == 1


def test_a_player_absent_when_pairing_comes_is_paused():
    ada, bob, cy = accounts("ada", "bob", "cy")
    t = event("arena", starts_in=-1)
    for user in (ada, bob, cy):
        director.join(t.public_id, user)
    director.advance(t.public_id)  # started with nobody's page known: everyone counts
    p = Pairing.objects.get(tournament=t)
    finish(p.match, winner=p.first.user)
    # Nobody has a page of the event or of their last game open now (the presence sets
    # are empty): when pairing comes, the waiting players are paused instead.
    director.advance(t.public_id)
    paused = Entry.objects.filter(tournament=t, active=False)
    assert paused.count() == 3
    assert Pairing.objects.filter(tournament=t).count() == 1


def test_during_a_swiss_round_the_ranks_count_every_point_scored():
    """Issue 42, item 3: during a round the ranks ignored the bye's point (rank 1 on 0
    points above rank 5 on 1) and the round's finished games. Now the ranks follow the
    points scored so far, then the tie-breaks of the rounds completed."""
    accounts("ada", "bob", "cy", "di", "eve")
    t = event("swiss", starts_in=-1, rounds=3)
    for user in get_user_model().objects.order_by("pk"):
        director.join(t.public_id, user)
    director.advance(t.public_id)
    bye = Pairing.objects.get(tournament=t, round=1, match__isnull=True).first
    ranked = list(Entry.objects.filter(tournament=t).order_by("rank"))
    assert ranked[0] == bye and ranked[0].score > 0
    assert [e.rank for e in ranked] == [1, 2, 3, 4, 5]
    # One game of the round ends: its winner shares the top with the bye, ahead of the
    # three on no points, before the round is over.
    game = Pairing.objects.filter(tournament=t, round=1, match__isnull=False).first()
    finish(game.match, winner=game.second.user)
    by_rank = list(Entry.objects.filter(tournament=t).order_by("rank"))
    assert {e.pk for e in by_rank[:2]} == {bye.pk, game.second_id}
    assert [e.score for e in by_rank] == sorted((e.score for e in by_rank), reverse=True)
