"""What the live layer pushes (tournaments/live.py): each player's own panel whenever what it
shows has changed, even when the change was not to the player's own game."""

from __future__ import annotations

import pytest

from tests.tournaments.helpers import accounts, event, finish, queries_of_paired, refreshed
from tournaments import director, live
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pushed(monkeypatch):
    """The panels pushed, as (user id, html), from the moment the fixture is asked."""
    panels: list[tuple[int, str]] = []

    def publish(group, message):
        if message["type"] == "tournament.panel":  # a pairing's, to the player's own group
            panels.append((int(group.rsplit(".u", 1)[1]), message["html"]))
        for user_id, panel in message.get("panels", {}).items():  # with the standings
            panels.append((int(user_id), panel["html"]))

    monkeypatch.setattr(live.publisher, "publish", publish)
    return panels


def quiet(t) -> None:
    """Every change so far has been drawn (the drawer holds nothing for the event): only
    what changes from now on is pushed, each panel changed after the version a change
    began from."""
    assert t.public_id not in live.drawer.since


def test_the_bye_and_the_end_of_a_swiss_event_reach_the_players_panels(pushed):
    players = accounts("ana", "ben", "cat", "dan", "eve")
    t = event("swiss", starts_in=-1, rounds=2)
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    for p in Pairing.objects.filter(tournament=t, round=1, match__isnull=False):
        finish(p.match, winner=p.first.user)
    quiet(t)
    pushed.clear()
    assert director.advance(t.public_id)  # round 2: a new bye, for a player who just played
    bye = Pairing.objects.get(tournament=t, round=2, match__isnull=True).first
    assert bye.results[0] in "WL"
    mine = [html for user_id, html in pushed if user_id == bye.user_id]
    assert mine and "You have a bye in round 2" in mine[-1]

    for p in Pairing.objects.filter(tournament=t, round=2, match__isnull=False):
        finish(p.match, winner=p.first.user)
    quiet(t)
    pushed.clear()
    assert director.advance(t.public_id)
    assert refreshed(t).status == "finished"
    last = {user_id: html for user_id, html in pushed}
    assert set(last) == {u.pk for u in players}  # everyone's panel: where they finished
    assert all("You finished" in html for html in last.values())


@pytest.mark.parametrize("kind", ["arena", "swiss"])
def test_a_pairing_pushes_the_paired_players_panels_at_its_commit(kind, monkeypatch):
    """ "Go to your game" does not wait for the event's batched draw (held here: it draws
    nothing): each paired player's panel is pushed as the pairing commits, at the version
    it committed, drawn from the rows the write held without a query."""
    monkeypatch.setattr(live.drawer, "changed", lambda *args, **kwargs: None)
    messages: list[tuple[str, dict]] = []
    monkeypatch.setattr(live.publisher, "publish", lambda g, m: messages.append((g, m)))
    queries = queries_of_paired(monkeypatch)
    players = accounts("ana", "ben", "cat", "dan")
    t = event(kind, starts_in=-1)
    for user in players:
        director.join(t.public_id, user)
    assert director.advance(t.public_id)
    t = refreshed(t)
    assert queries == [0]  # the panels of every pair the write made, reading no database
    for p in Pairing.objects.filter(tournament=t).select_related("first", "second", "match"):
        for entry in (p.first, p.second):
            sent = [m for g, m in messages if g == live.player_group(t.public_id, entry.user_id)]
            assert len(sent) == 1
            assert sent[0]["type"] == "tournament.panel" and sent[0]["version"] == t.version
            assert sent[0]["entry"] is True
            assert "Go to your game" in sent[0]["html"]
            assert p.match.get_absolute_url() in sent[0]["html"]
    assert len(messages) == 4  # one per player: no message to the event's group
    assert not [g for g, m in messages if g == live.group(t.public_id)]  # the draw was held


def test_the_standings_are_drawn_in_a_few_queries_however_many_players(
    django_assert_max_num_queries,
):
    t = event("arena", starts_in=600)
    for user in accounts(*(f"p{n}" for n in range(12))):
        director.join(t.public_id, user)
    t = refreshed(t)
    with django_assert_max_num_queries(5):
        html = live.render_shared(t)
    assert html.count('class="score"') == 12


def test_the_games_in_play_listed_are_those_of_the_best_placed_players(
    django_assert_max_num_queries,
):
    """Each row of the standings links its player's game; the list of games in play names
    only the top ones (live.TOP_GAMES), in the order of the better-placed player of each."""
    t = event("arena", starts_in=-1)
    players = accounts(*(f"p{n:02}" for n in range(2 * live.TOP_GAMES + 6)))
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)  # everyone paired
    t = refreshed(t)
    in_play = Pairing.objects.filter(tournament=t, match__status="playing")
    assert in_play.count() == live.TOP_GAMES + 3
    with django_assert_max_num_queries(5):
        context = live.shared_context(t)
    listed = [p.match_id for p in context["playing"]]
    best_first = []
    for row in context["rows"]:
        if row.playing_id not in best_first:
            best_first.append(row.playing_id)
    assert listed == best_first[: live.TOP_GAMES]
    html = live.render_shared(t)
    assert html.count('class="score"') == len(players)
    assert html.count(">playing</a>") == len(players)  # every row links its own game


def test_a_swiss_score_reads_in_whole_and_half_points():
    ana, ben = accounts("ana", "ben")
    t = event("swiss", starts_in=-1, rounds=1)
    for user in (ana, ben):
        director.join(t.public_id, user)
    director.advance(t.public_id)
    finish(Pairing.objects.get(tournament=t).match)  # drawn
    director.advance(t.public_id)
    html = live.render_shared(refreshed(t))
    assert html.count('<td class="score">½</td>') == 2
    assert 'class="podium-score">½ points<' in html


@pytest.mark.parametrize(
    ("rank", "place"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (101, "101st"),
        (111, "111th"),
    ],
)
def test_a_place_reads_as_an_ordinal(rank, place):
    from tournaments.models import Entry

    assert Entry(rank=rank).place == place


async def test_a_draw_due_as_the_server_stops_is_let_go(monkeypatch):
    """A draw falling due while the server shuts down cannot be given to a thread any
    more (asyncio: "cannot schedule new futures after interpreter shutdown"); it is let
    go without a traceback: the pages reconnect to the next server and read afresh."""
    import asyncio

    def refused(*args):
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(asyncio.get_running_loop(), "run_in_executor", refused)
    live.Drawer()._soon("an-event")  # no error
