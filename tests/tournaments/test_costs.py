"""What a change of a big event costs: statements that do not grow with its players.

The benchmark (benchmarks/tournaments.py) plays an arena of 1,000 players; these check the
two costs it found growing with the players, on a few of them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import Q
from django.test.utils import CaptureQueriesContext

from bitsite import runtime
from tests.tournaments.helpers import accounts, event, finish, here
from tournaments import director, live
from tournaments.models import Entry, Pairing, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def queries_to_draw(t) -> int:
    with CaptureQueriesContext(connection) as seen:
        live.render_shared(t)
    return len(seen.captured_queries)


def test_the_standings_are_drawn_in_as_many_queries_however_many_rows_they_show():
    t = event("arena", starts_in=600)
    few = accounts(*(f"p{n}" for n in range(3)))
    for user in few:
        director.join(t.public_id, user)
    with_three = queries_to_draw(t)
    for user in accounts(*(f"q{n}" for n in range(12))):
        director.join(t.public_id, user)
    assert queries_to_draw(t) == with_three  # no query a row (each row's points)


def test_a_game_end_writes_no_rank_and_the_standings_still_read_in_order():
    """An arena's game end re-ranks nothing inside its write (every move and game end of
    the process waits for that write on SQLite): the page works the ranks out as it reads,
    and they are written once, when the event ends."""
    players = accounts(*(f"p{n}" for n in range(8)))
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    here(t, *players)
    director.advance(t.public_id)
    # The last-ranked player of a game wins: the players ranked above them move down.
    ranks = director.arena_ranks(t.public_id)
    last = Entry.objects.get(pk=max(ranks, key=ranks.get))
    pairing = Pairing.objects.get(Q(first=last) | Q(second=last), tournament=t)
    # Inside a transaction of this thread, the write path runs here (not on the writer
    # thread), so that its statements are seen.
    with CaptureQueriesContext(connection) as seen, transaction.atomic():
        finish(pairing.match, winner=last.user)
    reads = [q["sql"] for q in seen.captured_queries]
    assert not [sql for sql in reads if sql.startswith('UPDATE "tournaments_entry" SET "rank"')]
    assert director.arena_ranks(t.public_id)[last.pk] == 1
    html = live.render_shared(Tournament.objects.get(pk=t.pk))
    assert html.index(last.name) < min(
        html.index(e.name) for e in Entry.objects.filter(tournament=t).exclude(pk=last.pk)
    )
    # At the end, the final ranks are written, in that order.
    Tournament.objects.filter(pk=t.pk).update(starts_at=t.starts_at - timedelta(hours=2))
    for p in Pairing.objects.filter(tournament=t, scored=False):
        finish(p.match, winner=p.first.user)
    director.advance(t.public_id)
    table = list(Entry.objects.filter(tournament=t).order_by("rank"))
    assert [e.rank for e in table] == list(range(1, 9))
    assert {e.pk: e.rank for e in table} == director.arena_ranks(t.public_id)
    assert [e.score for e in table] == sorted((e.score for e in table), reverse=True)


@pytest.fixture
def panels(monkeypatch):
    """The players' panels the live layer sends: (user id, html), in order."""
    sent: list[tuple[int, str]] = []

    def publish(group, message):
        if message["type"] == "tournament.panel":  # a pairing's, to the player's own group
            sent.append((int(group.rsplit(".u", 1)[1]), message["html"]))
        for user_id, panel in message.get("panels", {}).items():  # with the standings
            sent.append((int(user_id), panel["html"]))

    monkeypatch.setattr(live.publisher, "publish", publish)
    return sent


def test_every_player_paired_is_sent_the_panel_of_their_game(panels):
    players = accounts(*(f"p{n}" for n in range(6)))
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    here(t, *players)
    panels.clear()
    director.advance(t.public_id)
    told = {user for user, html in panels if 'id="your-game"' in html}
    assert told == {user.pk for user in players}


def test_a_change_draws_the_panels_it_changed_even_after_a_later_change_was_drawn(panels):
    """A write that takes long to commit: its players' panels are drawn by its own push,
    whatever was drawn meanwhile (the panels of a change are counted in versions of the
    event, not in time)."""
    ada, bob = accounts("ada", "bob")
    t = event("arena", starts_in=600)
    director.join(t.public_id, ada)
    director.join(t.public_id, bob)
    before = t.__class__.objects.get(pk=t.pk).version
    # ada's change commits (version before + 1) but is drawn last; bob's (+ 2) first.
    Entry.objects.filter(tournament=t, user=ada).update(panel_version=before + 1)
    Entry.objects.filter(tournament=t, user=bob).update(panel_version=before + 2)
    t.__class__.objects.filter(pk=t.pk).update(version=before + 2)
    panels.clear()
    live.changed(t.public_id, before + 1)  # bob's change
    assert [user for user, _ in panels] == [bob.pk]
    live.changed(t.public_id, before)  # ada's, drawn after
    assert sorted(user for user, _ in panels[1:]) == sorted([ada.pk, bob.pk])
    live.changed(t.public_id)  # a change of no one's panel
    assert len(panels) == 3


def test_a_page_socket_forwards_a_push_without_a_hop_to_the_sync_thread(monkeypatch):
    """Channels' own dispatch closes old database connections on the process's one thread
    for sync work before every message; with the ``dispatch`` hook on (bitsite/runtime/) a
    site socket forwards a push without it, and with it off (BITSITE_HOOKS) as Channels
    does."""
    import asyncio

    from channels import consumer as channels_consumer

    from tournaments.consumers import TournamentConsumer

    hops = []

    async def hop():
        hops.append(1)

    monkeypatch.setattr(channels_consumer, "aclose_old_connections", hop)
    socket = TournamentConsumer()
    socket.shown = 3
    sent = []

    async def send(text_data=None, **kwargs):
        sent.append(text_data)

    socket.send = send
    socket.status = "running"
    message = {
        "type": "tournament.changed",
        "version": 4,
        "status": "running",
        "html": "<div>standings</div>",
    }
    asyncio.run(socket.dispatch(message))
    assert sent == ["<div>standings</div>"]
    assert hops == ([] if runtime.enabled("dispatch") else [1])
    with pytest.raises(ValueError):
        asyncio.run(socket.dispatch({"type": "no.such.thing"}))


def test_an_arena_is_matched_outside_the_write_that_pairs_it(monkeypatch):
    from tournaments import arena

    matched_inside = []
    real = arena.pair_waiting

    def pair_waiting(*args):
        matched_inside.append(connection.in_atomic_block)  # this thread's connection
        return real(*args)

    monkeypatch.setattr(arena, "pair_waiting", pair_waiting)
    players = accounts(*(f"p{n}" for n in range(4)))
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    here(t, *players)
    assert director.advance(t.public_id)
    assert matched_inside == [False]
    assert Pairing.objects.filter(tournament=t).count() == 2


def test_a_player_who_leaves_between_the_matching_and_the_write_is_not_paired(monkeypatch):
    players = accounts(*(f"p{n}" for n in range(4)))
    t = event("arena", starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    here(t, *players)
    real = director._plan

    def plan_then_one_leaves(public_id, present):
        planned = real(public_id, present)
        director.withdraw(public_id, players[0])
        return planned

    monkeypatch.setattr(director, "_plan", plan_then_one_leaves)
    director.advance(t.public_id)
    games = list(Pairing.objects.filter(tournament=t))
    assert len(games) == 1
    paired = {games[0].first.user_id, games[0].second.user_id}
    assert players[0].pk not in paired
    waiting = Entry.objects.filter(tournament=t, active=True, playing__isnull=True)
    assert waiting.count() == 1  # the one matched with the player who left waits again
