"""Signing in takes the browser's seats into the account; the account's seats follow it to
every device; another account never gets them; signing out drops them from the browser."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import SESSION_KEY
from django.db import connection
from django.test import Client, RequestFactory

from accounts.models import Profile
from accounts.signin import ACCOUNT_KEY, AccountTokenMiddleware
from games.models import Match, hash_secret
from tests.accounts.helpers import (
    PASSWORD,
    account,
    create,
    holds,
    join,
    move,
    session_token,
    sign_in,
    sign_up,
    token_of,
)

pytestmark = pytest.mark.django_db


def first_legal(match: Match) -> str:
    match.refresh_from_db()
    return match.rules.legal_moves(match.current)[0]


def test_signing_up_claims_every_seat_the_browser_holds():
    ada, bob = Client(), Client()
    friend = create(ada, "bit-flip", name="Ada")  # seat 1
    hotseat = create(ada, "last-digit-standing", opponent="hotseat")  # both seats
    computer = create(ada, "bit-flip-divisor", opponent="computer", level="random")
    other = create(bob, "bit-flip", name="Bob")
    join(ada, other, name="Ada")  # seat 2 of Bob's match
    anonymous = session_token(ada)

    user = sign_up(ada, "ada")

    assert holds(friend, user) == {1}
    assert holds(hotseat, user) == {1, 2}
    assert holds(computer, user) == {1}
    assert holds(other, user) == {2}
    assert holds(other, user) and other.seat1_user is None  # Bob's seat stays Bob's browser's
    assert session_token(ada) == token_of(user) != anonymous
    assert ada.session[ACCOUNT_KEY] == str(user.pk)
    # The old secret holds nothing any more: a copy of the old session moves nowhere.
    assert not Match.objects.filter(seat1_secret=hash_secret(anonymous)).exists()
    assert not Match.objects.filter(seat2_secret=hash_secret(anonymous)).exists()
    # And the browser plays on as before.
    assert move(ada, friend, first_legal(friend)).status_code == 409  # waiting for Bob
    assert move(ada, hotseat, first_legal(hotseat)).status_code == 200
    assert Match.objects.get(pk=hotseat.pk).ply == 1


def test_signing_in_claims_the_browser_seats_and_the_page_says_so():
    user = account("ada")
    browser = Client()
    match = create(browser, "bit-flip")
    response = sign_in(browser, "ada")
    assert response.status_code == 302 and response["Location"] == "/accounts/games/"
    assert holds(match, user) == {1}
    page = browser.get(response["Location"]).content.decode()
    assert f'id="game-{match.public_id}"' in page
    # The profile was made on this first sign-in (an account made elsewhere has none).
    assert Profile.objects.filter(user=user).count() == 1


def test_the_admin_login_claims_too():
    user = account("boss")
    user.is_staff = True
    user.save()
    browser = Client()
    match = create(browser, "bit-flip")
    response = browser.post(
        "/admin/login/?next=/admin/", {"username": "boss", "password": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert holds(match, user) == {1}
    assert session_token(browser) == token_of(user)


def test_a_seat_held_by_an_account_is_never_claimed_by_another():
    ada_user, bob_user = account("ada"), account("bob")
    x = Client()
    match = create(x, "bit-flip")  # browser X holds seat 1
    anonymous = session_token(x)
    join(Client(), match)  # someone takes seat 2
    sign_in(x, "ada")  # account A claims seat 1
    assert holds(match, ada_user) == {1}
    # Another browser keeping X's old anonymous secret (a copy of the cookie from before
    # the sign-in) holds nothing, and its sign-in as B claims nothing.
    y = Client()
    session = y.session
    session["token"] = anonymous
    session.save()
    y.cookies["sessionid"] = session.session_key
    sign_in(y, "bob")
    assert holds(match, bob_user) == set()
    # X signs out, then in as B: nothing of A's moves to B.
    x.post("/accounts/logout/")
    sign_in(x, "bob")
    assert holds(match, ada_user) == {1}
    assert holds(match, bob_user) == set()
    match.refresh_from_db()
    assert (match.seat1_user, match.seat2_user) == (ada_user, None)
    # B cannot move for A.
    assert move(x, match, first_legal(match)).status_code in (403, 409)
    assert Match.objects.get(pk=match.pk).ply == 0


def test_switching_accounts_without_signing_out_claims_nothing():
    ada_user, bob_user = account("ada"), account("bob")
    browser = Client()
    sign_in(browser, "ada")
    match = create(browser, "bit-flip")
    assert holds(match, ada_user) == {1}
    sign_in(browser, "bob")  # a new, empty session for Bob
    assert session_token(browser) == token_of(bob_user)
    assert holds(match, ada_user) == {1} and holds(match, bob_user) == set()


def test_the_account_plays_its_seats_on_a_second_device():
    user = account("ada")
    phone, laptop, bob = Client(), Client(), Client()
    sign_in(phone, "ada")
    match = create(phone, "bit-flip")
    join(bob, match)
    match.refresh_from_db()
    assert match.seat1_user == user  # created while signed in: the account's seat
    sign_in(laptop, "ada")  # nothing of its own to claim
    assert session_token(laptop) == session_token(phone) == token_of(user)
    page = laptop.get(match.get_absolute_url()).content.decode()
    assert "Your turn" in page
    assert move(laptop, match, first_legal(match)).status_code == 200
    assert Match.objects.get(pk=match.pk).ply == 1


def test_signing_out_is_a_post_and_drops_the_seats_from_the_browser():
    account("ada")
    browser, bob = Client(), Client()
    sign_in(browser, "ada")
    match = create(browser, "bit-flip")
    join(bob, match)
    # A GET shows the button, and signs nobody out.
    page = browser.get("/accounts/logout/")
    assert page.status_code == 200
    assert 'method="post" action="/accounts/logout/"' in page.content.decode()
    assert SESSION_KEY in browser.session and session_token(browser)
    assert browser.head("/accounts/logout/").status_code == 200
    assert SESSION_KEY in browser.session
    assert browser.put("/accounts/logout/").status_code == 405
    # The POST signs out: the session is flushed, and its seats with it.
    response = browser.post("/accounts/logout/")
    assert response.status_code == 303 and response["Location"] == "/"
    assert SESSION_KEY not in browser.session
    assert session_token(browser) is None
    assert move(browser, match, first_legal(match)).status_code == 403
    page = browser.get(match.get_absolute_url()).content.decode()
    assert "Your turn" not in page
    # Signing in again brings them back.
    sign_in(browser, "ada")
    assert move(browser, match, first_legal(match)).status_code == 200


def test_a_session_signed_in_before_accounts_gets_its_account_secret():
    """Staff signed into the admin before this feature: the session has an account but
    an anonymous secret, which holds seats. The next request makes it right."""
    user = account("boss")
    browser = Client()
    match = create(browser, "bit-flip")
    anonymous = session_token(browser)
    browser.force_login(user)
    session = browser.session
    session["token"] = anonymous  # as the session was before accounts held seats
    del session[ACCOUNT_KEY]
    session.save()
    Match.objects.filter(pk=match.pk).update(seat1_user=None, seat1_secret=hash_secret(anonymous))

    browser.get("/")

    assert session_token(browser) == token_of(user)
    assert holds(match, user) == {1}


def test_a_session_that_is_right_costs_the_middleware_no_query(django_assert_num_queries):
    """Once the session holds its account's secret, the middleware reads two keys of the
    session and nothing else: not the user, not the database."""
    user = account("ada")
    browser = Client()
    sign_in(browser, "ada")
    session = browser.session

    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError("the middleware read the user")

    request = RequestFactory().get("/")
    request.session, request.user = session, Untouchable()
    seen = []
    middleware = AccountTokenMiddleware(lambda request: seen.append(request) or "response")
    with django_assert_num_queries(0):
        assert middleware(request) == "response"
    assert seen == [request] and session["token"] == token_of(user)


def test_a_password_change_elsewhere_takes_the_seats_off_other_devices():
    user = account("ada")
    phone, laptop, bob = Client(), Client(), Client()
    sign_in(phone, "ada")
    sign_in(laptop, "ada")
    match = create(phone, "bit-flip")
    join(bob, match)
    user.set_password("a-brand-new-password-77")  # changed on another device
    user.save()
    # The laptop's next action is refused: its session is flushed before the move.
    assert move(laptop, match, first_legal(match)).status_code == 403
    assert session_token(laptop) is None and SESSION_KEY not in laptop.session
    assert Match.objects.get(pk=match.pk).ply == 0


def test_creating_and_joining_while_signed_in_record_the_account_and_its_name():
    ada_user, bob_user = account("ada"), account("bob")
    ada, bob = Client(), Client()
    sign_in(ada, "ada")
    sign_in(bob, "bob")
    page = ada.get("/games/bit-flip/new/").content.decode()
    assert 'name="bit-flip-name" value="ada"' in page
    match = create(ada, "bit-flip", name="")
    join(bob, match)
    assert (match.seat1_user, match.seat2_user) == (ada_user, bob_user)
    assert (match.seat1_name, match.seat2_name) == ("ada", "bob")
    assert holds(match, ada_user) == {1} and holds(match, bob_user) == {2}
    # A name typed is the name used.
    typed = create(ada, "bit-flip", name="Ada L.")
    assert typed.seat1_name == "Ada L."


def test_anonymous_play_is_as_before():
    ada, bob = Client(), Client()
    match = create(ada, "bit-flip", name="Ada")
    join(bob, match, name="Bob")
    assert move(ada, match, first_legal(match)).status_code == 200
    match.refresh_from_db()
    assert (match.seat1_user, match.seat2_user, match.ply) == (None, None, 1)
    assert match.seat1_secret == hash_secret(session_token(ada))
    assert Profile.objects.count() == 0
    assert "Sign in" in ada.get("/").content.decode()


# ---- one account never holds both seats of a friend's match (D11) ---------------------------


def test_joining_the_accounts_match_anonymously_then_signing_in_leaves_that_seat():
    """D11: a browser joined seat 2 of Ada's match anonymously, then signed in as Ada:
    the account held both seats (and could answer its own offers)."""
    ada_user = account("ada")
    laptop, x = Client(), Client()
    sign_in(laptop, "ada")
    match = create(laptop, "bit-flip", name="")  # seat 1: the account's
    join(x, match, name="X")  # seat 2: X, anonymous
    elsewhere = create(x, "last-digit-standing")  # X's own match: claimed as ever
    anonymous = session_token(x)

    response = sign_in(x, "ada")

    match.refresh_from_db()
    assert (match.seat1_user, match.seat2_user) == (ada_user, None)
    assert match.seat2_secret == hash_secret(anonymous)  # left where it was
    assert holds(match, ada_user) == {1}
    assert holds(elsewhere, ada_user) == {1}
    assert session_token(x) == token_of(ada_user)  # the browser holds the account's seats
    page = x.get(response["Location"]).content.decode()
    assert (
        f"ada already holds the other seat of Bit Flip /m/{match.public_id}/: one account "
        "never plays both sides of a match" in page
    )
    # The browser holds the account's seat, never both.
    assert match.seats_for([session_token(x)]) == {1}


def test_signing_in_as_the_account_that_joined_this_browsers_match_leaves_that_seat():
    ada_user = account("ada")
    x, phone = Client(), Client()
    match = create(x, "bit-flip", name="X")  # seat 1: X, anonymous
    sign_in(phone, "ada")
    join(phone, match)  # seat 2: the account's
    anonymous = session_token(x)

    sign_in(x, "ada")

    match.refresh_from_db()
    assert (match.seat1_user, match.seat2_user) == (None, ada_user)
    assert match.seat1_secret == hash_secret(anonymous)
    assert holds(match, ada_user) == {2}


def test_an_account_never_joins_or_accepts_its_own_match_from_another_browser():
    account("ada")
    laptop, phone = Client(), Client()
    sign_in(laptop, "ada")
    sign_in(phone, "ada")
    match = create(laptop, "bit-flip", listed="on")
    for path in (f"/m/{match.public_id}/join", f"/lobby/{match.public_id}/accept"):
        response = phone.post(path, HTTP_HX_REQUEST="true")
        assert response.status_code == 409
        assert "your own" in response.content.decode()
    # Nor when the account's seat no longer carries the secret the browser holds.
    Match.objects.filter(pk=match.pk).update(seat1_secret="0" * 64)
    assert phone.post(f"/m/{match.public_id}/join", HTTP_HX_REQUEST="true").status_code == 409
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING and not match.seat2_secret


def test_no_rematch_of_a_match_one_account_held_both_seats_of():
    """A match made before the fix may have one account in both seats: its rematch would
    copy them. Refused, with the reason; nothing is made."""
    from games import play

    ada_user = account("ada")
    ada = Client()
    sign_in(ada, "ada")
    match = create(ada, "bit-flip", name="")
    play.join(match.public_id, token="an-old-anonymous-secret-of-ada")
    Match.objects.filter(pk=match.pk).update(seat2_user=ada_user)  # as a sign-in once did
    play.resign(match.public_id, by=play.Actor(token=token_of(ada_user)))
    response = ada.post(f"/m/{match.public_id}/rematch", HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert "a rematch would pair you with yourself" in response.content.decode()
    assert Match.objects.count() == 1
    assert (
        f'action="/m/{match.public_id}/rematch"'
        not in ada.get(match.get_absolute_url()).content.decode()
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_signing_in_while_the_account_joins_never_gives_it_both_seats(attempt):
    """The claim and the join race (real threads; row locks on PostgreSQL, the write lock
    on SQLite): whichever comes first, one account holds one seat."""
    ada_user = account("ada")
    x, phone = Client(), Client()
    sign_in(phone, "ada")
    match = create(x, "bit-flip", name="X")
    barrier, codes = threading.Barrier(2), {}

    def run(name, action):
        try:
            barrier.wait()
            codes[name] = action().status_code
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=("sign-in", lambda: sign_in(x, "ada"))),
        threading.Thread(
            target=run, args=("join", lambda: phone.post(f"/m/{match.public_id}/join"))
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    match.refresh_from_db()
    assert codes["sign-in"] == 302
    # Without htmx, a join answers 303 whether it took the seat or was refused (the refusal
    # is a message on the match page): the seats say which came first.
    assert codes["join"] == 303
    seats = (match.seat1_user, match.seat2_user)
    if seats != (None, ada_user):  # not joined first (the sign-in left seat 1 where it was)
        # Signed in first: the join was refused (the account's own match), took nothing.
        assert seats == (ada_user, None) and match.seat2_secret == ""
