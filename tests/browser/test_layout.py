"""The match page's layout, second pass (issue 22), in Chromium at 1100 and 360 px, light
and dark: a 40-character unbroken name never makes a page scroll sideways, long names are
cut short with the whole name on hover and focus, the header leads to the site's parts,
"N watching" changes live on the match and watch pages, every board is one row at 360 px
(Last Bit Standing's too, as tiles), a finished match has one result headline, a draw
looks apart from a win and a loss, and the end sentence names the players."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games import play
from games.models import Match
from tests.browser.helpers import (
    SCRIPTS,
    create_match,
    join,
    mark_page,
    move_button,
    sign_up,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)
from tests.browser.test_lobby import list_a_challenge
from tests.factories import actor, make_match, until_sync

pytestmark = pytest.mark.browser

LONG = "W" * 40  # one unbroken 40-character name: the widest there is
NARROW = {"width": 360, "height": 780}
WIDE = {"width": 1100, "height": 900}
SIDEWAYS = "document.documentElement.scrollWidth > window.innerWidth"
# Measured in one go, in one task of the page, from the selector: a redraw (the socket's
# first board, on a busy machine) may replace an element between a locator's finding it and
# a look at it, and a detached element measures 0 x 0.
CUT_SHORT = (
    "s => { const el = document.querySelector(s); return !!el && el.scrollWidth > el.clientWidth; }"
)
# A name is whole when nothing of it is clipped: a box's text fits it; a name drawn inline
# (hovered or focused, it flows in its sentence) has every line inside each box around it
# that clips (overflow other than visible) and inside the window.
WHOLE_WHEN = """([s, state]) => {
  const el = document.querySelector(s + state);
  if (!el) return false;
  if (getComputedStyle(el).display !== "inline") return el.scrollWidth <= el.clientWidth;
  const lines = [...el.getClientRects()];
  const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
  const clips = [];
  for (let up = el.parentElement; up; up = up.parentElement) {
    if (getComputedStyle(up).overflowX !== "visible") clips.push(up.getBoundingClientRect());
  }
  clips.push({ left: 0, right: innerWidth });
  return lines.length > 0 && lines.every((r) => clips.every((box) => inside(r, box)));
}"""


def cut_short(page: Page, selector: str) -> None:
    """The element at ``selector`` is cut short (an ellipsis): waited for, as expect does."""
    until_sync(lambda: page.evaluate(CUT_SHORT, selector), timeout=10)


def whole_when(page: Page, selector: str, state: str, act) -> None:
    """After ``act``, the element at ``selector`` is shown whole while in ``state``
    (":focus", ":hover"); acted on again if a redraw replaced it meanwhile."""
    until_sync(lambda: (act(), page.evaluate(WHOLE_WHEN, [selector, state]))[1], timeout=10)


def shots(page: Page, path) -> None:
    """A full-page screenshot in the light theme and one in the dark."""
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        page.screenshot(path=str(path).replace(".png", f"-{theme}.png"), full_page=True)
    page.emulate_media(color_scheme="light")


# ---- bug 3: nothing scrolls sideways; names cut short, whole on hover and focus --------


def test_a_40_character_name_never_scrolls_the_draw_offer_or_the_watch_page_sideways(
    live_server_url, new_page, artifacts
):
    """Bug 3: "... offers a draw." on the opponent's and the spectator's page was 415 px
    wide at 360 px, the watch page 373 px."""
    ada, bob, eve = (new_page(viewport=NARROW) for _ in range(3))
    url = list_a_challenge(ada, live_server_url, "last-digit-standing", name=LONG)
    join(bob, url, "V" * 40)
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    ada.get_by_role("button", name="Offer a draw").click()
    for page in (bob, eve):
        offer = page.locator("#draw-offer")
        expect(offer).to_contain_text("offers a draw.")
        assert not page.evaluate(SIDEWAYS)
        expect(offer.locator(".name")).to_have_attribute("title", LONG)
        cut_short(page, "#draw-offer .name")
        assert not page.evaluate(SIDEWAYS)
    shots(eve, artifacts / "layout-draw-offer-360.png")
    for page in (ada, bob, eve):
        assert page.console_errors == []
    watcher = eve  # on to the watch page
    watcher.goto(live_server_url + "/watch/")
    card = watcher.locator("#watch-list li")
    expect(card).to_have_count(1)
    expect(card.locator(".watch-players .name")).to_have_count(2)
    expect(card.locator(".watch-players .name").first).to_have_attribute("title", LONG)
    assert not watcher.evaluate(SIDEWAYS)
    shots(watcher, artifacts / "layout-watch-360.png")
    assert watcher.console_errors == []


def test_a_long_name_is_cut_short_and_whole_on_hover_and_on_focus(live_server_url, new_page):
    """At 360 px, then on the same page at 1100 px."""
    page = new_page(viewport=NARROW)
    create_match(
        page, live_server_url, "bit-flip", opponent="hotseat", name=LONG, opponent_name="Bob"
    )
    selector = "[data-player='1'] .name"
    name = page.locator(selector)
    for viewport in (NARROW, WIDE):
        page.set_viewport_size(viewport)
        page.mouse.move(0, 0)  # off the name: no hover left from the other width
        expect(name).to_have_attribute("title", LONG)
        cut_short(page, selector)
        expect(page.locator("[data-player='2']")).to_contain_text("Player 2 (Bob)")
        expect(page.locator("[data-player='2'] .name")).to_have_count(0)  # short: plain text
        whole_when(page, selector, ":focus", name.focus)  # for the keyboard
        page.evaluate("s => document.querySelector(s).blur()", selector)
        cut_short(page, selector)
        # The pointer on the name's label: the whole label takes the hover (site.css).
        label = page.locator("[data-player='1'] .named")
        whole_when(page, "[data-player='1'] .named:hover > .name", "", label.hover)
        assert not page.evaluate(SIDEWAYS)


# Where a label's parts are drawn, in one task of the page: the name's box and the boxes of
# its last letter, the ")" after it and the punctuation after that (none: ``null``).
LABEL_PARTS = """s => {
  const named = document.querySelector(s);
  if (!named) return null;
  const name = named.querySelector(".name");
  const rects = name.getClientRects();
  const last = rects[rects.length - 1];
  const after = name.nextSibling;  // the text node ")" and what follows it in the box
  const range = document.createRange();
  const char = (node, i) => {
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const r = range.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top };
  };
  return {
    name: { right: last.right, top: last.top },
    bracket: char(after, 0),
    tail: after.length > 1 ? char(after, 1) : null,
    fade: getComputedStyle(name).maskImage,
  };
}"""


def test_a_cut_name_keeps_its_bracket_and_full_stop_and_reads_whole_in_its_sentence(
    live_server_url, new_page, artifacts
):
    """Bug 6 of issue 42: a cut name read "Player 1 (Wolfeschleg…  )" (an ellipsis left a
    gap before the bracket), the full stop of "You joined: you are Player 2 (…)." fell onto
    a line of its own, and on hover the whole name wrapped into a narrow column with the
    ")" beside it. Now the cut name fades out at its box's edge with its ")" right there, a
    name that fits has no fade, the full stop stays on the bracket's line, and a hovered
    name flows in its sentence with its ")" after its last letter."""
    long, fits = "Wolfeschlegelsteinhausenbergerdorff", "Bartholomew-Ann"  # both drawn as names
    ada, bob = new_page(viewport=NARROW), new_page(viewport=NARROW)
    url = create_match(ada, live_server_url, "bit-flip", name=fits)
    join(bob, url, name=long)
    seat, flash = ".player.above .named", ".flash .named"
    for page, selector in ((ada, seat), (bob, flash)):  # Bob's name, cut
        cut_short(page, selector + " .name")
        parts = page.evaluate(LABEL_PARTS, selector)
        assert abs(parts["bracket"]["left"] - parts["name"]["right"]) < 1, parts
        assert parts["fade"] != "none", parts
    parts = bob.evaluate(LABEL_PARTS, flash)
    assert parts["tail"] is not None and abs(parts["tail"]["top"] - parts["bracket"]["top"]) < 2
    # Ada's name, whole in her own seat (no presence beside it): no fade there.
    mine = ".player.below .named"
    expect(ada.locator(mine + " .name")).to_have_text(fits)
    assert ada.evaluate(WHOLE_WHEN, [mine + " .name", ""])
    assert ada.evaluate(LABEL_PARTS, mine)["fade"] == "none"
    bob.locator(flash).hover()
    whole_when(bob, flash + ":hover > .name", "", lambda: None)
    parts = bob.evaluate(LABEL_PARTS, flash)
    assert parts["fade"] == "none"
    assert abs(parts["bracket"]["top"] - parts["name"]["top"]) < 2, parts  # its last line
    assert 0 <= parts["bracket"]["left"] - parts["name"]["right"] < 1, parts
    assert abs(parts["tail"]["top"] - parts["bracket"]["top"]) < 2, parts  # the full stop too
    assert not bob.evaluate(SIDEWAYS)
    bob.screenshot(path=str(artifacts / "layout-long-name-hover-360.png"), full_page=True)


# ---- the header ------------------------------------------------------------------------


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_header_leads_to_play_watch_tournaments_learn_and_leaderboards(
    javascript, live_server_url, new_page
):
    """Each page is looked at at 1100 and at 360 px; each link is pressed at 360 px, after
    Playwright's checks for a click (visible, steady, not covered) at both widths."""
    page = new_page(viewport=NARROW, java_script_enabled=javascript)
    page.goto(live_server_url + "/")
    nav = page.get_by_role("navigation", name="Site")
    for viewport in (WIDE, NARROW):
        page.set_viewport_size(viewport)
        expect(nav.get_by_role("link")).to_have_text(
            ["Play", "Watch", "Tournaments", "Learn", "Leaderboards"]
        )
    for name, path, shown in [
        ("Watch", "/watch/", "#watch-list"),
        ("Tournaments", "/tournaments/", "#running-title"),
        ("Learn", "/learn/", "#learn-games"),
        ("Leaderboards", "/leaderboards/", "#leaderboards"),
        ("Play", "/", "#challenge-list"),
    ]:
        link = nav.get_by_role("link", name=name, exact=True)
        for viewport in (WIDE, NARROW):
            page.set_viewport_size(viewport)
            link.click(trial=True)
        link.click()
        page.wait_for_url(live_server_url + path)
        for viewport in (WIDE, NARROW):
            page.set_viewport_size(viewport)
            expect(page.locator(shown)).to_be_attached()
            expect(link).to_have_attribute("aria-current", "page")
            expect(nav.locator("[aria-current]")).to_have_count(1)
            assert not page.evaluate(SIDEWAYS), (path, viewport)
    expect(page.locator("#learn-games")).to_have_count(0)


def test_the_header_adds_my_games_when_signed_in(live_server_url, new_page, artifacts):
    page = new_page(viewport=NARROW)
    sign_up(page, live_server_url, "ada" + "w" * 27)  # the longest user name
    nav = page.get_by_role("navigation", name="Site")
    expect(nav.get_by_role("link")).to_have_text(
        ["Play", "Watch", "Tournaments", "Learn", "Leaderboards", "My games"]
    )
    expect(nav.get_by_role("link", name="My games")).to_have_attribute("aria-current", "page")
    assert not page.evaluate(SIDEWAYS)
    shots(page, artifacts / "layout-header-signed-in-360.png")


# ---- "N watching", live ----------------------------------------------------------------


def watching(page: Page, count: int):
    expect(page.locator("#watching")).to_be_visible()
    expect(page.locator("#watching")).to_have_text(re.compile(rf"(^|\D){count} watching$"))


def test_the_spectators_are_counted_live_on_the_match_and_watch_pages(
    live_server_url, new_page, artifacts
):
    ada, bob = new_page(), new_page(viewport=NARROW)
    url = list_a_challenge(ada, live_server_url, "bit-flip", name="Ada")
    join(bob, url, "Bob")
    wait_for_socket(ada)
    wait_for_socket(bob)
    mark_page(ada)
    expect(ada.locator("#watching")).to_be_hidden()  # nobody watches yet
    lists = new_page(viewport=NARROW)
    lists.goto(live_server_url + "/watch/")
    wait_for_socket(lists)
    mark_page(lists)
    card = lists.locator("#watch-list li .watchers")
    expect(card).to_have_text(re.compile(r"(^|\D)0 watching$"))

    eve = new_page()
    eve.goto(url)
    wait_for_socket(eve)
    for page in (ada, bob, eve):
        watching(page, 1)
    expect(card).to_have_text(re.compile(r"(^|\D)1 watching$"))
    zoe = new_page()
    zoe.goto(url)
    wait_for_socket(zoe)
    for page in (ada, bob, eve, zoe):
        watching(page, 2)
    expect(card).to_have_text(re.compile(r"(^|\D)2 watching$"))
    shots(bob, artifacts / "layout-watching-360.png")
    zoe.close()
    for page in (ada, bob, eve):
        watching(page, 1)
    expect(card).to_have_text(re.compile(r"(^|\D)1 watching$"))
    # A move still comes as before, and the count stays.
    move_button(ada, "bit-flip", "3").click()
    wait_for_ply(eve, 1)
    watching(eve, 1)
    assert was_not_reloaded(ada) and was_not_reloaded(lists)
    for page in (ada, bob, eve, lists):
        assert page.console_errors == []


# ---- boards: one row at 360 px, Last Bit Standing as tiles --------------------------------


def _played_by_the_book(slug: str, options: dict | None, moves: list[str]) -> Match:
    match, t1, t2 = make_match(slug, options=options, name=LONG, opponent="Bob")
    for ply, text in enumerate(moves):
        token = t1 if ply % 2 == 0 else t2
        play.submit_move(match.public_id, by=actor(match, token), text=text, ply=ply)
    return Match.objects.get(pk=match.pk)


def _safe_bits(count: int) -> list[str]:
    from games.rules import get_game

    game = get_game("last-bit-standing")
    pos, moves = game.start(), []
    for _ in range(count):
        move = game.safe_moves(pos)[0]
        moves.append(move)
        pos = game.play(pos, move)
    return moves


def one_row(page: Page, selector: str, count: int) -> None:
    expect(page.locator(selector)).to_have_count(count)
    # One row: every tile's top within half a tile of the others' (a move button is raised
    # by 2 px, the last move pops). Measured in one task of the page (CUT_SHORT).
    boxes = page.evaluate(
        """s => [...document.querySelectorAll(s)].map(
             e => [e.getBoundingClientRect().top, e.getBoundingClientRect().height])""",
        selector,
    )
    assert len(boxes) == count, boxes
    tops = [top for top, _ in boxes]
    assert max(tops) - min(tops) < min(height for _, height in boxes) / 2, boxes
    assert not page.evaluate(SIDEWAYS)


# As a player (the move buttons are tiles): each game's widest row by default, Bit Flip 10.
AS_PLAYER = [
    ("bit-flip", {"width": 10}, "#binary > .bit", 10),
    ("bit-flip-divisor", None, "#binary > .bit", 8),
    ("last-digit-standing", None, ".digits > .digit", 9),
]


def test_a_players_board_is_one_row_at_360_px(live_server_url, new_page, artifacts):
    """A match of each, one after another on one page; at 1100 px too."""
    page = new_page(viewport=NARROW)
    for slug, options, tiles, count in AS_PLAYER:
        page.set_viewport_size(NARROW)
        create_match(
            page,
            live_server_url,
            slug,
            opponent="hotseat",
            options=options,
            name=LONG,
            opponent_name="Bob",
        )
        wait_for_socket(page)
        one_row(page, f"#board {tiles}", count)
        moves, _ = SCRIPTS[slug]
        move_button(page, slug, moves[0]).click()
        wait_for_ply(page, 1)
        one_row(page, f"#board {tiles}", count)
        shots(page, artifacts / f"layout-{slug}-360.png")
        page.set_viewport_size(WIDE)
        one_row(page, f"#board {tiles}", count)
    assert page.console_errors == []


# As a spectator, after many moves: the sequences' default length, Last Bit Standing's tiles.
AS_SPECTATOR = [
    ("bitwise-battle", {"condition": "ones", "target": 20, "max_length": 20}, ["0"] * 19, 19),
    ("last-bit-standing", None, _safe_bits(4), 5),  # 1 and four bits
    ("last-bit-standing", None, _safe_bits(40), 20),  # "…" and the last 19 of 41
]


def test_a_sequence_is_one_row_of_tiles_at_360_px(live_server_url, new_page, artifacts):
    """Each match watched in turn on one page; at 1100 px too."""
    page = new_page(viewport=NARROW)
    for slug, options, moves, count in AS_SPECTATOR:
        match = _played_by_the_book(slug, options, moves)
        page.set_viewport_size(NARROW)
        page.goto(live_server_url + match.get_absolute_url())
        wait_for_socket(page)
        tiles = page.locator("#board #binary > .bit")
        one_row(page, "#board #binary > .bit", count)
        expect(tiles.last).to_have_class(re.compile(r"\blast\b"))  # the last move, marked
        binary = match.current.binary if slug == "last-bit-standing" else match.current.bits
        label = page.locator("#binary").get_attribute("aria-label")
        assert label.endswith(binary), label
        if len(moves) > count:
            expect(tiles.first).to_have_text("…")
            expect(page.locator(".facts")).to_contain_text(binary)  # the whole number, in words
        shots(page, artifacts / f"layout-{slug}-{len(moves)}-360.png")
        page.set_viewport_size(WIDE)
        one_row(page, "#board #binary > .bit", count)
    assert page.console_errors == []


# ---- the result: one headline, a draw apart, names in the sentence ----------------------


def result_box(page: Page):
    return page.locator("#outcome")


def test_one_result_headline_and_a_draw_looks_apart_from_a_win_and_a_loss(
    live_server_url, new_page, artifacts
):
    slug = "last-digit-standing"
    moves, winner = SCRIPTS[slug]
    assert winner == 1
    ada, bob, eve = new_page(viewport=NARROW), new_page(), new_page()
    url = create_match(ada, live_server_url, slug, name="Ada")
    join(bob, url, "Bob")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    for ply, move in enumerate(moves, start=1):
        mover = ada if ply % 2 else bob
        move_button(mover, slug, move).click()
        for page in (ada, bob, eve):
            wait_for_ply(page, ply)
    sentence = "Player 2 (Bob) cannot remove a divisor or multiple of 5"
    expected = {
        ada: ("result-won", "You win!"),
        bob: ("result-lost", "You lose: Player 1 (Ada) wins."),
        eve: ("result-decided", "Player 1 (Ada) wins!"),
    }
    looks = {}  # (theme, kind) -> the box's colours
    for page, (kind, headline) in expected.items():
        expect(result_box(page)).to_have_class(re.compile(rf"\b{kind}\b"))
        expect(result_box(page).locator(".result-headline")).to_have_text(headline)
        expect(page.locator("#result")).to_contain_text(sentence)
        # The status line says it to screen readers only: the headline is shown once.
        expect(status(page)).to_have_text(headline)
        assert (
            page.evaluate("() => document.getElementById('status').getBoundingClientRect().height")
            <= 1
        )
        assert not page.evaluate(SIDEWAYS)
        for theme in ("light", "dark"):
            looks[theme, kind] = colours(page, theme)
    shots(ada, artifacts / "layout-won-360.png")
    shots(bob, artifacts / "layout-lost-1100.png")

    # A draw, by agreement, in a new match between the same two.
    url = create_match(ada, live_server_url, slug, name="Ada")
    join(bob, url, "Bob")
    wait_for_socket(ada)
    wait_for_socket(bob)
    bob.get_by_role("button", name="Offer a draw").click()
    ada.get_by_role("button", name="Accept the draw").click()
    for page in (ada, bob):
        expect(result_box(page)).to_have_class(re.compile(r"\bresult-drawn\b"))
        expect(result_box(page).locator(".result-headline")).to_have_text("Draw by agreement")
        expect(page.locator("#result")).to_have_text("Player 1 (Ada) accepted the draw.")
        assert not page.evaluate(SIDEWAYS)
    for theme in ("light", "dark"):
        drawn = colours(ada, theme)
        assert drawn != looks[theme, "result-won"] and drawn != looks[theme, "result-lost"]
        assert looks[theme, "result-won"] != looks[theme, "result-lost"]
    shots(ada, artifacts / "layout-drawn-360.png")
    for page in (ada, bob, eve):
        assert page.console_errors == []


def colours(page: Page, theme: str) -> tuple[str, str]:
    """The result box's background and border colours in ``theme``."""
    page.emulate_media(color_scheme=theme)
    found = result_box(page).evaluate(
        "el => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderLeftColor]"
    )
    page.emulate_media(color_scheme="light")
    return tuple(found)
