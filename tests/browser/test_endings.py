"""Every match can end, in the browser: a draw agreed between two people, and a claim once
the opponent has gone. (Clocks that tick on every page and flag: tests/browser/test_clocks.py,
whose clocked game runs to its flag.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Match
from tests.browser.helpers import (
    create_match,
    join,
    status,
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
