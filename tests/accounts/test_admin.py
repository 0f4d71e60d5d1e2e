"""Accounts in the admin: each account's games, shown and linked, never edited; the match
admin shows the seats' accounts read-only and lists one account's matches."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.contrib.auth.models import User

from accounts.admin import AccountAdmin
from accounts.models import Profile
from games import play
from games.models import Match, Move
from tests.accounts.helpers import account, actor_of, match_of
from tests.factories import both_moved
from tests.replays import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser():
    return User.objects.create_superuser("root", "root@example.org", "a-root-password-42")


def games(ada, bob):
    won = match_of(ada, opponent=bob)
    play.submit_move(won.public_id, by=actor_of(ada), text="3", ply=0)
    both_moved(won)  # before that, a resignation aborts
    play.resign(won.public_id, by=actor_of(bob))
    ongoing = match_of(ada, "last-digit-standing", opponent=bob)
    waiting = match_of(ada, joined=False)
    bobs = match_of(bob, opponent=None)
    return won, ongoing, waiting, bobs


def test_the_user_admin_is_the_accounts_with_room_for_more_inlines():
    assert isinstance(admin.site._registry[User], AccountAdmin)
    assert isinstance(AccountAdmin.inlines, list)


def test_an_accounts_page_lists_its_games_with_links_and_no_secret(superuser):
    ada, bob = account("ada"), account("bob")
    won, ongoing, waiting, bobs = games(ada, bob)
    client = logged_in(superuser)
    response = client.get(f"/admin/auth/user/{ada.pk}/change/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "3 in all: 2 ongoing; won 1, lost 0, drawn 0, other 0." in html
    assert f'href="/admin/games/match/?account={ada.pk}"' in html
    for match in (won, ongoing, waiting):
        assert f'href="/admin/games/match/{match.pk}/change/"' in html
    assert bobs.public_id not in html
    assert Profile.objects.get(user=ada).token not in html
    # The games are text and links, not fields: nothing of a match can be posted here.
    games_part = re.search(r'class="form-row field-games_summary".*?</fieldset>', html, re.S)
    assert games_part and "field-recent_games" in games_part.group(0)
    assert "<input" not in games_part.group(0) and "<select" not in games_part.group(0)


def test_the_match_admin_shows_the_seats_accounts_read_only(superuser):
    ada, bob = account("ada"), account("bob")
    _, ongoing, _, _ = games(ada, bob)
    client = logged_in(superuser)
    html = client.get(f"/admin/games/match/{ongoing.pk}/change/").content.decode()
    assert f'<a href="/admin/auth/user/{ada.pk}/change/">ada</a>' in html
    assert f'<a href="/admin/auth/user/{bob.pk}/change/">bob</a>' in html
    assert 'name="seat1_user"' not in html and 'name="seat2_user"' not in html
    # A post cannot change them.
    data = {"seat1_name": "Ada", "seat2_name": "Bob", "seat1_user": bob.pk, "seat2_user": ada.pk}
    data.update({"moves-TOTAL_FORMS": 0, "moves-INITIAL_FORMS": 0})
    client.post(f"/admin/games/match/{ongoing.pk}/change/", data)
    ongoing.refresh_from_db()
    assert (ongoing.seat1_user, ongoing.seat2_user) == (ada, bob)


def test_the_match_list_of_one_account(superuser):
    ada, bob = account("ada"), account("bob")
    won, ongoing, waiting, bobs = games(ada, bob)
    client = logged_in(superuser)
    html = client.get("/admin/games/match/", {"account": ada.pk}).content.decode()
    for match in (won, ongoing, waiting):
        assert match.public_id in html
    assert bobs.public_id not in html
    assert "By account" in html
    html = client.get("/admin/games/match/", {"account": bob.pk}).content.decode()
    assert bobs.public_id in html and waiting.public_id not in html
    html = client.get("/admin/games/match/", {"account": 999999}).content.decode()
    assert "no such account" in html and won.public_id not in html
    assert "By account" not in client.get("/admin/games/match/").content.decode()
    for junk in ("9" * 40, "²", "-1", "1 OR 1=1", ""):
        response = client.get("/admin/games/match/", {"account": junk})
        assert response.status_code in (200, 302), junk  # the list, or Django's ?e=1
    # Searching by user name finds an account's matches too.
    html = client.get("/admin/games/match/", {"q": "bob"}).content.decode()
    assert bobs.public_id in html


def test_deleting_an_account_keeps_its_matches_and_their_moves(superuser):
    ada, bob = account("ada"), account("bob")
    won, *_ = games(ada, bob)
    client = logged_in(superuser)
    response = client.post(f"/admin/auth/user/{ada.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    won.refresh_from_db()
    assert won.seat1_user is None and won.seat2_user == bob
    assert Move.objects.filter(match=won).count() == 2
    assert Match.objects.count() == 4
