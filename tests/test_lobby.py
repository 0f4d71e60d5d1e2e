"""The lobby (lobby/): listing challenges, accepting, withdrawing, expiry, quick pairing,
the watch page, and what is never listed. Through the views and the write path."""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from games import play, presence
from games.models import Match, new_secret
from games.rules import GAMES, get_game
from lobby import challenges
from tests.factories import client_with_token, make_match
from tests.test_views import form_data

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def listed(game="bit-flip", *, token=None, name="Ada", **kwargs) -> tuple[Match, str]:
    token = token or new_secret()
    match = play.create_match(game, token=token, name=name, listed=True, **kwargs)
    return match, token


def home(client=None) -> str:
    return (client or Client()).get("/").content.decode()


def rows(html: str) -> list[str]:
    """The public ids of the challenges a page lists, in order."""
    section = html.split('id="challenge-list"', 1)[1].split("</ul>", 1)[0]
    return re.findall(r'id="c-([\w-]{16})"', section)


def cards(html: str) -> list[str]:
    section = html.split('id="watch-list"', 1)[1].split("</ul>", 1)[0]
    return re.findall(r'id="w-([\w-]{16})"', section)


def left_pages(match: Match, seconds_ago: float) -> None:
    """The creator's last page of ``match`` closed ``seconds_ago`` seconds ago."""
    name = presence.seen_stamp(presence.seat_set(match.public_id, 1))
    presence.store().stamp(name, time.time() - seconds_ago)


def made_ago(match: Match, seconds: float) -> None:
    Match.objects.filter(pk=match.pk).update(created_at=timezone.now() - timedelta(seconds=seconds))
    match.refresh_from_db()


# ---- listing ---------------------------------------------------------------------------


def test_the_new_match_form_lists_a_friends_match_when_asked():
    client = Client()
    response = client.post("/games/bit-flip/new/", form_data("bit-flip", listed="on", name="Ada"))
    assert response.status_code == 303
    match = Match.objects.get()
    assert match.listed and match.status == Match.Status.WAITING
    html = home()
    assert rows(html) == [match.public_id]
    row = html.split(f'id="c-{match.public_id}"', 1)[1].split("</li>", 1)[0]
    assert "Bit Flip" in row and "by Ada" in row and "no clock" in row
    assert f'action="/lobby/{match.public_id}/accept"' in row
    assert "Rated" not in row


def test_the_form_offers_the_listing_for_a_friend_only_and_ignores_it_otherwise():
    html = Client().get("/games/bit-flip/new/").content.decode()
    assert 'class="field for-friend" id="listing"' in html
    assert 'name="bit-flip-listed"' in html
    for opponent in ("computer", "hotseat"):
        response = Client().post(
            "/games/bit-flip/new/", form_data("bit-flip", opponent=opponent, listed="on")
        )
        assert response.status_code == 303
    assert list(Match.objects.values_list("listed", flat=True)) == [False, False]
    # Without the box, a friend's match is unlisted (by link only).
    Client().post("/games/bit-flip/new/", form_data("bit-flip"))
    assert not Match.objects.filter(listed=True).exists()


def test_the_creator_sees_withdraw_and_others_accept():
    match, token = listed()
    mine = home(client_with_token(token))
    assert f'action="/lobby/{match.public_id}/withdraw"' in mine
    assert f'action="/lobby/{match.public_id}/accept"' not in mine
    theirs = home()
    assert f'action="/lobby/{match.public_id}/accept"' in theirs
    assert "/withdraw" not in theirs


def test_who_owns_a_challenge_is_one_rule_for_pages_sockets_and_pairing():
    """By the seat secret, or by the account: lobby.challenges.Challenger."""
    from django.contrib.auth import get_user_model

    ada = get_user_model().objects.create_user("ada", password="a long pass phrase")
    match, token = listed(user=ada)
    by_secret = challenges.Challenger.of(token)
    by_account = challenges.Challenger.of(new_secret(), ada.pk)
    stranger = challenges.Challenger.of(new_secret(), ada.pk + 1)
    nobody = challenges.Challenger()
    assert by_secret.owns(match) and by_account.owns(match)
    assert not stranger.owns(match) and not nobody.owns(match)
    # What the lobby's pushes carry is read by the same rule.
    assert by_account.made(match.seat1_secret, match.seat1_user_id)
    assert not stranger.made(match.seat1_secret, match.seat1_user_id)


def test_a_rated_challenge_says_so():
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("ada", password="a-long-password-42")
    match, _ = listed(user=user, rated=True)
    row = home().split(f'id="c-{match.public_id}"', 1)[1].split("</li>", 1)[0]
    assert "Rated" in row


def test_at_most_one_open_challenge_per_browser_and_game_the_newest_replaces():
    client = Client()
    for name in ("first", "second"):
        client.post("/games/bit-flip/new/", form_data("bit-flip", listed="on", name=name))
    client.post("/games/last-digit-standing/new/", form_data("last-digit-standing", listed="on"))
    first, second = Match.objects.filter(game="bit-flip").order_by("created_at")
    assert (first.status, first.ending) == (Match.Status.FINISHED, Match.Ending.CANCELLED)
    assert second.status == Match.Status.WAITING
    other = Match.objects.get(game="last-digit-standing")
    assert rows(home()) == [second.public_id, other.public_id]
    # Another browser's challenge of the same game stays.
    theirs, _ = listed()
    assert rows(home()) == [second.public_id, other.public_id, theirs.public_id]


def test_unlisted_matches_never_appear_in_the_lobby_or_on_the_watch_page():
    friend, _, _ = make_match("bit-flip", joined=False)  # by link
    playing, _, _ = make_match("bit-flip")
    computer, _, _ = make_match("bit-flip", mode="computer")
    hotseat, _, _ = make_match("bit-flip", mode="hotseat")
    public, _ = listed()
    html, watched = home(), Client().get("/watch/").content.decode()
    assert rows(html) == [public.public_id]
    assert cards(watched) == []
    for match in (friend, playing, computer, hotseat):
        assert match.public_id not in html and match.public_id not in watched
        assert Client().post(f"/lobby/{match.public_id}/accept").status_code == 404
    assert "nobody is playing a public match" in watched.lower()


# ---- accepting and withdrawing ------------------------------------------------------------


def test_accepting_takes_the_second_seat_and_lands_on_the_match_without_javascript():
    match, _ = listed()
    bob = Client()
    response = bob.post(f"/lobby/{match.public_id}/accept")
    assert response.status_code == 303
    assert response["Location"] == f"/m/{match.public_id}/"
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    page = bob.get(response["Location"]).content.decode()
    assert "You accepted the challenge: you are Player 2" in page
    assert rows(home()) == []
    assert cards(Client().get("/watch/").content.decode()) == [match.public_id]


def test_accepting_with_htmx_redirects_the_page_and_refusals_say_why():
    match, token = listed()
    own = client_with_token(token).post(f"/lobby/{match.public_id}/accept", **HTMX)
    assert own.status_code == 409
    assert "your own challenge" in own.content.decode()
    response = Client().post(f"/lobby/{match.public_id}/accept", **HTMX)
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/m/{match.public_id}/"
    late = Client().post(f"/lobby/{match.public_id}/accept", **HTMX)
    assert late.status_code == 409
    assert "no longer open" in late.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_a_rated_challenge_needs_an_account():
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("ada", password="a-long-password-42")
    match, _ = listed(user=user, rated=True)
    response = Client().post(f"/lobby/{match.public_id}/accept", **HTMX)
    assert response.status_code == 409
    assert "sign in" in response.content.decode()
    assert Match.objects.get(pk=match.pk).status == Match.Status.WAITING


def _accept_at_once(match: Match, takers: int) -> list[int]:
    """``takers`` browsers press "Accept" on ``match`` at the same instant (threads)."""
    barrier, results = threading.Barrier(takers), []

    def accept(i):
        try:
            client = client_with_token(f"racing-taker-{i}-{match.public_id}")
            barrier.wait()
            response = client.post(f"/lobby/{match.public_id}/accept", **HTMX)
            results.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=accept, args=(i,)) for i in range(takers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_two_browsers_accepting_at_once_make_one_match(attempt):
    """The same join path as a share link: the row is locked, one of them gets the seat."""
    match, _ = listed()
    results = _accept_at_once(match, 4)
    assert sorted(results) == [200, 409, 409, 409]  # 200: the redirect to the match
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    winners = [i for i in range(4) if match.seats_for([f"racing-taker-{i}-{match.public_id}"])]
    assert len(winners) == 1
    assert Match.objects.count() == 1


def test_the_creator_withdraws_a_challenge_and_nobody_else_can():
    match, token = listed()
    stranger = Client().post(f"/lobby/{match.public_id}/withdraw", **HTMX)
    assert stranger.status_code == 403
    response = client_with_token(token).post(f"/lobby/{match.public_id}/withdraw", **HTMX)
    assert response.status_code == 200
    assert "withdrawn" in response.content.decode()
    match.refresh_from_db()
    assert (match.status, match.ending) == (Match.Status.FINISHED, Match.Ending.CANCELLED)
    assert rows(home()) == []


def test_withdrawing_a_challenge_just_taken_never_resigns_the_game():
    match, token = listed()
    Client().post(f"/lobby/{match.public_id}/accept")
    ada = client_with_token(token)
    response = ada.post(f"/lobby/{match.public_id}/withdraw")
    assert response.status_code == 303  # back to the lobby, with the message
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    page = ada.get("/").content.decode()
    assert "Too late to withdraw it" in page


# ---- expiry ----------------------------------------------------------------------------------


def test_a_challenge_whose_creator_left_a_minute_ago_is_not_listed_and_the_sweep_cancels_it(
    settings,
):
    settings.LOBBY_CREATOR_AWAY = 60
    staying, _ = listed("bit-flip")
    leaving, _ = listed("bit-flip-divisor")
    left_pages(leaving, 59)
    assert rows(home()) == [staying.public_id, leaving.public_id]
    left_pages(leaving, 61)
    assert rows(home()) == [staying.public_id]  # filtered on read, before any sweep
    late = Client()
    response = late.post(f"/lobby/{leaving.public_id}/accept")
    assert (response.status_code, response["Location"]) == (303, "/")  # back to the lobby
    assert "no longer open" in late.get("/").content.decode()
    leaving.refresh_from_db()
    assert leaving.status == Match.Status.FINISHED  # accepting a due challenge closes it
    left_pages(staying, 61)
    assert challenges.sweep() == 0
    staying.refresh_from_db()
    assert (staying.status, staying.ending) == (Match.Status.FINISHED, Match.Ending.CANCELLED)
    assert staying.ended_by is None
    assert challenges.sweep() == 0  # idempotent: nothing more to do


def test_the_accept_of_a_challenge_that_expired_says_so():
    match, _ = listed()
    made_ago(match, 601)
    response = Client().post(f"/lobby/{match.public_id}/accept", **HTMX)
    assert response.status_code == 409
    assert "no longer open" in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_challenge_expires_after_its_time_to_live(settings):
    settings.LOBBY_CHALLENGE_TTL = 600
    settings.LOBBY_CREATOR_AWAY = 10_000  # the creators never opened a page: not that
    old, _ = listed("bit-flip")
    new, _ = listed("bit-flip-divisor")
    made_ago(old, 599)
    assert rows(home()) == [old.public_id, new.public_id]
    made_ago(old, 601)
    assert rows(home()) == [new.public_id]
    assert challenges.sweep() == 1
    old.refresh_from_db()
    assert old.ending == Match.Ending.CANCELLED
    # Its page says so.
    assert "cancelled" in Client().get(f"/m/{old.public_id}/").content.decode()


def test_expiry_never_touches_a_match_that_was_taken_meanwhile():
    match, _ = listed()
    play.join(match.public_id, token=new_secret())
    assert play.expire_challenge(match.public_id, due=lambda m: True) is None
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_a_creator_with_a_page_open_keeps_the_challenge(settings):
    settings.LOBBY_CREATOR_AWAY = 60
    match, _ = listed()
    left_pages(match, 600)
    membership = presence.enter(match.public_id, "a-channel", "a-session-key")
    presence.settle(membership, match.public_id, kind="seat1", seat=1)
    try:
        assert rows(home()) == [match.public_id]
        assert challenges.sweep() == 1
    finally:
        presence.depart(membership)


# ---- quick pairing -----------------------------------------------------------------------


def test_play_anyone_opens_a_challenge_then_the_next_player_takes_it():
    ada, bob = Client(), Client()
    response = ada.post("/games/bit-flip/play-anyone")
    assert response.status_code == 303
    match = Match.objects.get()
    assert response["Location"] == f"/m/{match.public_id}/"
    assert match.listed and match.status == Match.Status.WAITING
    assert match.options == get_game("bit-flip").options_of(get_game("bit-flip").start())
    assert "Your challenge is open in the lobby" in ada.get(response["Location"]).content.decode()
    # Ada again: her own challenge, not a second one.
    assert ada.post("/games/bit-flip/play-anyone")["Location"] == f"/m/{match.public_id}/"
    response = bob.post("/games/bit-flip/play-anyone")
    assert response["Location"] == f"/m/{match.public_id}/"
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert Match.objects.count() == 1


def test_play_anyone_takes_the_oldest_compatible_challenge():
    custom, _ = listed(options={"width": 5})
    timed, _ = listed("bit-flip", time_control={"clock": "realtime", "base": 60, "increment": 0})
    oldest, _ = listed("bit-flip")
    newer, _ = listed("bit-flip")
    other_game, _ = listed("bit-flip-divisor")
    made_ago(oldest, 30)
    made_ago(newer, 20)
    response = Client().post("/games/bit-flip/play-anyone")
    assert response["Location"] == f"/m/{oldest.public_id}/"
    for match, status in (
        (oldest, Match.Status.PLAYING),
        (newer, Match.Status.WAITING),
        (custom, Match.Status.WAITING),
        (timed, Match.Status.WAITING),
        (other_game, Match.Status.WAITING),
    ):
        match.refresh_from_db()
        assert match.status == status, match


def test_play_anyone_closes_the_players_own_challenge_when_it_takes_another():
    ada = Client()
    ada.post("/games/bit-flip/new/", form_data("bit-flip", listed="on"))
    own = Match.objects.get()
    theirs, _ = listed()
    made_ago(theirs, 10)  # older than Ada's: she takes it
    assert ada.post("/games/bit-flip/play-anyone")["Location"] == f"/m/{theirs.public_id}/"
    own.refresh_from_db()
    assert own.status == Match.Status.FINISHED
    assert Match.objects.filter(status=Match.Status.WAITING).count() == 0


def test_play_anyone_of_no_game_is_a_404_and_gets_are_refused():
    assert Client().post("/games/chess/play-anyone").status_code == 404
    assert Client().get("/games/bit-flip/play-anyone").status_code == 405
    assert Client().get("/lobby/AAAAAAAAAAAAAAAA/accept").status_code == 405


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_two_players_pressing_play_anyone_at_once_are_paired(attempt):
    """The game's listings are locked for the step: the second finds the first's challenge
    (real threads; on PostgreSQL an advisory lock, on SQLite the write lock)."""
    barrier, results, errors = threading.Barrier(2), [], []

    def press(i):
        try:
            barrier.wait()
            results.append(challenges.play_anyone("last-digit-standing", token=f"presser-{i}-x"))
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=press, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(pairing.value for _, pairing in results) == ["opened", "took"]
    assert Match.objects.count() == 1
    match = Match.objects.get()
    assert match.status == Match.Status.PLAYING
    assert match.seats_for(["presser-0-x"]) | match.seats_for(["presser-1-x"]) == {1, 2}


# ---- "Play anyone" pressed twice: one seat per browser -------------------------------------


def two_open_challenges(game="last-digit-standing") -> list[Match]:
    """Two compatible challenges of other browsers, the oldest first."""
    first, _ = listed(game, name="Cy")
    second, _ = listed(game, name="Di")
    made_ago(first, 20)
    made_ago(second, 10)
    return [first, second]


def held_by(token: str) -> list[tuple[str, set[int]]]:
    """The matches in which the browser holding ``token`` has a seat, with its seats."""
    return [
        (match.public_id, match.seats_for([token]))
        for match in Match.objects.order_by("pk")
        if match.seats_for([token])
    ]


def test_play_anyone_pressed_again_gives_the_match_it_took_not_a_second_one():
    """D8: a returning player pressing twice ended in two matches."""
    first, second = two_open_challenges()
    token = new_secret()
    ada = client_with_token(token)
    response = ada.post("/games/last-digit-standing/play-anyone")
    assert response["Location"] == f"/m/{first.public_id}/"
    again = ada.post("/games/last-digit-standing/play-anyone")
    assert again.status_code == 303 and again["Location"] == f"/m/{first.public_id}/"
    page = ada.get(again["Location"]).content.decode()
    assert "You are already playing Last Digit Standing from the lobby" in page
    assert held_by(token) == [(first.public_id, {2})]
    second.refresh_from_db()
    assert second.status == Match.Status.WAITING and rows(home()) == [second.public_id]
    # With htmx too; and once the match is over, a press pairs anew.
    assert ada.post("/games/last-digit-standing/play-anyone", **HTMX)["HX-Redirect"] == (
        f"/m/{first.public_id}/"
    )
    play.resign(first.public_id, by=play.Actor(token=token))
    assert ada.post("/games/last-digit-standing/play-anyone")["Location"] == (
        f"/m/{second.public_id}/"
    )
    # Another game is another pairing.
    assert ada.post("/games/bit-flip/play-anyone")["Location"] not in {
        f"/m/{first.public_id}/",
        f"/m/{second.public_id}/",
    }


def test_play_anyone_on_another_device_of_the_account_gives_the_same_match():
    from tests.accounts.helpers import account, sign_in, token_of

    user = account("ada")
    laptop, phone = Client(), Client()
    sign_in(laptop, "ada")
    sign_in(phone, "ada")
    first, second = two_open_challenges()
    assert laptop.post("/games/last-digit-standing/play-anyone")["Location"] == (
        f"/m/{first.public_id}/"
    )
    assert phone.post("/games/last-digit-standing/play-anyone")["Location"] == (
        f"/m/{first.public_id}/"
    )
    assert held_by(token_of(user)) == [(first.public_id, {2})]
    # A seat the account holds by the account alone (its secret changed since) counts too.
    Match.objects.filter(pk=first.pk).update(seat2_secret="0" * 64)
    assert phone.post("/games/last-digit-standing/play-anyone")["Location"] == (
        f"/m/{first.public_id}/"
    )
    assert Match.objects.get(pk=second.pk).status == Match.Status.WAITING


def test_an_account_is_never_paired_with_its_own_challenge_from_another_device():
    from tests.accounts.helpers import account, sign_in

    account("ada")
    laptop, phone = Client(), Client()
    sign_in(laptop, "ada")
    sign_in(phone, "ada")
    opened = laptop.post("/games/bit-flip/play-anyone")["Location"]
    assert phone.post("/games/bit-flip/play-anyone")["Location"] == opened
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING and not match.seat2_secret


def first_visit(csrf: str) -> Client:
    """A browser's first request: no session yet, only the CSRF cookie that the page
    with the form set (the test client checks no CSRF token, but carries the cookie)."""
    client = Client()
    client.cookies[settings.CSRF_COOKIE_NAME] = csrf
    return client


def session_token_of(response) -> str | None:
    """The seat secret in the session whose cookie ``response`` set."""
    from django.contrib.sessions.backends.cached_db import SessionStore

    cookie = response.cookies.get(settings.SESSION_COOKIE_NAME)
    return SessionStore(session_key=cookie.value).get("token") if cookie else None


def a_csrf_cookie() -> str:
    import secrets

    return secrets.token_hex(16)


def test_a_first_visitors_second_press_before_the_first_answer_is_the_same_browser():
    """D8: the second press of a first-time visitor left before the first one's answer
    set the session cookie: it made a session of its own, took the first press's
    challenge (the browser paired with itself), and the browser kept one of the two."""
    csrf = a_csrf_cookie()
    one, two = first_visit(csrf), first_visit(csrf)
    first = one.post("/games/bit-flip/play-anyone")
    second = two.post("/games/bit-flip/play-anyone")
    assert first["Location"] == second["Location"]
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING and not match.seat2_secret
    # Whichever cookie the browser keeps, its session holds the challenge's seat.
    for response in (first, second):
        assert match.seats_for([session_token_of(response)]) == {1}
    # Another browser (another CSRF cookie) is someone else: it takes the challenge.
    other = first_visit(a_csrf_cookie()).post("/games/bit-flip/play-anyone")
    assert other["Location"] == first["Location"]
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.seats_for([session_token_of(other)]) == {2}


def test_a_first_visitors_session_is_saved_before_the_seat_is_written(monkeypatch):
    """The seat's secret is in a saved session before the write path writes the seat."""
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.contrib.sessions.models import Session

    seen = []
    real = challenges.play_anyone

    def spy(game_slug, *, token, **kwargs):
        saved = [
            SessionStore(session_key=key).get("token")
            for key in Session.objects.values_list("session_key", flat=True)
        ]
        seen.append(token in saved)
        return real(game_slug, token=token, **kwargs)

    monkeypatch.setattr(challenges, "play_anyone", spy)
    response = first_visit(a_csrf_cookie()).post("/games/bit-flip/play-anyone")
    assert response.status_code == 303 and seen == [True]


def _press_at_once(clients: list[Client], path: str) -> list:
    """Each client presses ``path`` at the same instant (threads)."""
    barrier, results = threading.Barrier(len(clients)), []

    def press(client):
        try:
            barrier.wait()
            results.append(client.post(path))
        finally:
            connection.close()

    threads = [threading.Thread(target=press, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_one_browser_pressing_play_anyone_twice_at_once_takes_one_seat(attempt):
    """Two presses racing from one browser, with two open challenges to take: one match."""
    first, second = two_open_challenges()
    token = new_secret()
    results = _press_at_once(
        [client_with_token(token), client_with_token(token)],
        "/games/last-digit-standing/play-anyone",
    )
    assert [r.status_code for r in results] == [303, 303]
    assert {r["Location"] for r in results} == {f"/m/{first.public_id}/"}
    assert held_by(token) == [(first.public_id, {2})]
    assert Match.objects.get(pk=second.pk).status == Match.Status.WAITING


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_a_first_visitor_pressing_play_anyone_twice_at_once_is_one_browser(attempt):
    """Two first presses racing, each without a session: one challenge, never taken by
    the browser itself, held by both sessions."""
    csrf = a_csrf_cookie()
    results = _press_at_once([first_visit(csrf), first_visit(csrf)], "/games/bit-flip/play-anyone")
    assert [r.status_code for r in results] == [303, 303]
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING and not match.seat2_secret
    assert {r["Location"] for r in results} == {f"/m/{match.public_id}/"}
    for response in results:
        assert match.seats_for([session_token_of(response)]) == {1}


def _post_at_once(url: str, path: str, cookies: dict[str, str], body: dict, times: int) -> list:
    """``times`` POSTs of one browser (the same cookies) at the same instant, against a
    real server; each answer's status, Location and cookies set."""
    import http.client
    from http.cookies import SimpleCookie
    from urllib.parse import urlencode, urlsplit

    host = urlsplit(url)
    barrier, answers = threading.Barrier(times), []
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
    }

    def post():
        http_connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
        try:
            barrier.wait()
            http_connection.request("POST", path, urlencode(body), headers)
            response = http_connection.getresponse()
            response.read()
            jar = SimpleCookie()
            for header in response.headers.get_all("Set-Cookie") or []:
                jar.load(header)
            answers.append(
                (
                    response.status,
                    response.headers["Location"],
                    {k: v.value for k, v in jar.items()},
                )
            )
        finally:
            http_connection.close()

    threads = [threading.Thread(target=post) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    return answers


def _a_page_with_its_form(url: str) -> tuple[str, str]:
    """The lobby as a first-time visitor gets it: its CSRF cookie and the form's token
    (and no session)."""
    import urllib.request

    with urllib.request.urlopen(url + "/", timeout=30) as response:
        cookies = " ".join(response.headers.get_all("Set-Cookie") or [])
        page = response.read().decode()
    assert settings.SESSION_COOKIE_NAME not in cookies  # a visit makes no session
    cookie = re.search(rf"{settings.CSRF_COOKIE_NAME}=([^;]+)", cookies).group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    return cookie, token


@pytest.mark.parametrize("attempt", range(3))
def test_a_first_visitors_double_press_against_a_real_server_holds_one_seat(
    live_server_url, attempt
):
    """D8 through daphne (SQLite, or PostgreSQL and Redis in the services run): the
    presses of a first-time visitor racing, each without a session cookie."""
    from django.contrib.sessions.backends.cached_db import SessionStore

    csrf, form_token = _a_page_with_its_form(live_server_url)
    answers = _post_at_once(
        live_server_url,
        "/games/bit-flip/play-anyone",
        {settings.CSRF_COOKIE_NAME: csrf},
        {"csrfmiddlewaretoken": form_token},
        times=3,
    )
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING and not match.seat2_secret
    assert [(status, where) for status, where, _ in answers] == [
        (303, f"/m/{match.public_id}/")
    ] * 3
    for _, _, cookies in answers:  # whichever the browser keeps holds the seat
        session = SessionStore(session_key=cookies[settings.SESSION_COOKIE_NAME])
        assert match.seats_for([session.get("token")]) == {1}


def test_a_returning_players_double_press_against_a_real_server_takes_one_match(live_server_url):
    from django.contrib.sessions.backends.cached_db import SessionStore

    first, second = two_open_challenges()
    token = new_secret()
    session = SessionStore()
    session["token"] = token
    session.save()
    csrf, form_token = _a_page_with_its_form(live_server_url)
    cookies = {settings.CSRF_COOKIE_NAME: csrf, settings.SESSION_COOKIE_NAME: session.session_key}
    answers = _post_at_once(
        live_server_url,
        "/games/last-digit-standing/play-anyone",
        cookies,
        {"csrfmiddlewaretoken": form_token},
        times=3,
    )
    assert [(status, where) for status, where, _ in answers] == [
        (303, f"/m/{first.public_id}/")
    ] * 3
    assert held_by(token) == [(first.public_id, {2})]
    assert Match.objects.get(pk=second.pk).status == Match.Status.WAITING


# ---- the watch page -----------------------------------------------------------------------


def test_the_watch_page_lists_listed_matches_being_played_newest_first():
    first, _ = listed("bit-flip")
    second, _ = listed("last-digit-standing")
    for match in (first, second):
        play.join(match.public_id, token=new_secret(), name="Bob")
    Match.objects.filter(pk=first.pk).update(started_at=timezone.now() - timedelta(seconds=5))
    finished, _ = listed("bit-flip-divisor")
    play.join(finished.public_id, token=new_secret())
    play.resign(finished.public_id, by=play.Actor(token=None, seats=frozenset({2})))
    html = Client().get("/watch/").content.decode()
    assert cards(html) == [second.public_id, first.public_id]
    card = html.split(f'id="w-{second.public_id}"', 1)[1].split("</li>", 1)[0]
    assert f'href="/m/{second.public_id}/"' in card
    assert 'class="mini" role="img" aria-label="Position: remaining: 1 2 3 4 5 6 7 8 9"' in card
    assert "0 watching" in card
    assert "Player 1 (Ada)" in card and "Player 2 (Bob)" in card


def test_a_small_picture_for_every_game_from_its_presenter():
    from games.boards import mini_picture

    for game in GAMES:
        match, _ = listed(game.slug)
        picture = mini_picture(match)
        assert picture["label"] == game.notation(game.start())
        assert picture["tiles"]
    long_number = play.create_match("last-bit-standing", token=new_secret())
    pos = long_number.current
    for _ in range(40):
        pos = long_number.rules.play(pos, "0")  # 1, 2, 1, 2... never a multiple of 3
    long_number.position = long_number.rules.to_json(pos)
    tiles = mini_picture(long_number)["tiles"]
    assert len(tiles) == 32 and tiles[0]["text"] == "…"
    assert "".join(t["text"] for t in tiles[1:]) == pos.binary[-31:]


# ---- rate limits --------------------------------------------------------------------------


def test_play_anyone_and_listing_are_rate_limited_per_browser_and_per_address(settings):
    from tests.test_limits import an_address, rates

    settings.RATE_LIMITS = rates(lobby=("3/m", "5/m"))
    ada = client_with_token("a-browser-pressing-play-anyone", REMOTE_ADDR=an_address())
    games = ["bit-flip", "bit-flip-divisor", "last-digit-standing", "bitwise-battle"]
    codes = [ada.post(f"/games/{slug}/play-anyone").status_code for slug in games]
    assert codes == [303, 303, 303, 429]
    assert (
        "faster than anyone plays"
        in ada.post("/games/last-bit-standing/play-anyone").content.decode()
    )
    # Listing from the form counts too; an unlisted match does not.
    listing = ada.post("/games/last-bit-standing/new/", form_data("last-bit-standing", listed="on"))
    assert listing.status_code == 429
    assert (
        ada.post("/games/last-bit-standing/new/", form_data("last-bit-standing")).status_code == 303
    )
    assert Match.objects.filter(listed=True).count() == 3
    # Per address: every browser of one address together.
    address = an_address()
    codes = [
        Client(REMOTE_ADDR=address).post(f"/games/{slug}/play-anyone").status_code
        for slug in [*games, "last-bit-standing", "bit-flip"]
    ]
    assert codes == [303] * 5 + [429]


def test_accepting_is_rate_limited_like_joining(settings):
    from tests.test_limits import rates

    settings.RATE_LIMITS = rates(join=("2/m", "1000/m"))
    bob = client_with_token("a-browser-accepting-challenges")
    codes = []
    for _ in range(3):
        match, _ = listed()
        codes.append(bob.post(f"/lobby/{match.public_id}/accept").status_code)
    assert codes == [303, 303, 429]
    assert Match.objects.filter(status=Match.Status.WAITING).count() == 1
