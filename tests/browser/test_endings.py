"""Every match can end, in the browser: a draw agreed between two people, clocks that tick
on every page and flag, and a claim once the opponent has gone."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Match
from tests.browser.helpers import (
    create_match,
    join,
    move_button,
    status,
    wait_for_ply,
    wait_for_socket,
)

pytestmark = pytest.mark.browser


def test_a_draw_offered_and_accepted_between_two_browsers(live_server_url, new_page, artifacts):
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, live_server_url, "last-bit-standing", name="Ada")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    ada.get_by_role("button", name="Offer a draw").click()
    expect(ada.locator("#draw-offer")).to_contain_text("You offered a draw.")
    expect(bob.locator("#draw-offer")).to_contain_text("Player 1 (Ada) offers a draw.")
    expect(eve.locator("#draw-offer")).to_contain_text("Player 1 (Ada) offers a draw.")
    expect(eve.get_by_role("button", name="Accept the draw")).to_have_count(0)  # spectators
    bob.screenshot(path=str(artifacts / "draw-offer.png"), full_page=True)
    bob.get_by_role("button", name="Accept the draw").click()
    for page in (ada, bob, eve):
        expect(status(page)).to_have_text("Draw by agreement")
        expect(page.locator("#result")).to_have_text("Player 2 (Bob) accepted the draw.")
    assert Match.objects.get().ending == "agreement"
    for page in (ada, bob, eve):
        assert page.console_errors == []


def clock_of(page, player: int):
    return page.locator(f".player[data-player='{player}'] .clock")


def test_clocks_tick_on_every_page_and_a_flag_ends_the_game(live_server_url, new_page, artifacts):
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, live_server_url, "last-bit-standing", name="Ada", clock="1+1")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
        expect(clock_of(page, 1)).to_have_text("1:00")
    expect(ada.locator("#time-control")).to_contain_text("Clock: 1+1")
    move_button(ada, "last-bit-standing", "0").click()
    wait_for_ply(bob, 1)
    move_button(bob, "last-bit-standing", "1").click()
    for page in (ada, bob, eve):
        wait_for_ply(page, 2)
    # Both first moves made: Ada's clock runs, on her page, Bob's and the spectator's.
    for page in (ada, bob, eve):
        expect(clock_of(page, 1)).to_have_text(re.compile(r"^0:5\d$"), timeout=5000)
        expect(clock_of(page, 2)).to_have_text("1:00")  # Bob's first move was free
    ada.screenshot(path=str(artifacts / "clocks.png"), full_page=True)
    # Ada's time made tiny (through the ORM): her page counts it down and asks at zero.
    Match.objects.filter(public_id=url.rstrip("/").rsplit("/", 1)[1]).update(
        seat1_ms=2500, turn_started_at=timezone.now()
    )
    ada.reload()
    wait_for_socket(ada)
    expect(status(ada)).to_contain_text("You lose", timeout=10000)
    expect(ada.locator("#result")).to_have_text("Player 1 (Ada) ran out of time.")
    expect(status(bob)).to_have_text("You win!")
    expect(status(eve)).to_contain_text("Player 2 (Bob) wins")
    assert Match.objects.get().ending == "time"


@pytest.fixture
def quick_claims(transactional_db, servers):
    """A daphne on which an opponent counts as gone after 2 seconds away."""
    return servers(BITSITE_ABANDON_SECONDS="2")


def test_a_claim_once_the_opponent_has_gone(quick_claims, new_page, artifacts):
    ada, bob = new_page(), new_page()
    url = create_match(ada, quick_claims.url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    for page in (ada, bob):
        wait_for_socket(page)
    expect(ada.locator("#claim")).to_be_hidden()  # Bob is here
    bob.close()
    # Shown away once the grace for a reload has passed (games/presence.py GRACE).
    expect(ada.locator(".presence")).to_have_text("not connected", timeout=15_000)
    expect(ada.locator("#claim")).to_be_visible()
    ada.screenshot(path=str(artifacts / "claim.png"), full_page=True)
    # Too early, the claim is refused with the time left; pressed again later, it ends it.
    for _ in range(30):
        ada.get_by_role("button", name="Claim the win").click()
        try:
            expect(status(ada)).to_have_text("You win!", timeout=1000)
            break
        except AssertionError:
            expect(ada.locator("#message")).to_contain_text("s to go")
    expect(ada.locator("#result")).to_have_text(
        "Player 2 (Bob) left the game: Player 1 (Ada) claimed the win."
    )
