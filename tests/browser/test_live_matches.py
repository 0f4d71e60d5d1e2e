"""Whole matches between separate browsers, live: each sees the other's moves without reloading.

The whole match of each game is also where its match pages' states are audited with axe
(tests/browser/test_accessibility.py's ``Audit``) and its moves' pushes are weighed on the
wire (tests/browser/test_weight.py's ``RawSocket``): one game played, not three."""

from __future__ import annotations

import json
import re
import statistics
import time

import pytest
from playwright.sync_api import Page, expect

from bitsite import runtime
from games.models import Match, Move
from tests.browser.helpers import (
    SCRIPTS,
    Actions,
    board_ply,
    create_match,
    join,
    mark_page,
    move_button,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)
from tests.browser.test_accessibility import Audit
from tests.browser.test_weight import PUSH_LIMIT, RawSocket

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1100, "height": 900}  # new_page's own


def audit_at_desktop(audit: Audit, page: Page, what: str) -> None:
    """axe on ``page`` at 1100 px (the phone's page is audited at the desktop's size, as
    every match page is), then back to its own size."""
    size = page.viewport_size
    page.set_viewport_size(DESKTOP)
    audit(page, what)
    page.set_viewport_size(size)


@pytest.mark.parametrize("slug", list(SCRIPTS))
def test_a_whole_live_match_with_a_spectator(slug, live_server_url, new_page, artifacts):
    """Ada creates, Bob (on a phone) joins, Eve watches; each sees every move live, each
    move went as a frame. Along the way, every state of the match's pages passes axe in
    both themes (at 1100 px; the last, a match against the computer with its hints, on
    Eve's page once the match is over), and a raw socket of Bob's seat counts each move's
    push on the wire (under 2 KB, deflated: tests/browser/test_weight.py's RawSocket).
    Every push after a socket's first carries only what changed on the board (games/
    boards.py, delta): each page swaps it in without asking for the whole board, and shows
    what a page opened afresh shows."""
    moves, winner = SCRIPTS[slug]
    audit = Audit()
    ada, bob, eve = new_page(), new_page(viewport=PHONE), new_page()
    frames = {name: count_frames(page) for name, page in (("ada", ada), ("bob", bob), ("eve", eve))}
    sent = {1: Actions(ada), 2: Actions(bob)}
    url = create_match(ada, live_server_url, slug, name="Ada")
    expect(ada.locator("#share-url")).to_have_value(url)
    audit(ada, "waiting for an opponent (creator)")
    bob.goto(url)
    audit_at_desktop(audit, bob, "a match to join (visitor)")
    bob.fill("#join-name", "Bob")  # joined from the page as it came (helpers.join loads it)
    bob.get_by_role("button", name="Join as the second player").click()
    expect(bob.locator(".flash")).to_contain_text("You joined")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
        mark_page(page)
    expect(status(ada)).to_have_text("Your turn")
    expect(status(bob)).to_have_text("Waiting for Player 1 (Ada)")
    expect(ada.locator(".presence")).to_have_text("connected")
    audit(ada, "your turn")
    audit_at_desktop(audit, bob, "the opponent's turn")
    audit(eve, "spectator")

    cookie = "; ".join(f"{c['name']}={c['value']}" for c in bob.context.cookies())
    raw = RawSocket(live_server_url, f"/ws/m/{url.rstrip('/').rsplit('/', 1)[1]}/", cookie)
    deflate = runtime.enabled("deflate")  # else plain frames (BITSITE_HOOKS)
    try:
        assert raw.deflate is deflate, raw.handshake
        raw.wait_for(r'id="board"[^>]*data-ply="0"')  # the snapshot
        players = {1: ada, 2: bob}
        latencies, sizes, boards = [], [], []
        for ply, move in enumerate(moves, start=1):
            mover, other = players[1 + (ply - 1) % 2], players[1 + ply % 2]
            expect(status(mover)).to_have_text("Your turn")
            move_button(mover, slug, move).click()
            wait_for_ply(mover, ply)
            latencies.append(wait_for_ply(other, ply, timeout=5000))
            wait_for_ply(eve, ply)
            if ply < len(moves):  # the last move's push ends the game: not counted
                wire, text = raw.wait_for(rf'id="board(?:-state)?"[^>]*data-ply="{ply}"')
                if deflate:
                    assert len(text.encode()) > wire  # it came compressed
                else:
                    assert wire >= len(text.encode())
                sizes.append((wire, len(text.encode())))
                # The raw socket's first push is a whole board (its first board was drawn
                # for it alone); every later one, what changed since the one before.
                assert text.startswith("<!--delta:") == (ply > 1), text[:80]
                boards.append(len(text.encode()) if ply == 1 else None)
            if ply == len(moves) - 1:  # a page opened now shows what the live pages show
                fresh = new_page()
                fresh.goto(url)
                wait_for_ply(fresh, ply)
                for page in (eve,):
                    assert board_seen(page) == board_seen(fresh)
            if ply == 1:
                for name, page in (("p1", ada), ("p2", bob), ("spectator", eve)):
                    page.screenshot(path=str(artifacts / f"live-{slug}-{name}.png"), full_page=True)
    finally:
        raw.close()
    print(f"{slug}: a move's push on the wire / as text: {sizes}")
    if deflate:
        assert max(wire for wire, _ in sizes) < PUSH_LIMIT, sizes
    if len(sizes) > 1:  # what changed is smaller than the whole board it was drawn from
        assert max(text for _, text in sizes[1:]) < boards[0], (sizes, boards[0])
    # Each page swapped in every push of what changed it was sent; Eve's, which never
    # comes to the front, never asked for the whole board.
    for name, page in (("ada", ada), ("bob", bob), ("eve", eve)):
        assert deltas_shown(page) == frames[name]["deltas"], (name, frames)
    assert frames["eve"]["syncs"] == 0 and frames["eve"]["deltas"] >= len(moves) - 1, frames

    for page in (ada, bob, eve):
        assert was_not_reloaded(page)
        expect(page.locator("#result")).to_be_visible()
    winner_page, loser_page = players[winner], players[3 - winner]
    expect(status(winner_page)).to_have_text("You win!")
    expect(status(loser_page)).to_contain_text("You lose")
    expect(status(eve)).to_contain_text(f"Player {winner}")
    eve.screenshot(path=str(artifacts / f"live-{slug}-finished.png"), full_page=True)

    match = Match.objects.get()
    assert match.winner == winner
    assert list(Move.objects.filter(match=match).values_list("text", flat=True)) == moves
    # Every move went as a frame on the match's socket, none as a POST (games/actions.py).
    assert sent[1].moves() == moves[0::2] and sent[2].moves() == moves[1::2]
    assert not any(p.endswith("/move") for a in sent.values() for p in a.posts)
    (artifacts / f"live-{slug}-latency.json").write_text(json.dumps(latencies))
    # The opponent's board follows within a second (median over the match; the
    # 5 s wait above only keeps a loaded CI machine from failing on one slow push).
    assert statistics.median(latencies) < 1.0, latencies
    for page in (ada, bob, eve):
        assert page.console_errors == []
    audit(ada, "finished (player)")
    audit(eve, "finished (spectator)")

    # Eve, who holds no seat, plays the computer, with the hints shown.
    create_match(eve, live_server_url, slug, opponent="computer", level="perfect", name="Cy")
    eve.get_by_role("button", name="Show hints").click()
    expect(eve.locator("#hint-line")).to_be_visible()
    audit(eve, "against the computer, hints shown")
    audit.verify(at_least=2 * 8)


# Counts, in the page, the pushes of what changed that it swapped in (htmx's websocket
# extension fires wsAfterMessage only for a message it swapped).
COUNT_SHOWN = """
window.__deltasShown = 0;
document.addEventListener("htmx:wsAfterMessage", e => {
  if (e.detail.message.startsWith("<!--delta:")) window.__deltasShown++;
});
"""


def deltas_shown(page: Page) -> int:
    return page.evaluate("window.__deltasShown")


def count_frames(page: Page) -> dict[str, int]:
    """Counts, kept up to date, of the match socket's frames on ``page``: pushes of what
    changed received, and requests for the whole board sent (a page also asks when it
    comes back into view: a tab brought to the front for a click)."""
    counted = {"deltas": 0, "syncs": 0}
    page.add_init_script(COUNT_SHOWN)

    def received(payload) -> None:
        counted["deltas"] += str(payload).startswith("<!--delta:")

    def sent(payload) -> None:
        counted["syncs"] += '"sync"' in str(payload)

    def watch(ws) -> None:
        if "/ws/m/" in ws.url:
            ws.on("framereceived", received)
            ws.on("framesent", sent)

    page.on("websocket", watch)
    return counted


def board_seen(page: Page) -> tuple[str, str, str]:
    """What the board shows: its words, its position's markup, and its state."""
    board = page.locator("#board")
    return (
        board.inner_text(),
        page.locator("#position").inner_html(),
        f"{board.get_attribute('data-version')}/{board.get_attribute('data-ply')}",
    )


def test_a_page_that_missed_a_version_asks_for_the_whole_board(live_server_url, new_page):
    """What changed fits only the board it was drawn against: a page showing another version
    (as if a push had been lost) swaps nothing in, asks for the whole board once, and shows
    what a page opened afresh shows. Pages that missed nothing never ask."""
    slug = "last-digit-standing"
    moves, _ = SCRIPTS[slug]
    ada, bob, eve = new_page(), new_page(), new_page()
    frames = {name: count_frames(page) for name, page in (("bob", bob), ("eve", eve))}
    url = create_match(ada, live_server_url, slug, name="Ada")
    join(bob, url, name="Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    players = {1: ada, 2: bob}
    for ply, move in enumerate(moves[:3], start=1):
        move_button(players[1 + (ply - 1) % 2], slug, move).click()
        wait_for_ply(eve, ply)
    assert frames["eve"] == {"deltas": 2, "syncs": 0}, frames  # the first push came whole
    assert deltas_shown(eve) == 2
    # Eve's page now believes it shows the version before: the next push does not fit it.
    shown = int(eve.locator("#board").get_attribute("data-version"))
    eve.evaluate(f"document.getElementById('board').setAttribute('data-version', '{shown - 1}')")
    move_button(bob, slug, moves[3]).click()
    wait_for_ply(eve, 4)
    expect(eve.locator("#board")).to_have_attribute("data-version", str(shown + 1))
    assert frames["eve"]["syncs"] == 1, frames
    assert frames["eve"]["deltas"] == 3 and deltas_shown(eve) == 2, frames  # not swapped in
    fresh = new_page()
    fresh.goto(url)
    wait_for_ply(fresh, 4)
    assert board_seen(eve) == board_seen(fresh)
    # Bob's page missed nothing: it swapped in every push of what changed it was sent.
    assert frames["bob"]["deltas"] >= 1 and deltas_shown(bob) == frames["bob"]["deltas"], frames
    for page in (ada, bob, eve):
        assert page.console_errors == []


def test_presence_follows_the_opponent_closing_the_page(live_server_url, new_page):
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    wait_for_socket(bob)
    presence = ada.locator(".presence")
    expect(presence).to_have_text("connected")
    expect(bob.locator(".presence")).to_have_text("connected")
    bob.close()
    # Shown away once the grace for a reload has passed (games/presence.py GRACE).
    expect(presence).to_have_text("not connected", timeout=15_000)
    bob = new_page()
    bob.goto(url)
    # A fresh context is a different browser: it watches, and Ada's opponent stays away.
    wait_for_socket(bob)
    expect(presence).to_have_text("not connected")


def test_a_killed_server_loses_nothing_and_pages_reconnect(daphne, new_page, artifacts):
    slug = "last-digit-standing"
    moves, winner = SCRIPTS[slug]
    ada, bob = new_page(), new_page()
    url = create_match(ada, daphne.url, slug, name="Ada")
    join(bob, url, name="Bob")
    players = {1: ada, 2: bob}
    for page in (ada, bob):
        wait_for_socket(page)
        mark_page(page)

    def play(ply, move):
        mover, other = players[1 + (ply - 1) % 2], players[1 + ply % 2]
        move_button(mover, slug, move).click()
        wait_for_ply(mover, ply)
        wait_for_ply(other, ply, timeout=15000)

    for ply, move in enumerate(moves[:3], start=1):
        play(ply, move)
    daphne.kill()
    for page in (ada, bob):
        expect(page.locator("#conn")).to_be_visible()
        expect(page.locator("#conn")).to_have_text("Reconnecting…")
    ada.screenshot(path=str(artifacts / "reconnecting.png"), full_page=True)
    daphne.start()
    for page in (ada, bob):
        wait_for_socket(page, timeout=20000)
        expect(page.locator("#conn")).to_be_hidden()
        assert board_ply(page) == 3
        assert was_not_reloaded(page)
    expect(status(bob)).to_have_text("Your turn")
    for ply, move in enumerate(moves[3:], start=4):
        play(ply, move)
    match = Match.objects.get()
    assert match.winner == winner
    assert list(match.moves.values_list("text", flat=True)) == moves
    expect(status(players[winner])).to_have_text("You win!")


def test_a_server_that_closes_cleanly_is_reconnected_too(live_server_url, new_page):
    """The ws extension does not retry a close with code 1000; site.js does."""
    ada = new_page()
    create_match(ada, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(ada)
    ada.evaluate(
        "() => { const ws = htmx.find('[ws-connect]')['htmx-internal-data'].webSocket;"
        " ws.socket.close(1000); }"
    )
    expect(ada.locator("html")).to_have_attribute("data-live", "reconnecting")
    wait_for_socket(ada)
    # The reconnected socket delivers pushes again.
    move_button(ada, "bit-flip", "1").click()
    wait_for_ply(ada, 1)


@pytest.fixture
def capped_server(transactional_db, servers):
    """A daphne that lets one browser open at most 2 pages of a match."""
    return servers(BITSITE_SOCKETS_PER_MATCH="2")


def test_a_page_past_the_socket_cap_says_why_and_a_closed_tab_frees_its_place(
    capped_server, new_page, artifacts
):
    ada = new_page()
    url = create_match(ada, capped_server.url, "bit-flip", name="Ada")
    wait_for_socket(ada)
    second = ada.context.new_page()
    second.goto(url)
    wait_for_socket(second)
    third = ada.context.new_page()
    third.goto(url)
    expect(third.locator("#conn")).to_contain_text("open in too many tabs of this browser")
    expect(third.locator("html")).to_have_attribute("data-live", "refused-4409")
    third.screenshot(path=str(artifacts / "socket-cap.png"), full_page=True)
    second.close()
    # The server frees the closed tab's place once its connection has ended, a moment
    # later (longer on a busy machine); a reload before that is refused again with the
    # same message, and the player reloads again, as it says.
    html = third.locator("html")
    deadline = time.monotonic() + 30
    while True:
        third.reload()
        expect(html).to_have_attribute("data-live", re.compile(r"^(open|refused-4409)$"))
        if html.get_attribute("data-live") == "open" or time.monotonic() > deadline:
            break
    wait_for_socket(third)
    expect(third.locator("#conn")).to_be_hidden()


def test_a_name_typed_to_join_survives_a_board_pushed_meanwhile(live_server_url, new_page):
    """A socket's board replaces the page's: what the person was typing stays."""
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    bob.goto(url)
    wait_for_socket(bob)
    bob.fill("#join-name", "Bob")
    bob.evaluate("document.getElementById('board').dataset.old = 'yes'")
    bob.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # asks for the board
    expect(bob.locator("#board[data-old]")).to_have_count(0)  # a new board came
    expect(bob.locator("#join-name")).to_have_value("Bob")
    bob.get_by_role("button", name="Join as the second player").click()
    expect(bob.locator(".flash")).to_contain_text("you are Player 2 (Bob)")
