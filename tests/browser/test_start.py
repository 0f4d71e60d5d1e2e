"""Starting a match from each game's own page, and what a finished game offers, in Chromium."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match
from games.rules.computer import LEVEL_LABELS
from tests.browser.helpers import create_match, join, move_button, status, wait_for_socket

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_level_shows_only_against_the_computer(
    live_server_url, new_page, artifacts, javascript
):
    page = new_page(java_script_enabled=javascript)
    page.goto(f"{live_server_url}/games/bit-flip/new/")
    level, clock = page.locator("#level"), page.locator("#clock")
    second_name = page.get_by_label("Second player's name")
    # A friend, by default: no level; the clock, without its custom fields.
    expect(page.get_by_label("Play a friend")).to_be_checked()
    expect(level).to_be_hidden()
    expect(clock).to_be_visible()
    expect(page.get_by_label("Minutes each")).to_be_hidden()
    expect(second_name).to_be_hidden()
    page.get_by_label("Real time, my choice").check()
    expect(page.get_by_label("Minutes each")).to_be_visible()
    expect(page.get_by_label("Days a move", exact=True)).to_be_hidden()
    # The computer: its level, every choice's whole text readable; no clock.
    page.get_by_text("Play the computer").click()
    expect(level).to_be_visible()
    expect(clock).to_be_hidden()
    for text in LEVEL_LABELS.values():
        label = level.locator("label", has_text=text)
        expect(label).to_be_visible()
        expect(label).to_have_text(text)
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), text
    expect(level.get_by_label(LEVEL_LABELS["strong"])).to_be_checked()
    page.screenshot(path=str(artifacts / f"new-match-computer-{page.viewport_size['width']}.png"))
    # On one device: the second player's name; no level.
    page.get_by_text("Pass and play on one device").click()
    expect(second_name).to_be_visible()
    expect(level).to_be_hidden()
    expect(clock).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.console_errors == []


def test_at_360_px_the_level_labels_wrap_whole(live_server_url, new_page):
    page = new_page(viewport={"width": 360, "height": 780})
    page.goto(f"{live_server_url}/games/bit-flip-divisor/new/")
    page.get_by_text("Play the computer").click()
    for text in LEVEL_LABELS.values():
        label = page.locator("#level label", has_text=text)
        expect(label).to_have_text(text)
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), text
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_match_started_from_the_home_page(live_server_url, new_page, artifacts):
    page = new_page()
    page.goto(live_server_url + "/")
    card = page.locator("#game-bit-flip")
    expect(card.get_by_role("link", name="Rules of Bit Flip")).to_have_attribute(
        "href", "/games/bit-flip/"
    )
    page.screenshot(path=str(artifacts / "home-cards.png"), full_page=True)
    card.get_by_role("link", name=re.compile("^New match")).click()
    page.wait_for_url(re.compile(r"/games/bit-flip/new/$"))
    page.get_by_text("Play the computer").click()
    page.get_by_text(LEVEL_LABELS["perfect"]).click()
    page.get_by_label("Your name (optional)").fill("Ada")
    page.get_by_role("button", name=re.compile(r"^Start a .* match$")).click()
    page.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    expect(status(page)).to_have_text("Your turn")
    match = Match.objects.get()
    assert (match.mode, match.computer_level, match.clock, match.seat1_name) == (
        "computer",
        "perfect",
        "",
        "Ada",
    )
    assert page.console_errors == []


def test_the_rules_page_hides_the_solution_and_links_the_new_match_page(live_server_url, new_page):
    page = new_page()
    page.goto(f"{live_server_url}/games/bit-flip/")
    perfect = page.locator("#perfect-play")
    expect(perfect).to_be_hidden()
    page.get_by_text("Show the solution").click()
    expect(perfect).to_be_visible()
    page.locator("#new-match-link").click()
    page.wait_for_url(re.compile(r"/games/bit-flip/new/$"))


def test_a_finished_game_offers_its_players_and_spectators_what_is_next(
    live_server_url, new_page, artifacts
):
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    move_button(ada, "bit-flip", "3").click()
    expect(bob.locator("#board")).to_have_attribute("data-ply", "1")
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.get_by_role("button", name="Resign").click()
    for page in (ada, bob, eve):
        expect(page.locator("#result")).to_be_visible()
        actions = page.locator("#actions")
        expect(actions.get_by_role("link", name="Replay")).to_be_visible()
        expect(actions.get_by_role("link", name="New game")).to_be_visible()
    for player in (ada, bob):
        actions = player.locator("#actions")
        expect(actions.get_by_role("button", name="Rematch")).to_be_visible()
        expect(actions.get_by_role("link", name="Back to games")).to_be_visible()
    spectated = eve.locator("#actions")
    expect(spectated.get_by_role("button", name="Rematch")).to_have_count(0)
    expect(spectated.get_by_role("link", name="Back to games")).to_have_count(0)
    ada.screenshot(path=str(artifacts / "finished-links.png"), full_page=True)
    eve.locator("#new-game-link").click()
    eve.wait_for_url(re.compile(r"/games/bit-flip/new/$"))
    bob.locator("#home-link").click()
    bob.wait_for_url(live_server_url + "/")
    ada.locator("#replay-link").click()
    last = ada.locator("#replay").get_attribute("data-last")
    expect(ada.locator("#replay")).to_have_attribute("data-ply", last)  # opens at the end
    for page in (ada, bob, eve):
        assert page.console_errors == []


def test_a_cancelled_match_offers_no_replay(live_server_url, new_page):
    page = new_page()
    url = create_match(page, live_server_url, "last-digit-standing")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Cancel match").click()
    expect(status(page)).to_contain_text("cancelled")
    actions = page.locator("#actions")
    expect(actions.get_by_role("link", name="New game")).to_be_visible()
    expect(actions.get_by_role("link", name="Back to games")).to_be_visible()
    expect(actions.get_by_role("link", name="Replay")).to_have_count(0)
    page.goto(url + "replay/")
    expect(page.get_by_role("heading", name="Nothing to replay")).to_be_visible()
    expect(page.locator("#replay-closed")).to_contain_text("there is nothing to replay")
