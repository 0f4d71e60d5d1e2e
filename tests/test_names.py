"""The names seats go by: an account's on a rated match, never another account's user name
anywhere, the name last used remembered for the next form (games.play.display_name,
games/browsers.py), and what the join box and a listed challenge's page say."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import play
from games.models import Match, new_secret
from games.rights import NameTaken
from tests.factories import make_match
from tests.ratings.helpers import account, signed_in
from tests.test_views import form_data

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_a_rated_seat_goes_by_its_account_whatever_was_typed():
    ada, bob = account("ada"), account("bob")
    match = play.create_match("bit-flip", token=new_secret(), user=ada, rated=True, name="bob")
    play.join(match.public_id, token=new_secret(), user=bob, name="Grace")
    match.refresh_from_db()
    assert (match.player_name(1), match.player_name(2)) == ("Player 1 (ada)", "Player 2 (bob)")


@pytest.mark.parametrize("typed", ["bob", "BOB", "  Bob "])
def test_no_name_imitates_another_accounts_user_name(typed):
    ada = account("ada")
    account("bob")
    with pytest.raises(NameTaken, match="is the user name of an account"):
        play.create_match("bit-flip", token=new_secret(), name=typed)
    with pytest.raises(NameTaken):
        play.create_match("bit-flip", token=new_secret(), user=ada, name=typed)
    with pytest.raises(NameTaken):
        play.create_match("bit-flip", token=new_secret(), mode="hotseat", opponent_name=typed)
    match, _, _ = make_match(joined=False, name="Cy")
    with pytest.raises(NameTaken):
        play.join(match.public_id, token=new_secret(), name=typed)
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING and not match.seat2_secret  # nothing changed
    # One's own user name is one's own.
    mine = play.create_match("bit-flip", token=new_secret(), user=ada, name="ADA")
    assert mine.seat1_name == "ADA"


def test_the_views_refuse_an_imitated_name_with_a_message_and_change_nothing():
    account("bob")
    response = Client().post("/games/bit-flip/new/", form_data("bit-flip", name="Bob"))
    assert response.status_code == 422
    assert "“Bob” is the user name of an account: choose another name" in (
        response.content.decode()
    )
    assert not Match.objects.exists()
    match, _, _ = make_match(joined=False, name="Cy")
    response = Client().post(f"/m/{match.public_id}/join", {"name": "bob"}, **HTMX)
    assert response.status_code == 422 and "is the user name of an account" in (
        response.content.decode()
    )
    listed = play.create_match("bit-flip", token=new_secret(), name="Dee", listed=True)
    eve = Client()
    response = eve.post(f"/lobby/{listed.public_id}/accept", {"name": "BOB"}, **HTMX)
    assert response.status_code == 422 and "is the user name of an account" in (
        response.content.decode()
    )
    response = eve.post("/games/bit-flip/play-anyone", {"name": "bob"})
    assert response.status_code == 303 and response["Location"] == "/"
    assert "is the user name of an account" in eve.get("/").content.decode()
    for each in (match, listed):
        each.refresh_from_db()
        assert each.status == Match.Status.WAITING and not each.seat2_secret
    assert Match.objects.count() == 2
    # Far too long a name is cut to 40 characters, never a 500.
    response = Client().post("/games/bit-flip/play-anyone", {"name": "x" * 5000})
    assert response.status_code in (303, 400)


def test_play_anyone_and_accept_take_a_name_and_remember_it():
    ada, bob = Client(), Client()
    response = ada.post("/games/last-digit-standing/play-anyone", {"name": " Ada  Lovelace "})
    opened = Match.objects.get()
    assert opened.seat1_name == "Ada Lovelace"
    home = ada.get("/").content.decode()
    assert re.search(r'id="lobby-name"[^>]*value="Ada Lovelace"', home)
    assert "by Ada Lovelace" in bob.get("/").content.decode()
    page = ada.get(response["Location"]).content.decode()
    assert 'id="listed-note"' in page and "Send this link to a friend." not in page

    other = play.create_match("bit-flip", token=new_secret(), name="Cy", listed=True)
    bob.post(f"/lobby/{other.public_id}/accept", {"name": "Bob"})
    other.refresh_from_db()
    assert other.player_name(2) == "Player 2 (Bob)"
    new = bob.get("/games/bit-flip/new/").content.decode()
    assert re.search(
        r'name="bit-flip-name"[^>]*value="Bob"|value="Bob"[^>]*name="bit-flip-name"', new
    )


def test_a_signed_in_player_is_prefilled_with_the_user_name():
    client = signed_in(account("ada"))
    assert re.search(r'id="lobby-name"[^>]*value="ada"', client.get("/").content.decode())
    client.post("/games/bit-flip/play-anyone", {"name": ""})
    assert Match.objects.get().seat1_name == "ada"


def test_the_join_box_of_a_rated_match_has_a_box_for_each_kind_of_visitor():
    match = play.create_match("bit-flip", token=new_secret(), user=account("ada"), rated=True)
    guest = Client().get(match.get_absolute_url()).content.decode()
    assert 'data-account="no"' in guest
    assert "only a signed-in player can take its second seat" in guest
    member = signed_in(account("bob")).get(match.get_absolute_url()).content.decode()
    assert 'data-account="yes"' in member
    # The board is the one every spectator shares; the page says which box shows.
    box = re.search(r'<div class="panel stack" id="join">.*?</div>\s*\n', member, re.S).group(0)
    assert 'class="for-guest"' in box and 'class="for-account stack"' in box
    assert 'name="name"' not in box  # a rated seat goes by its account: nothing to type
