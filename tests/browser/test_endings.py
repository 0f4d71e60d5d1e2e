"""Every match can end, in the browser: a draw agreed between two people. (Clocks that tick
on every page and flag: tests/browser/test_clocks.py, whose clocked game runs to its flag; a
claim once the opponent has gone: tests/browser/test_countdowns.py, whose claim panel counts
down to it.)"""

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
