"""The names seats go by: an account's on a rated match, never another account's user name
anywhere, the name last used remembered for the next form (games.play.display_name,
games/browsers.py), and what the join box and a listed challenge's page say."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Profile
from games import names, play
from games.boards import render_board
from games.models import Match, new_secret
from games.rights import NameTaken, Viewer
from tests.factories import actor, both_moved, make_match
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


# "Bob" as typed: case and spacing, a Cyrillic o (U+043E), full-width letters, a zero, dots between.
LOOKALIKES = ["bob", "BOB", "  Bob ", "B\u043eb", "\uff22\uff4f\uff42", "B0B", "b.o.b"]


@pytest.mark.parametrize("typed", LOOKALIKES)
def test_no_name_imitates_another_accounts_user_name(typed):
    ada = account("ada")
    account("bob")
    with pytest.raises(NameTaken, match="reads as the user name of an account"):
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


def test_names_that_only_look_different_read_the_same():
    assert {names.look(n) for n in LOOKALIKES} == {"bob"}
    assert names.look("Ada1") == names.look("adal") == names.look("AdaI")
    # Names that read differently stay apart.
    assert len({names.look(n) for n in ("bob", "bobby", "rob", "b b c", "ada")}) == 5


def test_a_new_account_may_not_read_as_another_and_a_rename_keeps_the_look():
    account("bob")
    taken = Client().post(
        "/accounts/signup/",
        {
            "username": "B\u043eb",
            "password1": "a-long-enough-password-42",
            "password2": "a-long-enough-password-42",
        },
    )
    assert taken.status_code == 400
    assert "That user name reads as another account&#x27;s" in taken.content.decode()
    User = get_user_model()
    assert not User.objects.filter(username="B\u043eb").exists()
    # An account renamed (the admin) takes its new look, and frees its old one.
    bob = User.objects.get(username="bob")
    bob.username = "robert"
    bob.save()
    assert Profile.objects.get(user=bob).name_look == "robert"
    assert play.create_match("bit-flip", token=new_secret(), name="Bob").seat1_name == "Bob"
    with pytest.raises(NameTaken):
        play.create_match("bit-flip", token=new_secret(), name="R0bert")
    # An account made outside the site (createsuperuser) has its profile and look too.
    boss = User.objects.create_superuser("boss", password="x")
    assert Profile.objects.get(user=boss).name_look == "boss"


def test_the_views_refuse_an_imitated_name_with_a_message_and_change_nothing():
    account("bob")
    response = Client().post("/games/bit-flip/new/", form_data("bit-flip", name="Bob"))
    assert response.status_code == 422
    assert "“Bob” reads as the user name of an account: choose another name" in (
        response.content.decode()
    )
    assert not Match.objects.exists()
    match, _, _ = make_match(joined=False, name="Cy")
    response = Client().post(f"/m/{match.public_id}/join", {"name": "bob"}, **HTMX)
    assert response.status_code == 422 and "reads as the user name of an account" in (
        response.content.decode()
    )
    listed = play.create_match("bit-flip", token=new_secret(), name="Dee", listed=True)
    eve = Client()
    response = eve.post(f"/lobby/{listed.public_id}/accept", {"name": "BOB"}, **HTMX)
    assert response.status_code == 422 and "reads as the user name of an account" in (
        response.content.decode()
    )
    response = eve.post("/games/bit-flip/play-anyone", {"name": "bob"})
    assert response.status_code == 303 and response["Location"] == "/"
    assert "reads as the user name of an account" in eve.get("/").content.decode()
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


# ---- long names cut short in messages too (issue 22) -------------------------------------

LONG = "W" * 40


def cut_short(html: str) -> bool:
    return f'<span class="name" title="{LONG}" tabindex="0">{LONG}</span>' in html


def test_a_long_name_in_a_flash_a_notice_and_the_replay_summary_is_drawn_as_a_name():
    from django.template import Context, Template

    flash = Template("{% load names %}{{ text|labels }}").render(
        Context({"text": f"You joined: you are Player 2 ({LONG}), <b>not</b> a spectator."})
    )
    assert cut_short(flash) and "&lt;b&gt;not&lt;/b&gt;" in flash  # the rest escaped
    # The notice the offerer reads when the opponent declines, and the replay's summary.
    match, t1, t2 = make_match("bit-flip", name="Ada", opponent=LONG)
    play.offer_draw(match.public_id, by=actor(match, t1))
    declined = play.answer_draw(match.public_id, by=actor(match, t2), accept=False)
    board = render_board(declined, Viewer(frozenset({1})), told=declined.told)
    notice = re.search(r'<p class="notice[^"]*" id="message">(.*?)</p>', board, re.S)
    assert notice and "declines your draw offer" in notice.group(1)
    assert cut_short(notice.group(1))
    both_moved(match)
    play.resign(match.public_id, by=actor(match, t1))
    replay = Client().get(f"/m/{match.public_id}/replay/").content.decode()
    summary = replay.split('id="summary"', 1)[1].split("</section>", 1)[0]
    assert cut_short(summary)
