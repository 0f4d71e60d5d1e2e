"""Every answer stays until read: a notice (a refusal, the computer's answer to a draw
offer, a declined offer told to its offerer), the page's messages ("You joined ...") and a
"Copied!" stay on the page, whatever boards arrive, until that person acts again; a
notice is said to screen readers (the live region #notice), once."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    Actions,
    board_ply,
    create_match,
    join,
    move_button,
    open_typed,
    play,
    wait_for_ply,
    wait_for_socket,
)

pytestmark = pytest.mark.browser

COMPUTER = re.compile(r"/m/[\w-]+/computer$")
# The computer's answer (its words are tests/test_notices.py's: any of them will do here).
DECLINES = re.compile(r"The computer declines: .* can still force a win\.")
LONG_NAME = "W" * 40  # one unbroken 40-character name: the worst case for layout
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= innerWidth"
# Narrow first: the first offer and its answer are pressed at 360 px, the second at 1100.
WIDTHS = (360, 1100)


def at_width(pages, width: int) -> None:
    for page in pages:
        page.set_viewport_size({"width": width, "height": 800})


# Counts, in the page, the socket's boards as they arrive (before htmx handles them: a
# stale one is counted and dropped), and the notices put into #notice.
COUNT = """() => {
  window.__boardsIn = 0; window.__noticesShown = 0;
  document.addEventListener("htmx:wsBeforeMessage", e => {
    if (/id="board"|^<!--delta:/.test(e.detail.message)) window.__boardsIn++;  // or what changed
  });
  const said = r => [...r.addedNodes].some(n => n.textContent.trim());
  new MutationObserver(records => { if (records.some(said)) window.__noticesShown++; })
    .observe(document.getElementById("notice"), {childList: true});
}"""
ASK_FOR_THE_BOARD = "() => document.dispatchEvent(new Event('visibilitychange'))"


def pump_until(page, condition, timeout: float = 15.0) -> None:
    """Let Playwright handle what it was sent (a route's handler runs then), one animation
    frame of the page at a time, until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still not so after {timeout} s"
        page.evaluate("() => new Promise(requestAnimationFrame)")


class Requests:
    """Requests to a route, held until released; after the release, the route's requests
    pass."""

    def __init__(self):
        self.held: list = []
        self.holding = True

    def handler(self, route):
        if self.holding:
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        self.holding = False
        for route in self.held:
            route.continue_()
        self.held = []


def test_the_computers_answer_to_a_draw_offer_stays_until_the_next_move(
    live_server_url, new_page, artifacts
):
    """The player offers a draw (a frame on the socket) as the computer is about to move:
    the answer is the computer's decline. Then the computer moves (its answer and its
    push): the decline stays on the page, said once, until the player's next move. Before,
    the computer's move erased it (the page cleared its notice when the board's version
    moved on, and the computer's answer sent an empty one)."""
    page = new_page()
    sent = Actions(page)
    create_match(page, live_server_url, "bit-flip", opponent="computer", level="perfect")
    wait_for_socket(page)
    computer = Requests()
    page.route(COMPUTER, computer.handler)
    play(page, "bit-flip", "1")
    pump_until(page, lambda: computer.held)  # the computer's turn: its request waits
    page.evaluate(COUNT)
    notice = page.locator("#notice")
    expect(notice).to_have_attribute("aria-live", "assertive")
    page.get_by_role("button", name="Offer a draw").click()
    expect(notice).to_have_text(DECLINES)
    expect(page.locator("#draw-offer")).to_have_count(0)
    assert {"type": "offer_draw"} in sent.frames and sent.posts[-1].endswith("/computer")
    # The computer moves: its answer, its push (the version moves on).
    with page.expect_response(COMPUTER):
        computer.release()
    wait_for_ply(page, 2)
    page.wait_for_function("() => window.__boardsIn >= 2")
    expect(notice).to_have_text(DECLINES)
    assert page.evaluate("window.__noticesShown") == 1  # said once
    page.screenshot(path=str(artifacts / "notice-computer-declines.png"))
    # The player's next move: the notice has been read.
    page.locator("#board button[name=move]:not([disabled])").first.click()
    expect(notice).to_be_empty()
    page.wait_for_function("() => +document.getElementById('board').dataset.ply >= 3")
    assert page.console_errors == []


def test_a_refusal_stays_while_the_opponent_acts(live_server_url, new_page):
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    wait_for_socket(ada)
    wait_for_socket(bob)
    notice = ada.locator("#notice")
    open_typed(ada)
    ada.fill("#typed-move", "1 3")
    ada.get_by_role("button", name="Play").click()
    expect(notice).to_contain_text("Bits 1 and 3 are not adjacent")
    # Bob offers a draw: Ada's board moves on, her notice stays.
    bob.get_by_role("button", name="Offer a draw").click()
    expect(ada.locator("#draw-offer")).to_contain_text("Player 2 (Bob) offers a draw.")
    expect(notice).to_contain_text("Bits 1 and 3 are not adjacent")
    # Her next action reads it; Bob is told she declined.
    ada.get_by_role("button", name="Decline").click()
    expect(notice).to_be_empty()
    expect(bob.locator("#notice")).to_have_text("Player 1 (Ada) declines your draw offer.")
    # Refused by its frame's answer, not by a 422 (which Chromium would log).
    assert ada.console_errors == []
    assert bob.console_errors == []


def test_a_declined_offer_is_told_to_the_offerer_until_she_acts(
    live_server_url, new_page, artifacts
):
    """Bob's name is 40 unbroken characters; every page is looked at at 360 and at 1100 px
    at each step."""
    ada, bob, eve = (new_page({"width": 360, "height": 800}) for _ in range(3))
    pages = (ada, bob, eve)
    url = create_match(ada, live_server_url, "last-bit-standing", name="Ada")
    join(bob, url, name=LONG_NAME)
    eve.goto(url)
    for page in pages:
        wait_for_socket(page)
    notice = ada.locator("#notice")
    play(ada, "last-bit-standing", "0")
    # Declined by an answer.
    ada.get_by_role("button", name="Offer a draw").click()
    bob.get_by_role("button", name="Decline").click()
    declined = f"Player 2 ({LONG_NAME}) declines your draw offer."
    expect(notice).to_have_text(declined)
    expect(ada.locator("#draw-offer")).to_have_count(0)
    # It stays while the opponent moves (the board moves on), and is read at her move.
    play(bob, "last-bit-standing", "1")
    wait_for_ply(ada, 2)
    for width in WIDTHS:
        at_width(pages, width)
        expect(notice).to_have_text(declined)
        assert ada.evaluate(NO_SIDEWAYS_SCROLL)
        ada.screenshot(path=str(artifacts / f"notice-declined-{width}.png"), full_page=True)
    play(ada, "last-bit-standing", "1")
    expect(notice).to_be_empty()
    # Declined by a move.
    ada.get_by_role("button", name="Offer a draw").click()
    expect(bob.locator("#draw-offer")).to_be_visible()
    play(bob, "last-bit-standing", "0")
    wait_for_ply(ada, 4)
    for width in WIDTHS:
        at_width(pages, width)
        expect(notice).to_have_text(
            f"Player 2 ({LONG_NAME}) played on: your draw offer is declined."
        )
        assert ada.evaluate(NO_SIDEWAYS_SCROLL)
        # Told to the offerer only.
        for page in (bob, eve):
            expect(page.locator("#notice")).to_be_empty()
    for page in pages:
        assert page.console_errors == []


def test_copied_stays_when_a_board_arrives_after_the_click(live_server_url, new_page):
    ada = new_page()
    ada.context.grant_permissions(["clipboard-read", "clipboard-write"])
    create_match(ada, live_server_url, "bit-flip", name="Ada")
    wait_for_socket(ada)
    ada.evaluate(COUNT)
    copy = ada.get_by_role("button", name=re.compile("^Cop"))
    copy.click()
    expect(copy).to_have_text("Copied!")
    ada.evaluate(ASK_FOR_THE_BOARD)  # the same board, drawn again by the socket
    ada.wait_for_function("() => window.__boardsIn >= 1")
    expect(copy).to_have_text("Copied!")
    assert ada.console_errors == []


def test_you_joined_stays_until_the_joiners_first_action(live_server_url, new_page):
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    wait_for_socket(ada)
    wait_for_socket(bob)
    flash = bob.locator(".flash")
    play(ada, "bit-flip", "1")
    wait_for_ply(bob, 1)  # a push: the message stays
    expect(flash).to_contain_text("You joined: you are Player 2 (Bob).")
    ply = board_ply(bob)
    move_button(bob, "bit-flip", "3").click()
    expect(flash).to_have_count(0)
    wait_for_ply(bob, ply + 1)
    assert ada.console_errors == [] and bob.console_errors == []
