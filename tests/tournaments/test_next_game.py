"""A tournament game's page tells its player, live, when their next game of the event has
started (tournaments/next_game.py): a player who stays on the page of the game they
finished is paired as present, and must learn of it there."""

from __future__ import annotations

import pytest
from django.test import Client

from games import extras
from games import live as games_live
from games.rights import Viewer
from tests.factories import client_with_token, make_match
from tests.tournaments.helpers import accounts, event, finish, here, queries_of_paired, seat_of
from tournaments import director
from tournaments.models import Pairing

pytestmark = pytest.mark.django_db(transaction=True)

EMPTY = '<div id="t-next" class="t-next" data-live-part></div>'


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_player_on_their_finished_game_is_told_there_of_the_next_one(monkeypatch):
    players = accounts("ada", "bob", "cy", "dee")
    by_id = {user.pk: user for user in players}
    t = event("arena", starts_in=-1, name="Night arena")
    for user in players:
        director.join(t.public_id, user)
    director.advance(t.public_id)
    first_games = [p.match for p in Pairing.objects.filter(tournament=t).select_related("match")]
    assert len(first_games) == 2
    here(t, *players)
    for match in first_games:  # in play: the part is there, empty, for each player
        for user_id in (match.seat1_user_id, match.seat2_user_id):
            page = signed_in(by_id[user_id]).get(match.get_absolute_url()).content.decode()
            assert EMPTY in page

    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(games_live.publisher, "publish", lambda g, m: sent.append((g, m)))
    queries = queries_of_paired(monkeypatch)
    for match in first_games:
        finish(match, winner=by_id[match.seat1_user_id])
    director.advance(t.public_id)
    assert queries and all(n == 0 for n in queries)  # drawn from the rows the write held

    new = {
        user_id: p.match
        for p in Pairing.objects.filter(tournament=t).exclude(match__in=first_games)
        for user_id in (p.match.seat1_user_id, p.match.seat2_user_id)
    }
    assert set(new) == set(by_id)
    for old in first_games:
        old.refresh_from_db()
        for user in (by_id[old.seat1_user_id], by_id[old.seat2_user_id]):
            seat, url = seat_of(old, user), new[user.pk].get_absolute_url()
            group = games_live.group_name(old.public_id, f"seat{seat}")
            (message,) = [m for g, m in sent if g == group]
            assert message["type"] == "page.fragment" and message["part"] == "t-next"
            assert 'hx-swap-oob="true"' in message["html"] and url in message["html"]
            assert "Your next game has started" in message["html"]
            # The page drawn again, and a socket's first frame, say the same.
            page = signed_in(user).get(old.get_absolute_url()).content.decode()
            assert f'id="next-game" href="{url}"' in page and "Night arena" in page
            opened = extras.socket_panels(old, Viewer(frozenset({seat})))
            assert f'href="{url}"' in opened and 'hx-swap-oob="true"' in opened
            # The new game's own page has the part, empty: no game after it yet.
            assert EMPTY in signed_in(user).get(url).content.decode()
    # Nobody else is told: the spectators' groups get nothing, their pages draw nothing.
    assert not [g for g, m in sent if g.endswith(".spectator") and m["type"] == "page.fragment"]
    spectator = Client().get(first_games[0].get_absolute_url()).content.decode()
    assert 'id="t-next"' not in spectator
    assert "t-next" not in extras.socket_panels(first_games[0], Viewer())


def test_a_game_outside_any_event_draws_no_such_part():
    match, token, _ = make_match("bit-flip")
    page = client_with_token(token).get(match.get_absolute_url()).content.decode()
    assert 'id="t-next"' not in page
