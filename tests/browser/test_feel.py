"""How a match feels in Chromium: focus kept on the board, move keys, the keys list, the
last move shown (marked, described, said to screen readers) and heard (with a remembered
mute), dark theme, and 360 px without sideways scrolling."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match
from games.presenters import presenter_for
from games.rules import get_game
from tests.browser.helpers import (
    SCRIPTS,
    board_ply,
    create_match,
    join,
    mark_page,
    move_button,
    open_typed,
    play,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)

pytestmark = pytest.mark.browser

LONG_NAME = "W" * 40  # one unbroken 40-character name: the worst case for layout
FOCUS_IN_BOARD = "() => document.getElementById('board').contains(document.activeElement)"


def focus_in_board(page) -> bool:
    return page.evaluate(FOCUS_IN_BOARD)


def moves_made(page):
    """The moves of the match ``page`` shows."""
    public_id = re.search(r"/m/([\w-]+)/", page.url).group(1)
    return list(Match.objects.get(public_id=public_id).moves.values_list("text", flat=True))


def test_focus_stays_on_the_board_and_the_last_move_is_marked_described_and_announced(
    live_server_url, new_page
):
    """In a match of each game, the same two people: the focus stays on the board after a
    click and after a push; the last move is marked, described, and said to screen readers,
    on both players' pages."""
    ada, bob = new_page(), new_page()
    for slug, (moves, _) in SCRIPTS.items():
        url = create_match(ada, live_server_url, slug, name="Ada")
        join(bob, url, name="Bob")
        wait_for_socket(ada)
        wait_for_socket(bob)
        for page in (ada, bob):
            expect(page.locator("#board")).to_have_attribute("data-last-move", "")
            expect(page.locator("#last-move")).to_be_empty()
        play(ada, slug, moves[0])
        assert focus_in_board(ada), slug
        wait_for_ply(bob, 1)
        play(bob, slug, moves[1])  # pushed to Ada, whose focus was on her board
        wait_for_ply(ada, 2)
        assert focus_in_board(ada), slug
        assert focus_in_board(bob), slug
        # Her turn again: a move key works straight away (the board has the focus).
        expect(ada.locator("#board button[name=move]").first).to_be_visible()
        game = get_game(slug)
        after = game.play(game.play(game.start(), moves[0]), moves[1])
        said = "Player 2 (Bob) " + presenter_for(game).describe(moves[1], after)
        for page in (ada, bob):
            board = page.locator("#board")
            expect(board).to_have_attribute("data-last-move", said)
            # The live region outside the board, updated out of band, says it.
            expect(page.locator("#last-move")).to_have_text(f"Last move: {said}.")
            assert page.locator("#last-move").get_attribute("aria-live") == "polite"
            expect(page.locator("#history li").last).to_have_text(said)
            expect(board.locator(".last").first).to_be_visible()
    assert ada.console_errors == [] and bob.console_errors == []


MOVE_KEYS = [
    ("last-bit-standing", ["1"], "1"),
    ("bitwise-battle", ["1"], "1"),
    ("last-digit-standing", ["7"], "7"),
    ("last-digit-standing", ["1", "2"], "12"),  # two digits make one number
]


def test_move_keys(live_server_url, new_page):
    """Depends on data-key on the move buttons (the helpers' contract). A match for each
    case, one after another on one page."""
    page = new_page()
    for slug, keys, move in MOVE_KEYS:
        options = {"highest": 12} if move == "12" else None
        create_match(page, live_server_url, slug, opponent="hotseat", options=options)
        wait_for_socket(page)
        for key in keys:
            page.keyboard.press(key)
        wait_for_ply(page, 1)
        assert moves_made(page) == [move]
        assert focus_in_board(page)
        if slug == "last-digit-standing" and move == "7":  # "1" waits for a second digit
            page.keyboard.press("1")
            wait_for_ply(page, 2)
            assert moves_made(page) == ["7", "1"]


def test_bit_flip_number_keys_and_a_key_for_pairs(live_server_url, new_page):
    """Issue 22: Bit Flip took no number keys, and its pairs were reached only by tabbing
    through every bit. Now 1-9, 0 for 10, two digits from 11; "p" and a bit's key flip the
    pair that starts there. The keys list says so."""
    page = new_page()
    create_match(page, live_server_url, "bit-flip", opponent="hotseat", options={"width": 12})
    wait_for_socket(page)
    page.keyboard.press("0")
    wait_for_ply(page, 1)
    page.keyboard.press("1")
    page.keyboard.press("2")
    wait_for_ply(page, 2)
    page.keyboard.press("p")  # the focus goes to the pairs
    expect(page.locator("#board .moves-choice button").first).to_be_focused()
    page.keyboard.press("3")
    wait_for_ply(page, 3)
    page.keyboard.press("7")
    wait_for_ply(page, 4)
    assert moves_made(page) == ["10", "12", "3 4", "7"]
    assert focus_in_board(page)
    page.keyboard.press("?")
    expect(page.locator("#keys-game")).to_contain_text("p, then a bit's key")
    assert page.console_errors == []


def test_arrows_and_enter_pick_a_bit(live_server_url, new_page):
    """A match of each game with bits, one after another on one page."""
    page = new_page()
    for slug in ("bit-flip", "bit-flip-divisor"):
        create_match(page, live_server_url, slug, opponent="hotseat")
        wait_for_socket(page)
        # Keys typed into a text box stay there.
        open_typed(page)
        page.focus("#typed-move")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("1")
        expect(page.locator("#typed-move")).to_have_value("1")
        page.fill("#typed-move", "")
        assert board_ply(page) == 0
        move_button(page, slug, "3").click()
        wait_for_ply(page, 1)
        # Bit 3 is gone from the moves: the focus went to the board's first move, bit 1.
        assert page.evaluate("document.activeElement.value") == "1"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.activeElement.value") == "2"
        page.keyboard.press("End")
        page.keyboard.press("Home")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        wait_for_ply(page, 2)
        assert moves_made(page) == ["3", "2"]
        assert focus_in_board(page)


def test_the_keys_list(live_server_url, new_page):
    page = new_page()
    create_match(page, live_server_url, "last-bit-standing", opponent="hotseat")
    wait_for_socket(page)
    dialog = page.locator("#keys-dialog")
    expect(dialog).to_be_hidden()
    page.keyboard.press("?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Escape")
    expect(dialog).to_contain_text("Tab, Shift+Tab")
    if page.locator("#board [data-keys-help]").count():  # the game's own keys (helper "present")
        expect(page.locator("#keys-game dt").first).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Keys (?)").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    assert page.console_errors == []


def test_the_last_move_is_shown_heard_and_muted(live_server_url, new_page):
    """.last and data-last-move come from helper "present"'s board markup. Issue 22: muted,
    the button still read "Mute (m)"; its label now says what pressing it does (a label
    that changes carries no aria-pressed). Muted by "m" and by the button, each remembered
    across a reload."""
    slug = "bit-flip"
    page = new_page()
    create_match(page, live_server_url, slug, opponent="hotseat")
    wait_for_socket(page)
    mute = page.locator("#mute")
    expect(mute).to_have_text("Mute (m)")
    play(page, slug, "3")
    expect(page.locator("#board .last").first).to_be_visible()
    expect(page.locator("#board")).to_have_class(re.compile(r"\bmoved\b"))
    expect(page.locator("html")).to_have_attribute("data-sounds", "1")
    last_move = page.locator("#board").get_attribute("data-last-move")
    assert last_move
    expect(page.locator("#last-move")).to_have_text(f"Last move: {last_move}.")
    # "m" mutes; the choice survives a reload; a muted move makes no sound.
    page.keyboard.press("m")
    expect(mute).to_have_text("Unmute (m)")
    page.reload()
    expect(page.locator("#mute")).to_have_text("Unmute (m)")
    wait_for_socket(page)
    play(page, slug, "5")
    assert page.locator("html").get_attribute("data-sounds") is None
    page.get_by_role("button", name="Unmute (m)", exact=True).click()
    expect(page.locator("#mute")).to_have_text("Mute (m)")
    # The button mutes too, says what pressing it does now, and is remembered.
    page.get_by_role("button", name="Mute (m)", exact=True).click()
    unmute = page.get_by_role("button", name="Unmute (m)", exact=True)
    expect(unmute).to_be_visible()
    assert unmute.get_attribute("aria-pressed") is None
    page.reload()
    page.get_by_role("button", name="Unmute (m)", exact=True).click()
    expect(page.get_by_role("button", name="Mute (m)", exact=True)).to_be_visible()
    assert page.console_errors == []


def test_moves_animate_only_without_reduced_motion(live_server_url, new_page):
    page = new_page()
    page.emulate_media(reduced_motion="reduce")
    create_match(page, live_server_url, "last-bit-standing", opponent="hotseat")
    wait_for_socket(page)
    play(page, "last-bit-standing", "0")
    # A board re-sent with the same ply (a push after the answer) is not popped twice:
    # mark it as a new move's board to read the styles.
    page.evaluate("document.getElementById('board').classList.add('moved')")
    newest = page.locator("#history li").last
    assert newest.evaluate("el => getComputedStyle(el).animationName") == "none"
    page.emulate_media(reduced_motion="no-preference")
    assert newest.evaluate("el => getComputedStyle(el).animationName") == "glow"


def test_360_px_with_long_names_does_not_scroll_sideways(live_server_url, new_page, artifacts):
    """A whole game of each, one after another on one page, with its rules and replay pages;
    then the home page."""
    page = new_page(viewport={"width": 360, "height": 780})
    width = "document.documentElement.scrollWidth <= innerWidth"
    for slug, (moves, _) in SCRIPTS.items():
        create_match(
            page,
            live_server_url,
            slug,
            opponent="hotseat",
            name=LONG_NAME,
            opponent_name=LONG_NAME,
        )
        wait_for_socket(page)
        match_url = page.url
        for ply, move in enumerate(moves, start=1):
            play(page, slug, move)
            if ply == 2:
                assert page.evaluate(width), slug
                page.screenshot(path=str(artifacts / f"feel-360-{slug}.png"), full_page=True)
        assert page.evaluate(width), slug  # finished
        for path in (f"/games/{slug}/", f"{match_url}replay/"):
            page.goto(path if path.startswith("http") else live_server_url + path)
            assert page.evaluate(width), path
    # The home page: the same after each game (its lobby name field holds the long name).
    page.goto(live_server_url + "/")
    expect(page.get_by_label(re.compile(r"^Your name for Accept"))).to_have_value(LONG_NAME)
    assert page.evaluate(width), "/"
    assert page.console_errors == []


def test_touch_targets_and_no_mid_word_breaks(live_server_url, new_page):
    page = new_page(viewport={"width": 360, "height": 780})
    create_match(page, live_server_url, "bitwise-battle", opponent="hotseat", name=LONG_NAME)
    wait_for_socket(page)
    small = page.evaluate(
        """() => [...document.querySelectorAll('main button, main .btn')]
        .filter(el => el.offsetParent !== null)
        .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44).map(([t]) => t)"""
    )
    assert small == []
    # The facts are prose: their words wrap whole.
    broken = page.evaluate(
        """() => [...document.querySelectorAll('.facts dd')]
        .map(el => getComputedStyle(el).wordBreak).filter(w => w === 'break-all')"""
    )
    assert broken == []


def test_dark_theme(live_server_url, new_page, artifacts):
    page = new_page()
    page.emulate_media(color_scheme="dark")
    create_match(page, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(page)
    play(page, "bit-flip", "3")

    def lightness(selector, prop="backgroundColor"):
        rgb = page.eval_on_selector(selector, f"el => getComputedStyle(el).{prop}")
        r, g, b = (int(x) for x in re.findall(r"\d+", rgb)[:3])
        return (r * 299 + g * 587 + b * 114) / 1000

    assert lightness("body") < 60
    assert lightness(".panel") < 60
    assert lightness("body", "color") > 180
    page.screenshot(path=str(artifacts / "feel-dark.png"), full_page=True)


def test_moves_typed_into_the_box_one_after_another(live_server_url, new_page):
    """The "Or type it" box stays on the board, move after move, whatever swaps it (the
    answer to the move and the push of the same version): on one device, then against the
    computer, on one page."""
    slug = "last-bit-standing"
    page = new_page()
    for mode in ("hotseat", "computer"):
        create_match(page, live_server_url, slug, opponent=mode)
        wait_for_socket(page)
        for _ in range(4):
            ply = board_ply(page)
            expect(status(page)).to_contain_text(re.compile("your turn", re.I))
            match = Match.objects.get(public_id=page.url.rstrip("/").rsplit("/", 1)[1])
            pos = match.current
            move = (match.rules.safe_moves(pos) or match.rules.legal_moves(pos))[0]
            open_typed(page)
            page.fill("#typed-move", move)
            page.keyboard.press("Enter")
            wait_for_ply(page, ply + (1 if mode == "hotseat" else 2))
            if page.locator("#result").count():
                break
            expect(page.locator("#typed-move")).to_be_visible()  # the box stays open
            expect(page.locator("#typed-move")).to_have_value("")
    assert page.console_errors == []


# Counts, in the page and from its start, the socket's boards: received (before htmx
# handles them) and shown.
COUNT_BOARDS = """
window.__boardsIn = 0; window.__boardsShown = 0;
const isBoard = e => /id="board"/.test(e.detail.message);
const on = (kind, f) => document.addEventListener(kind, e => { if (isBoard(e)) f(); });
on("htmx:wsBeforeMessage", () => window.__boardsIn++);
on("htmx:wsAfterMessage", () => window.__boardsShown++);
"""
# What the page does when it comes back from sleep: asks its socket for the current board
# (the same board, at the same version, drawn again).
ASK_FOR_THE_BOARD = "() => document.dispatchEvent(new Event('visibilitychange'))"


def open_as_joiner(bob, url):
    """Bob opens the link, and his socket's first board has come and been shown."""
    bob.add_init_script(COUNT_BOARDS)
    bob.goto(url)
    wait_for_socket(bob)
    bob.wait_for_function("() => window.__boardsShown >= 1")


def redraw_while_pressing(bob, locator):
    """Press ``locator`` and hold it while the socket's redraw of the same board arrives
    and the page has handled it."""
    received = bob.evaluate("window.__boardsIn")
    box = locator.bounding_box()
    bob.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    bob.mouse.down()
    bob.evaluate(ASK_FOR_THE_BOARD)
    bob.wait_for_function("n => window.__boardsIn > n", arg=received)


def test_a_redraw_held_during_a_press_comes_after_it_and_join_survives_it(
    live_server_url, new_page
):
    """The socket redraws the board the page shows while Bob, who has the link, holds a
    press. First on the board, where the press sends nothing: the redraw is held while
    pressed and asked for again on release, so the page ends up showing what is current.
    Then on Join: the release still joins (the redraw waits until the press is over).
    Before, the button was replaced under the press and its click was lost."""
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    open_as_joiner(bob, url)
    shown = bob.evaluate("window.__boardsShown")
    redraw_while_pressing(bob, bob.locator("#board .player.above"))
    assert bob.evaluate("window.__boardsShown") == shown  # held while pressed
    bob.mouse.up()
    bob.wait_for_function("n => window.__boardsShown > n", arg=shown)  # asked again, shown
    expect(bob.locator("#join-name")).to_be_visible()
    bob.fill("#join-name", "Bob")
    redraw_while_pressing(bob, bob.get_by_role("button", name="Join as the second player"))
    bob.mouse.up()
    expect(bob.locator(".flash")).to_contain_text("You joined")
    expect(bob.locator("[data-player='2']")).to_contain_text("Bob")
    assert bob.console_errors == []


def test_a_board_just_swapped_in_takes_a_press_at_once(live_server_url, new_page):
    """CI caught it: a move key pressed the moment a board appeared went past htmx, which
    took over the new board's buttons only 20 ms after it swapped in a POST's answer, so the
    browser sent the form itself and the page navigated away. Boards now settle as they are
    swapped in. Here every board is pressed the moment it is in (a microtask runs once
    htmx's swap is done with it: sooner than any key can come), whether the POST's answer
    or the push brought it (which comes first varies; the push always settled at once)."""
    page = new_page()
    create_match(page, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(page)
    mark_page(page)
    page.evaluate(
        """() => {
             const pressed = new Set();
             const press = () => {
               const b = document.getElementById("board"), ply = b && b.dataset.ply;
               if (!ply || ply === "0" || ply === "6" || pressed.has(ply)) return;
               pressed.add(ply);
               queueMicrotask(() => document.querySelector("#board button[name=move]").click());
             };
             document.addEventListener("htmx:afterSwap", press);
             document.addEventListener("htmx:wsAfterMessage", press);
           }"""
    )
    move_button(page, "bit-flip", "3").click()
    wait_for_ply(page, 6)
    assert was_not_reloaded(page)
    assert len(moves_made(page)) == 6


def test_a_pushed_form_the_browser_sends_itself_carries_the_page_token(live_server_url, new_page):
    """A board that arrives by push was drawn once for every viewer of its kind, so its forms
    hold no CSRF token of this browser's. Should the browser send one itself (htmx not yet
    holding it), site.js gives it the page's token: the move is made, not "page has expired"."""
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    wait_for_socket(ada)
    play(ada, "bit-flip", "3")
    play(bob, "bit-flip", "5 6")
    wait_for_ply(ada, 2)  # pushed to Ada
    form = ada.locator("#board form", has=ada.locator("button[name=move]")).first
    assert form.locator("[name=csrfmiddlewaretoken]").count() == 0
    # A copy htmx never took over: the browser itself sends it.
    ada.evaluate(
        """() => {
             const copy = document.querySelector("#board button[name=move]").form.cloneNode(true);
             copy.removeAttribute("hx-post");
             document.getElementById("main").appendChild(copy);
             copy.querySelector("button[name=move][data-key='7']").click();
           }"""
    )
    wait_for_ply(ada, 3)
    expect(ada.locator("h1")).not_to_have_text("This page has expired")
    assert moves_made(ada) == ["3", "5 6", "7"]


# Where a thing is drawn, in one task of the page (None: not drawn).
TOP = """s => { const el = document.querySelector(s);
  if (!el || !el.getClientRects().length) return null;
  const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; }"""


def test_flip_and_zen_mode_by_button_and_key_remembered_across_a_reload(
    live_server_url, new_page, artifacts
):
    """Issue 42, item 5: a flip (the seats above and below the board change places) and a
    zen mode (the board, the clocks and the player's buttons only), each by its button and
    its key, each remembered, at 1100 and at 360 px."""
    ada, bob = new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada", clock="3+2")
    join(bob, url, name="Bob")
    wait_for_socket(ada)
    for width in (1100, 360):
        ada.set_viewport_size({"width": width, "height": 900})
        mine, theirs = ada.evaluate(TOP, "#seat-below"), ada.evaluate(TOP, "#seat-above")
        assert mine["top"] > theirs["top"]  # her own seat below, as drawn
    flip = ada.locator("#flip")  # "Flip (f)", "Flip" at 360 px
    expect(flip).to_have_attribute("aria-pressed", "false")
    flip.click()
    expect(flip).to_have_attribute("aria-pressed", "true")
    ada.reload()
    wait_for_socket(ada)
    expect(flip).to_have_attribute("aria-pressed", "true")
    for width in (1100, 360):
        ada.set_viewport_size({"width": width, "height": 900})
        mine, theirs = ada.evaluate(TOP, "#seat-below"), ada.evaluate(TOP, "#seat-above")
        assert mine["top"] < theirs["top"], width  # flipped: her own seat above
    ada.locator("#board").focus()
    ada.keyboard.press("f")  # back
    expect(flip).to_have_attribute("aria-pressed", "false")
    assert ada.evaluate(TOP, "#seat-below")["top"] > ada.evaluate(TOP, "#seat-above")["top"]
    # Zen: by its key; the header, the title, the move list and the chat go; the board,
    # both clocks and the player's buttons stay.
    for shown in (".topbar", ".match-head h1", "#history", ".chat", ".footer"):
        assert ada.evaluate(TOP, shown) is not None, shown  # before zen
    ada.keyboard.press("z")
    zen = ada.locator("#zen")
    expect(zen).to_have_attribute("aria-pressed", "true")
    ada.reload()
    wait_for_socket(ada)
    for width in (1100, 360):
        ada.set_viewport_size({"width": width, "height": 900})
        for gone in (".topbar", ".match-head h1", "#history", ".chat", ".footer"):
            assert ada.evaluate(TOP, gone) is None, (gone, width)
        for kept in ("#position", "#clock-above", "#clock-below", "#actions", "#zen"):
            assert ada.evaluate(TOP, kept) is not None, (kept, width)
    ada.screenshot(path=str(artifacts / "zen-360.png"))
    play(ada, "bit-flip", "3")  # plays on in zen mode
    zen.click()
    expect(ada.locator(".topbar")).to_be_visible()
    expect(ada.locator("#history")).to_be_visible()
    assert ada.console_errors == []
