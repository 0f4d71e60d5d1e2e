"""Following players and the friends list (people/friends.py): online from the inbox
sockets' expiring sets, games in play linked as a spectator's page."""

from __future__ import annotations

import pytest
from django.test import Client

from games import presence
from people import challenges, friends, live
from people.models import Follow
from tests.ratings.helpers import account, rated_match, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_store():
    presence._store = None  # this process's memory store, empty
    yield
    presence._store = None


def page_open(user, channel="ws.test") -> None:
    """A page of ``user`` holds its inbox socket (what people/consumers.py joins)."""
    presence.store().join(channel, [live.pages_set(user.pk)])


def test_follow_and_unfollow_from_the_player_page():
    ada, bob = account("ada"), account("bob")
    browser = signed_in(ada)
    assert 'action="/players/bob/follow"' in browser.get("/players/bob/").content.decode()
    assert browser.post("/players/bob/follow").status_code == 303
    assert browser.post("/players/bob/follow").status_code == 303  # twice: one row
    assert Follow.objects.filter(follower=ada, followed=bob).count() == 1
    page = browser.get("/players/bob/").content.decode()
    assert "You follow bob" in page and 'action="/players/bob/unfollow"' in page
    assert browser.post("/players/bob/unfollow").status_code == 303
    assert not Follow.objects.exists()


def test_the_friends_list_says_who_is_online_and_links_their_games():
    ada, bob, cy, dan = account("ada"), account("bob"), account("cy"), account("dan")
    for other in (bob, cy, dan):
        friends.follow(ada, other)
    match, _, _ = rated_match(bob, dan)
    page_open(bob)
    rows = friends.friends(ada)
    assert [r["user"].username for r in rows] == ["bob", "cy", "dan"]  # online first
    assert [r["online"] for r in rows] == [True, False, False]
    assert rows[0]["playing"] == [match] and rows[2]["playing"] == [match]
    html = signed_in(ada).get("/friends/").content.decode()
    bob_row = html.split('id="friend-bob"', 1)[1].split("</li>", 1)[0]
    assert "online now" in bob_row and f'href="{match.get_absolute_url()}"' in bob_row
    cy_row = html.split('id="friend-cy"', 1)[1].split("</li>", 1)[0]
    assert "away" in cy_row and "playing" not in cy_row
    # A closed page: away again.
    presence.store().leave("ws.test", [live.pages_set(bob.pk)])
    assert friends.friends(ada)[0]["online"] is False


def test_refusals_and_blocks():
    ada, bob = account("ada"), account("bob")
    with pytest.raises(friends.Refused, match="cannot follow yourself"):
        friends.follow(ada, ada)
    friends.follow(ada, bob)
    friends.follow(bob, ada)
    challenges.block(bob, ada)  # a block ends both follows, and stops new ones
    assert not Follow.objects.exists()
    with pytest.raises(friends.Refused, match="cannot follow bob"):
        friends.follow(ada, bob)
    response = signed_in(ada).post("/players/bob/follow", follow=True)
    assert "You cannot follow bob." in response.content.decode()


def test_the_friends_page_asks_a_visitor_to_sign_in_and_needs_the_csrf_token():
    account("bob")
    response = Client().get("/friends/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client = Client(enforce_csrf_checks=True)
    client.force_login(account("ada"))
    assert client.post("/players/bob/follow").status_code == 403
    assert not Follow.objects.exists()
