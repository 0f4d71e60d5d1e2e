"""Notifications (people/notifications.py): made after the change that caused it has
committed, one unread of a kind about one thing, shown in the bell and on /notifications/."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from games import play
from games.models import Match
from people import challenges, notifications
from people.models import Notification
from tests.factories import both_moved
from tests.ratings.helpers import account, rated_match, resign, signed_in

# Transactions commit here: a notification is made after the commit, as on the site.
pytestmark = pytest.mark.django_db(transaction=True)

TERMS = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}
DAYS = {"clock": Match.Clock.CORRESPONDENCE, "days": 3}


def texts(user) -> list[str]:
    return [n.text for n in Notification.objects.filter(user=user, read_at__isnull=True)]


def move(match: Match) -> None:
    match.refresh_from_db()
    seat = match.seat_of_player(match.current.to_move)
    text = match.rules.legal_moves(match.current)[0]
    play.submit_move(match.public_id, by=play.Actor(frozenset({seat})), text=text, ply=match.ply)


def test_a_correspondence_move_tells_the_player_whose_turn_it_is_once():
    ada, bob = account("ada"), account("bob")
    match, _, _ = rated_match(ada, bob, "last-digit-standing", rated=False, time_control=DAYS)
    assert texts(ada) == texts(bob) == []  # joined, nobody moved: nothing to say
    move(match)  # Ada moves: Bob's turn
    assert texts(bob) == ["Your turn in Last Digit Standing against ada."]
    assert texts(ada) == []
    move(match)  # Bob: Ada's turn
    move(match)  # Ada: Bob's turn again, one unread notice about this game
    assert texts(bob) == ["Your turn in Last Digit Standing against ada."]
    assert texts(ada) == ["Your turn in Last Digit Standing against bob."]
    assert Notification.objects.get(user=bob).url == match.get_absolute_url()
    # Bob reads it; Ada offers a draw: another change of the match, not a new turn.
    Notification.objects.filter(user=bob).update(read_at=timezone.now())
    play.offer_draw(match.public_id, by=play.Actor(frozenset({1})))
    assert texts(bob) == [] and Notification.objects.filter(user=bob).count() == 1


def test_a_real_time_or_unrated_game_says_nothing_and_a_rated_result_is_told_once():
    ada, bob = account("ada"), account("bob")
    quick, _, bob_token = rated_match(ada, bob, rated=False)
    both_moved(quick)
    resign(quick, bob_token)
    assert not Notification.objects.exists()
    rated, _, bob_token = rated_match(ada, bob)
    resign(rated, bob_token)
    assert texts(ada) == ["Bit Flip against bob, rated: You win!"]
    assert texts(bob) == ["Bit Flip against ada, rated: You lose: Player 1 (ada) wins."]
    # A rematch changes the finished match again (its link): told once all the same.
    play.rematch(rated.public_id, by=play.Actor(frozenset({1})))
    rated.refresh_from_db()
    assert Notification.objects.filter(kind="result").count() == 2


def test_challenges_received_accepted_and_declined_are_told():
    ada, bob = account("ada"), account("bob")
    sent = challenges.send(ada, bob, **TERMS)
    assert texts(bob) == ["ada challenges you: Bit Flip, no clock, casual."]
    accepted = challenges.accept(sent.public_id, bob)
    (note,) = Notification.objects.filter(user=ada)
    assert note.text == "bob accepted your challenge: Bit Flip, no clock, casual."
    assert note.url == accepted.match.get_absolute_url()
    again = challenges.send(ada, bob, **TERMS)
    challenges.decline(again.public_id, bob, "later")
    assert (
        texts(ada)[0] == "bob declined your challenge: \u201cNot now: please ask again later.\u201d"
    )


def test_the_page_the_bell_and_marking_read():
    ada, bob = account("ada"), account("bob")
    challenges.send(ada, bob, **TERMS)
    browser = signed_in(bob)
    header = browser.get("/").content.decode()
    assert '<span class="count">1</span>' in header.split('id="notification-bell"', 1)[1]
    page = browser.get("/notifications/").content.decode()
    assert "ada challenges you" in page and "· new" in page
    (note,) = Notification.objects.filter(user=bob)
    response = browser.post(f"/notifications/{note.pk}/open")
    assert response.status_code == 303 and response["Location"] == "/challenges/"
    note.refresh_from_db()
    assert note.read_at is not None
    assert notifications.unread_count(bob.pk) == 0
    challenges.send(account("cy"), bob, **TERMS)
    assert browser.post("/notifications/read").status_code == 303
    assert notifications.unread_count(bob.pk) == 0
    # Not someone else's; not without the token; not for a visitor.
    other = signed_in(ada).post(f"/notifications/{note.pk}/open", follow=True)
    assert "There is no such notification." in other.content.decode()
    assert other.redirect_chain == [("/notifications/", 303)]
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.post("/notifications/read").status_code == 403
    assert Client().get("/notifications/").status_code == 302


def test_old_notifications_are_dropped_past_what_is_kept(monkeypatch):
    monkeypatch.setattr(notifications, "KEPT", 3)
    ada = account("ada")
    for n in range(5):
        notifications.notify(ada.pk, "turn", f"n{n}", "/", about=f"m{n}")
    assert [n.text for n in Notification.objects.filter(user=ada)] == ["n4", "n3", "n2"]
