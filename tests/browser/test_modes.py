"""Against the computer, on one device (by keyboard), resign and rematch, and without JavaScript.
(The last move marked, described and announced in each game: tests/browser/test_feel.py.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Match
from tests.browser.helpers import (
    SCRIPTS,
    Actions,
    create_match,
    join,
    move_button,
    open_typed,
    status,
    wait_for_ply,
    wait_for_socket,
)

pytestmark = pytest.mark.browser


def test_against_the_computer_with_hints(live_server_url, new_page, artifacts):
    page = new_page()
    create_match(
        page, live_server_url, "bit-flip", opponent="computer", level="perfect", name="Ada"
    )
    expect(status(page)).to_have_text("Your turn")
    page.get_by_role("button", name="Show hints").click()
    hinted = page.get_by_role("button", name="Flip bits 4 and 5 (hint: winning)")
    expect(hinted).to_be_visible()
    expect(page.locator("#hint-line")).to_contain_text("Player 1 wins with perfect play")
    page.screenshot(path=str(artifacts / "computer-hints.png"), full_page=True)
    # Follow the hints to the end: the perfect computer cannot escape a won game.
    while Match.objects.get().status != Match.Status.FINISHED:
        expect(status(page)).to_have_text("Your turn")
        ply = int(page.locator("#board").get_attribute("data-ply"))
        page.locator("#position button.hint, #position .btn.hint").first.click()
        wait_for_ply(page, ply + 1)
        if Match.objects.get().status != Match.Status.FINISHED:
            wait_for_ply(page, ply + 2)  # the computer's reply, without a reload
    expect(status(page)).to_have_text("You win!")
    match = Match.objects.get()
    assert match.winner == 1
    assert [m.seat for m in match.moves.all()][:2] == [1, 2]
    page.screenshot(path=str(artifacts / "computer-won.png"), full_page=True)
    assert page.console_errors == []


def test_the_computer_moving_first(live_server_url, new_page):
    page = new_page()
    create_match(
        page,
        live_server_url,
        "bit-flip-divisor",
        opponent="computer",
        first="opponent",
        level="random",
    )
    expect(status(page)).to_have_text("Your turn")
    assert page.locator("#board").get_attribute("data-ply") == "1"
    expect(page.locator(".history li")).to_have_count(1)


def test_same_device_by_keyboard_alone(live_server_url, new_page, artifacts):
    slug = "bit-flip-divisor"
    moves, winner = SCRIPTS[slug]
    page = new_page(viewport={"width": 360, "height": 780})
    create_match(page, live_server_url, slug, opponent="hotseat", name="Ada", opponent_name="Bob")
    wait_for_socket(page)
    for ply, move in enumerate(moves, start=1):
        player = "Player 1 (Ada)" if ply % 2 else "Player 2 (Bob)"
        expect(status(page)).to_have_text(f"{player}: your turn")
        target = move_button(page, slug, move)
        page.locator("body").focus()
        for _ in range(80):  # Tab through the page to the bit, as a keyboard user would
            page.keyboard.press("Tab")
            if target.evaluate("el => el === document.activeElement"):
                break
        else:
            pytest.fail(f"Tab never reached the button for {move}")
        outline = target.evaluate("el => getComputedStyle(el).outlineStyle")
        assert outline != "none"  # focus is visible
        if ply == 1:
            page.screenshot(path=str(artifacts / "hotseat-focus.png"))
        page.keyboard.press("Enter")
        wait_for_ply(page, ply)
    expect(status(page)).to_have_text(f"Player {winner} (Ada) wins!")
    assert page.locator("#status").get_attribute("aria-live") == "polite"
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(artifacts / "hotseat-finished.png"), full_page=True)


def test_resign_then_rematch_takes_both_players_there(live_server_url, new_page, artifacts):
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "last-bit-standing", name="Ada")
    join(bob, url, name="Bob")
    wait_for_socket(ada)
    move_button(ada, "last-bit-standing", "0").click()
    wait_for_ply(bob, 1)
    move_button(bob, "last-bit-standing", "1").click()  # both moved: a resignation counts
    wait_for_ply(ada, 2)
    ada.once("dialog", lambda dialog: dialog.accept())
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.get_by_role("button", name="Resign").click()
    expect(status(bob)).to_contain_text("You lose")
    expect(status(ada)).to_have_text("You win!")
    expect(ada.locator("#result")).to_have_text("Player 2 (Bob) resigned.")
    ada.get_by_role("button", name="Rematch").click()
    ada.wait_for_url(lambda u: u != url)
    bob.wait_for_url(ada.url)  # taken there by the push
    rematch = Match.objects.exclude(public_id=url.rstrip("/").split("/")[-1]).get()
    assert rematch.first_seat == 2
    wait_for_socket(bob)
    expect(status(bob)).to_have_text("Your turn")  # Bob (seat 2) moves first now
    expect(status(ada)).to_have_text("Waiting for Player 1 (Bob)")
    bob.screenshot(path=str(artifacts / "rematch.png"), full_page=True)


def test_every_game_plays_to_its_end_without_javascript(live_server_url, new_page, artifacts):
    """Plain forms and full pages, a whole game of each, one after another on one page: the
    new-match page, every move, the end and its links. In Last Digit Standing (its players
    left unnamed), a typed illegal move is refused with a clear message, and changes
    nothing."""
    page = new_page(java_script_enabled=False)
    sent = Actions(page)
    # Last Digit Standing first: the new-match page fills in the name given last time.
    for slug in sorted(SCRIPTS, key=lambda slug: slug != "last-digit-standing"):
        moves, winner = SCRIPTS[slug]
        sent.posts.clear()
        typed = slug == "last-digit-standing"
        names = {} if typed else {"name": "Ada", "opponent_name": "Bob"}
        create_match(page, live_server_url, slug, opponent="hotseat", **names)
        assert page.locator("html").get_attribute("data-live") is None  # no script ran
        for ply, move in enumerate(moves, start=1):
            move_button(page, slug, move).click()
            expect(page.locator("#board")).to_have_attribute("data-ply", str(ply))
            if typed and ply == 1:
                open_typed(page)  # a disclosure, closed by default: native, no script needed
                page.fill("#typed-move", "4")
                page.get_by_role("button", name="Play").click()
                expect(page.locator(".flash")).to_contain_text(
                    "4 is neither a divisor nor a multiple of 3"
                )
                assert page.locator("#board").get_attribute("data-ply") == "1"
        # Every move a POST of its form (no socket without JavaScript: games/actions.py),
        # the refused one too.
        posted = [path.rsplit("/", 1)[1] for path in sent.posts].count("move")
        assert posted == len(moves) + typed, slug
        assert sent.frames == []
        expect(status(page)).to_contain_text("wins")
        if typed:
            expect(status(page)).to_have_text(f"Player {winner} wins!")
        match = Match.objects.get(public_id=page.url.rstrip("/").rsplit("/", 1)[1])
        assert list(match.moves.values_list("text", flat=True)) == moves
        assert match.winner == winner
        if typed:
            page.screenshot(path=str(artifacts / "no-javascript.png"), full_page=True)
        expect(page.get_by_role("link", name="Replay")).to_be_visible()
        page.get_by_role("link", name="Replay").click()
        expect(page.locator("#replay")).to_be_visible()


def test_refusals_and_stale_boards_in_the_browser(live_server_url, new_page):
    page = new_page()
    url = create_match(page, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(page)
    notice = page.locator("#notice")
    open_typed(page)
    page.fill("#typed-move", "1 3")
    page.get_by_role("button", name="Play").click()
    expect(notice).to_contain_text("Bits 1 and 3 are not adjacent")
    assert page.locator("#board").get_attribute("data-ply") == "0"
    move_button(page, "bit-flip", "1").click()
    wait_for_ply(page, 1)
    expect(notice).to_be_empty()
    # A stale submission (a double click, an old tab): refused, nothing changes.
    page.evaluate(
        "(url) => htmx.ajax('POST', url + 'move', {source: '#board', target: '#board',"
        " swap: 'outerHTML', values: {move: '2', ply: '0'}})",
        url,
    )
    expect(notice).to_contain_text("That board was out of date")
    assert page.locator("#board").get_attribute("data-ply") == "1"
    assert list(Match.objects.get().moves.values_list("text", flat=True)) == ["1"]
    # A push older than the board on the page is dropped; a newer one is shown.
    push = (
        "(html) => { const ws = htmx.find('[ws-connect]')['htmx-internal-data'].webSocket;"
        " ws.socket.dispatchEvent(new MessageEvent('message', {data: html})); }"
    )
    # Every text the board shows from now on is noted: pushes are handled in order, so
    # once the newer one shows, the older one would have shown before it.
    page.evaluate(
        "() => { window.__boards = [];"
        " new MutationObserver(() => window.__boards.push("
        "document.querySelector('#board')?.textContent || ''))"
        ".observe(document.body, {childList: true, subtree: true, characterData: true}); }"
    )
    old = '<section id="board" data-version="0" data-ply="0">STALE BOARD</section>'
    page.evaluate(push, old)
    new = '<section id="board" data-version="99" data-ply="9">NEWER BOARD</section>'
    page.evaluate(push, new)
    expect(page.locator("#board")).to_contain_text("NEWER BOARD")
    shown = page.evaluate("() => window.__boards")
    assert shown and not [text for text in shown if "STALE BOARD" in text]
    # Chromium logs every 4xx response: the stale POST above is the only error (the
    # illegal move went as a frame on the socket, refused in its answer).
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 409 (Conflict)",
    ]
