"""Direct challenges and blocks (people/): the write path's rules, and the pages that
send, answer and withdraw them, with the test client."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Match
from games.rules import GAMES
from people import challenges
from people.models import Block, Challenge
from tests.ratings.helpers import account, signed_in

pytestmark = pytest.mark.django_db

TERMS = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}


def form(slug="bit-flip", **fields) -> dict:
    """The challenge form as the page posts it (its defaults: no clock, casual, I start)."""
    data = {"game": slug, f"{slug}-first": "me", f"{slug}-time_control": "none"}
    from games.rules import get_game

    for option in get_game(slug).options:
        data[f"{slug}-{option.name}"] = str(option.default)
    data.update({f"{slug}-{k}": v for k, v in fields.items()})
    return data


@pytest.fixture
def ada_bob():
    return account("ada"), account("bob")


# ---- the write path -------------------------------------------------------------------------


def test_a_challenge_accepted_makes_the_match_with_its_terms(ada_bob):
    ada, bob = ada_bob
    terms = {"clock": "realtime", "base": 180, "increment": 2}
    sent = challenges.send(
        ada, bob, game="last-bit-standing", options={}, time_control=terms, rated=True
    )
    assert sent.is_open() and challenges.waiting_count(bob.pk) == 1
    done = challenges.accept(sent.public_id, bob)
    match = Match.objects.get(pk=done.match_id)
    assert done.status == Challenge.Status.ACCEPTED and done.answered_at is not None
    assert match.status == Match.Status.PLAYING and match.rated
    assert (match.game, match.clock, match.clock_base, match.clock_increment) == (
        "last-bit-standing",
        "realtime",
        180,
        2,
    )
    # "I start": the challenger holds the first seat, and moves first.
    assert (match.seat1_user_id, match.seat2_user_id) == (ada.pk, bob.pk)
    assert match.player_of_seat(1) == 1
    assert challenges.waiting_count(bob.pk) == 0


def test_the_challenged_starts_when_the_challenger_says_so(ada_bob):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **{**TERMS, "first": Match.First.OPPONENT})
    match = challenges.accept(sent.public_id, bob).match
    assert match.seat1_user_id == bob.pk and match.player_of_seat(1) == 1


@pytest.mark.parametrize(
    ("act", "says", "status"),
    [
        (
            lambda c, ada, bob: challenges.accept(c.public_id, ada),
            "Only the player challenged",
            403,
        ),
        (
            lambda c, ada, bob: challenges.decline(c.public_id, ada, "generic"),
            "Only the player",
            403,
        ),
        (lambda c, ada, bob: challenges.cancel(c.public_id, bob), "Only the player who sent", 403),
        (lambda c, ada, bob: challenges.decline(c.public_id, bob, "nope"), "Choose why", 400),
        (lambda c, ada, bob: challenges.accept("AAAAAAAAAAAAAAAA", bob), "no such challenge", 404),
    ],
)
def test_answers_that_are_not_yours_are_refused_and_change_nothing(ada_bob, act, says, status):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **TERMS)
    with pytest.raises(challenges.Refused, match=says) as refused:
        act(sent, ada, bob)
    assert refused.value.status == status
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.OPEN and Match.objects.count() == 0


def test_a_challenge_answered_withdrawn_or_expired_can_no_longer_be_answered(ada_bob):
    ada, bob = ada_bob
    declined = challenges.send(ada, bob, **TERMS)
    challenges.decline(declined.public_id, bob, Challenge.Reason.TOO_SLOW)
    declined.refresh_from_db()
    assert declined.get_reason_display() == "That clock is too slow for me."
    with pytest.raises(challenges.Refused, match="already been declined"):
        challenges.accept(declined.public_id, bob)
    withdrawn = challenges.send(ada, bob, **TERMS)
    challenges.cancel(withdrawn.public_id, ada)
    with pytest.raises(challenges.Refused, match="withdrawn"):
        challenges.accept(withdrawn.public_id, bob)
    old = challenges.send(ada, bob, **TERMS)
    Challenge.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    old.refresh_from_db()
    assert old.shown_status == Challenge.Status.EXPIRED
    with pytest.raises(challenges.Refused, match="expired"):
        challenges.accept(old.public_id, bob)
    assert challenges.waiting_count(bob.pk) == 0 and Match.objects.count() == 0
    # An expired one no longer counts against a new challenge.
    challenges.send(ada, bob, **TERMS)


def test_limits_on_sending(ada_bob, settings):
    ada, bob = ada_bob
    with pytest.raises(challenges.Refused, match="cannot challenge yourself"):
        challenges.send(ada, ada, **TERMS)
    challenges.send(ada, bob, **TERMS)
    with pytest.raises(challenges.Refused, match="already challenged bob"):
        challenges.send(ada, bob, **TERMS)
    others = [account(f"p{n}") for n in range(challenges.MAX_OPEN)]
    for other in others[:-1]:
        challenges.send(ada, other, **TERMS)
    with pytest.raises(challenges.Refused, match="waiting for an answer") as refused:
        challenges.send(ada, others[-1], **TERMS)
    assert refused.value.status == 429
    assert Challenge.objects.filter(challenger=ada).count() == challenges.MAX_OPEN


def test_a_block_stops_challenges_both_ways_and_withdraws_the_open_ones(ada_bob):
    ada, bob = ada_bob
    waiting = challenges.send(bob, ada, **TERMS)
    challenges.block(ada, bob)
    challenges.block(ada, bob)  # twice: nothing more
    assert Block.objects.count() == 1
    waiting.refresh_from_db()
    assert waiting.status == Challenge.Status.CANCELLED
    with pytest.raises(challenges.Refused, match="ada does not take challenges from you"):
        challenges.send(bob, ada, **TERMS)
    with pytest.raises(challenges.Refused, match="You blocked bob"):
        challenges.send(ada, bob, **TERMS)
    with pytest.raises(challenges.Refused, match="cannot block yourself"):
        challenges.block(ada, ada)
    challenges.unblock(ada, bob)
    challenges.send(bob, ada, **TERMS)


# ---- the pages ------------------------------------------------------------------------------


def test_a_player_challenges_another_from_their_page_and_the_other_accepts(ada_bob):
    ada, bob = ada_bob
    browser = signed_in(ada)
    page = browser.get("/players/bob/").content.decode()
    assert 'href="/players/bob/challenge/">Challenge bob</a>' in page
    form_page = browser.get("/players/bob/challenge/bit-flip-divisor/")
    assert form_page.status_code == 200
    html = form_page.content.decode()
    assert "Challenge bob to Bit Flip: Divisor" in html and "bit-flip-divisor-first" in html
    assert 'name="bit-flip-divisor-opponent"' not in html  # the opponent is bob
    data = form("bit-flip-divisor", time_control="3+2", rated="on")
    response = browser.post("/players/bob/challenge/bit-flip-divisor/", data)
    assert response.status_code == 303 and response["Location"] == "/challenges/"
    sent = Challenge.objects.get()
    assert (sent.game, sent.rated, sent.time_control) == (
        "bit-flip-divisor",
        True,
        {"clock": "realtime", "base": 180, "increment": 2},
    )
    mine = browser.get("/challenges/").content.decode()
    assert "You challenged" in mine and "Bit Flip: Divisor, 3+2, rated" in mine
    # Bob's header counts it, on any page; his list offers Accept and Decline.
    other = signed_in(bob)
    assert 'class="challenge-badge waiting"' in other.get("/").content.decode()
    listed = other.get("/challenges/").content.decode()
    assert f'action="/challenges/{sent.public_id}/accept"' in listed
    response = other.post(f"/challenges/{sent.public_id}/accept")
    sent.refresh_from_db()
    assert response.status_code == 303 and response["Location"] == sent.match.get_absolute_url()
    header = other.get("/").content.decode()
    assert 'class="count"' not in header.split('id="challenge-badge"', 1)[1].split("</a>", 1)[0]


def test_a_decline_with_a_reason_is_what_the_challenger_reads(ada_bob):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **TERMS)
    response = signed_in(bob).post(f"/challenges/{sent.public_id}/decline", {"reason": "too_fast"})
    assert response.status_code == 303
    page = signed_in(ada).get("/challenges/").content.decode()
    assert "bob declined: \u201cThat clock is too fast for me.\u201d" in page


def test_refusals_are_said_on_the_page_and_change_nothing(ada_bob):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **TERMS)
    stranger = signed_in(account("cy"))
    response = stranger.post(f"/challenges/{sent.public_id}/accept")
    assert response.status_code == 403
    assert "Only the player challenged can accept it." in response.content.decode()
    response = signed_in(ada).post("/players/bob/challenge/bit-flip/", form())
    assert response.status_code == 409
    assert "You have already challenged bob" in response.content.decode()
    bad = signed_in(ada).post("/players/cy/challenge/bit-flip/", form(width="junk"))
    assert bad.status_code == 400 and "The challenge was not sent" in bad.content.decode()
    assert signed_in(ada).get("/players/bob/challenge/?game=chess").status_code == 400
    assert signed_in(ada).get("/players/bob/challenge/chess/").status_code == 404
    # The address without a game (or with one as the old links gave it) leads to its form.
    for url, game in (
        ("/players/bob/challenge/", GAMES[0].slug),
        ("/players/bob/challenge/?game=bitwise-battle", "bitwise-battle"),
    ):
        answer = signed_in(ada).get(url)
        assert answer.status_code == 302 and answer["Location"] == f"/players/bob/challenge/{game}/"
    assert signed_in(ada).get("/players/nobody/challenge/").status_code == 404
    assert Challenge.objects.count() == 1 and Match.objects.count() == 0


def test_a_visitor_is_asked_to_sign_in(ada_bob):
    for url in ("/challenges/", "/players/bob/challenge/"):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    page = Client().get("/players/bob/").content.decode()
    assert "Challenge bob" not in page and "challenge-badge" not in page


def test_blocking_from_the_player_page(ada_bob):
    ada, bob = ada_bob
    browser = signed_in(ada)
    assert browser.post("/players/bob/block").status_code == 303
    page = browser.get("/players/bob/").content.decode()
    assert "You blocked bob" in page and "Challenge bob</a>" not in page
    refused = signed_in(bob).post("/players/ada/challenge/bit-flip/", form())
    assert refused.status_code == 403 and "ada does not take challenges from you." in (
        refused.content.decode()
    )
    assert browser.post("/players/bob/unblock").status_code == 303
    assert "Challenge bob</a>" in browser.get("/players/bob/").content.decode()


def test_the_forms_need_the_csrf_token(ada_bob):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **TERMS)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    for url in (
        f"/challenges/{sent.public_id}/accept",
        f"/challenges/{sent.public_id}/decline",
        "/players/ada/block",
        "/players/ada/challenge/bit-flip/",
    ):
        assert client.post(url, {}).status_code == 403, url
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.OPEN


def test_my_games_offers_to_challenge_an_opponent_again(ada_bob):
    ada, bob = ada_bob
    sent = challenges.send(ada, bob, **TERMS)
    challenges.accept(sent.public_id, bob)
    page = signed_in(ada).get("/accounts/games/").content.decode()
    assert 'href="/players/bob/challenge/bit-flip/">Challenge' in page
