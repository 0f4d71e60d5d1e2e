"""Countdowns instead of refusals (issue 22): a player who only reloads is never shown
away; one who leaves is, the claim panel says the real wait, counts it down and enables
itself, and the win is claimed; Abort counts down to when it may be pressed; a real-time
match whose first move never comes is aborted by the server, live on every page, also
across a restart."""

from __future__ import annotations

import re

import pytest
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

NARROW = {"width": 360, "height": 800}

# Pressed when the board counts the opponent away (the claim panel shows by CSS).
AWAY_SEEN = """() => {
  window.__shownAway = false;
  const look = () => {
    if (document.querySelector('.presence[data-online="no"]')) window.__shownAway = true;
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
                                                     attributes: true});
}"""


# Short waits, on one server for every test here that waits (a claim is for a match without
# a clock, an abort for a real-time one: neither setting touches the other's tests).
SHORT_WAITS = {"BITSITE_ABANDON_SECONDS": "9", "BITSITE_ABORT_SECONDS": "4"}


@pytest.fixture
def slow_claims(transactional_db, servers):
    """A daphne on which an opponent may be claimed after 9 seconds away."""
    return servers(**SHORT_WAITS)


WIDTHS = (1100, 360)


def at_width(pages, width: int) -> None:
    for page in pages:
        page.set_viewport_size({"width": width, "height": 900})


def test_a_reload_is_never_shown_away_and_the_claim_panel_says_the_real_wait(
    slow_claims, new_page, artifacts
):
    """Bob only reloads: Ada's page never shows him away. Then he closes his page: he is
    shown away once the grace for a reload has passed, and the claim panel says the real
    wait, counts it down and enables itself (Ada's page looked at at 1100 and at 360 px at
    each step of the one wait); Ada claims the win."""
    ada, bob = new_page(), new_page()
    url = create_match(ada, slow_claims.url, "last-bit-standing", name="Ada")
    join(bob, url, name="Bob")
    for page in (ada, bob):
        wait_for_socket(page)
    expect(ada.locator(".presence")).to_have_text("connected")
    ada.evaluate(AWAY_SEEN)
    bob.reload()
    wait_for_socket(bob)
    # Two moves after the reload: whatever the reload sent Ada's page came before them.
    move_button(ada, "last-bit-standing", "0").click()
    wait_for_ply(bob, 1)
    move_button(bob, "last-bit-standing", "1").click()
    wait_for_ply(ada, 2)
    expect(ada.locator(".presence")).to_have_text("connected")
    expect(ada.locator("#claim")).to_be_hidden()
    assert ada.evaluate("window.__shownAway") is False
    assert ada.console_errors == []
    bob.close()
    # Shown away once the grace for a reload has passed (games/presence.py GRACE).
    expect(ada.locator(".presence")).to_have_text("not connected", timeout=15_000)
    claim = ada.locator("#claim")
    expect(claim).to_be_visible()
    for width in WIDTHS:
        at_width((ada,), width)
        expect(claim).to_be_visible()
        expect(claim).to_contain_text(
            "Once they have been away for 9 seconds, you may end the game"
        )
    win = ada.get_by_role("button", name="Claim the win")
    for width in WIDTHS:
        at_width((ada,), width)
        if win.is_disabled():  # a busy machine may show the panel late: then it is enabled
            expect(claim).to_contain_text(re.compile(r"\(in [1-5] s\)"))
            ada.screenshot(path=str(artifacts / f"claim-countdown-{width}.png"), full_page=True)
    expect(win).to_be_enabled(timeout=15_000)
    for width in WIDTHS:
        at_width((ada,), width)
        expect(claim.locator("[data-wait-text]")).to_be_hidden()
        assert ada.evaluate("document.documentElement.scrollWidth") <= width
    at_width((ada,), 1100)
    ada.screenshot(path=str(artifacts / "claim.png"), full_page=True)
    win.click()
    expect(status(ada)).to_have_text("You win!")
    expect(ada.locator("#result")).to_have_text(
        "Player 2 (Bob) left the game: Player 1 (Ada) claimed the win."
    )
    assert Match.objects.get().ending == "abandoned"


@pytest.fixture
def quick_aborts(transactional_db, servers):
    """A daphne on which a player may abort after 4 s without a first move, and the server
    aborts at 8 s."""
    return servers(**SHORT_WAITS)


def test_abort_counts_down_then_enables_itself(quick_aborts, new_page, artifacts):
    ada, bob = new_page(), new_page(viewport=NARROW)
    url = create_match(ada, quick_aborts.url, "last-bit-standing", name="Ada", clock="1+1")
    join(bob, url, name="Bob")
    for page in (ada, bob):
        wait_for_socket(page)
    abort = bob.get_by_role("button", name="Abort")
    expect(bob.locator("#abort")).to_contain_text(re.compile(r"you may abort in [1-4] s"))
    expect(abort).to_be_disabled()
    bob.screenshot(path=str(artifacts / "abort-countdown-360.png"), full_page=True)
    expect(abort).to_be_enabled(timeout=10_000)
    expect(bob.locator("#abort [data-wait-text]")).to_be_hidden()
    bob.on("dialog", lambda dialog: dialog.accept())
    abort.click()
    for page in (ada, bob):
        expect(status(page)).to_have_text("Aborted: no result")
    expect(ada.locator("#result")).to_have_text(
        "Aborted by Player 2 (Bob) before both players had moved: no result."
    )
    assert Match.objects.get().ended_by == 2


def test_the_server_aborts_a_first_move_that_never_came_on_every_page(
    quick_aborts, new_page, artifacts
):
    """One wait for the server's abort; every page looked at at 1100 and at 360 px before
    and after it."""
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, quick_aborts.url, "last-bit-standing", name="Ada", clock="1+1")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    for width in WIDTHS:
        at_width((eve,), width)
        expect(eve.locator("#first-move")).to_contain_text(
            re.compile(r"Player 1 \(Ada\) has \d s to make a first move, or the game is aborted")
        )
        eve.screenshot(path=str(artifacts / f"first-move-{width}.png"), full_page=True)
    for page in (ada, bob, eve):  # nobody presses anything
        expect(status(page)).to_have_text("Aborted: no result", timeout=20_000)
    for width in WIDTHS:
        at_width((ada, bob, eve), width)
        for page in (ada, bob, eve):
            expect(status(page)).to_have_text("Aborted: no result")
            expect(page.locator("#result")).to_have_text(
                "Aborted: a first move did not come in time, so the game has no result."
            )
            expect(page.locator("#first-move")).to_have_count(0)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        ada.screenshot(path=str(artifacts / f"aborted-{width}.png"), full_page=True)
    ended = Match.objects.get()
    assert (ended.ending, ended.winner, ended.ended_by) == ("aborted", None, None)


def test_without_javascript_abort_says_when_it_may_be_pressed(quick_aborts, new_page):
    ada = new_page(java_script_enabled=False)
    url = create_match(ada, quick_aborts.url, "last-bit-standing", name="Ada", clock="1+1")
    join(new_page(), url, name="Bob")
    ada.reload()
    expect(ada.locator("#abort")).to_contain_text(re.compile(r"you may abort in [1-4] s"))
    expect(ada.get_by_role("button", name="Abort")).to_be_disabled()
    expect(ada.locator("#first-move")).to_contain_text("s to make a first move")


@pytest.mark.parametrize("daphne", [{"BITSITE_ABORT_SECONDS": "4"}], indirect=True)
def test_the_servers_abort_survives_a_restart(daphne, new_page):
    ada, bob = new_page(), new_page()
    url = create_match(ada, daphne.url, "last-bit-standing", name="Ada", clock="1+1")
    join(bob, url, name="Bob")
    for page in (ada, bob):
        wait_for_socket(page)
    daphne.kill()  # the timer this process held is gone with it
    daphne.start()  # it reads the match's moment again from the database
    for page in (ada, bob):
        expect(status(page)).to_have_text("Aborted: no result", timeout=30_000)
    assert Match.objects.get().ending == "aborted"


def test_resigning_before_both_moved_aborts_the_game_on_every_page(live_server_url, new_page):
    """Issue 22: a game in which a player has not moved counts for nothing. Resign says so
    before it is pressed, and every page shows an aborted game, with no winner (looked at
    at 360 and at 1100 px)."""
    ada, bob, eve = (new_page(viewport={"width": 360, "height": 800}) for _ in range(3))
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    move_button(ada, "bit-flip", "3").click()
    wait_for_ply(bob, 1)
    asked = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.accept()

    bob.once("dialog", answer)
    bob.get_by_role("button", name="Resign").click()
    for width in (360, 1100):
        for page in (ada, bob, eve):
            page.set_viewport_size({"width": width, "height": 800})
            expect(page.locator("#result")).to_have_text(
                "Aborted by Player 2 (Bob) before both players had moved: no result."
            )
            expect(status(page)).to_have_text("Aborted: no result")
    assert asked == [
        "Leave this game? A player has not moved yet, so it is aborted, with no result."
    ]
    match = Match.objects.get()
    assert (match.ending, match.winner) == ("aborted", None)
    for page in (ada, bob, eve):
        assert page.console_errors == []
