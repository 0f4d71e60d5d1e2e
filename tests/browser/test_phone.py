"""A phone shows the whole game at once (issue 42): at 360 x 640 and 390 x 844, portrait,
light and dark, in every game and every state (the player's turn, the opponent's, the first
move's countdown, low time, finished), the board's move controls and both clocks are on
screen without scrolling; notices, options and panels come below them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Match
from games.rules import GAMES
from tests.browser.helpers import create_match, join, play, sign_up, wait_for_ply, wait_for_socket

pytestmark = pytest.mark.browser

PHONES = ({"width": 360, "height": 640}, {"width": 390, "height": 844})
THEMES = ("light", "dark")
# Two opening moves of each game, each legal where it is played.
OPENINGS = {
    "last-bit-standing": ("0", "1"),
    "bitwise-battle": ("1", "0"),
    "bit-flip": ("3", "5 6"),
    "bit-flip-divisor": ("8", "7"),
    "last-digit-standing": ("3", "6"),
}

# Everything the test asks of a page, read in one task of it: the page unscrolled, and the
# box of each thing a player must see.
MEASURE = """() => {
  scrollTo(0, 0);
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const name = (el) => el.id || el.getAttribute("aria-label") || el.textContent.trim();
  const seen = (sel) => [...document.querySelectorAll(sel)]
    .filter((el) => el.getClientRects().length)
    .map((el) => [name(el), box(el)]);
  return {
    width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
    clocks: seen("#clock-above, #clock-below"),
    controls: seen("#position button[name=move]"),
    wanted: seen("#first-move, #outcome .result-headline, #position"),
  };
}"""


def off_screen(page, state: str, *, controls: bool) -> list[str]:
    """What the page shows partly or wholly outside its unscrolled screen, as words."""
    seen = page.evaluate(MEASURE)
    width, height = seen["width"], seen["height"]
    missing = []
    if seen["scrollWidth"] > width:
        missing.append(f"{state}: the page scrolls sideways ({seen['scrollWidth']} px)")
    if len(seen["clocks"]) != 2:
        missing.append(f"{state}: {len(seen['clocks'])} clocks drawn")
    if controls and not seen["controls"]:
        missing.append(f"{state}: no move controls drawn")
    wanted = seen["clocks"] + seen["controls"]
    # The position itself: its top on screen (a finished board's controls are gone).
    wanted += [
        (name, [b[0], b[1], b[2], b[1] + 1]) for name, b in seen["wanted"] if name == "position"
    ]
    wanted += [item for item in seen["wanted"] if item[0] != "position"]
    for name, (left, top, right, bottom) in wanted:
        if left < 0 or top < 0 or right > width + 0.5 or bottom > height + 0.5:
            missing.append(
                f"{state}: {name} at y {top:.0f}-{bottom:.0f} on a {width}x{height} screen"
            )
    return missing


def each_phone(pages, state: str, artifacts, slug: str) -> list[str]:
    """Every page at both phone sizes in both themes; one screenshot per size of the first.
    ``pages``: who -> (page, whether it must show move controls)."""
    missing = []
    for size in PHONES:
        for theme in THEMES:
            for who, (page, controls) in pages.items():
                page.set_viewport_size(size)
                page.emulate_media(color_scheme=theme)
                missing += [
                    f"{who} {size['width']}x{size['height']} {theme}, " + m
                    for m in off_screen(page, state, controls=controls)
                ]
            first = next(iter(pages.values()))[0]
            if theme == "light":
                first.screenshot(path=str(artifacts / f"phone-{slug}-{state}-{size['width']}.png"))
    return missing


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_a_phone_shows_the_controls_and_both_clocks_in_every_state(
    slug, live_server_url, new_page, artifacts
):
    phone = PHONES[0]
    ada, bob = new_page(viewport=phone), new_page(viewport=phone)
    url = create_match(ada, live_server_url, slug, name="Ada", clock="1+1")
    join(bob, url, name="Bob")  # Bob's page keeps its "You joined" notice
    for page in (ada, bob):
        wait_for_socket(page)
    expect(ada.locator("#first-move")).to_be_visible()
    missing = each_phone({"Ada": (ada, True), "Bob": (bob, False)}, "first-move", artifacts, slug)
    first, second = OPENINGS[slug]
    play(ada, slug, first)
    wait_for_ply(bob, 1)
    missing += each_phone(
        {"Bob": (bob, True), "Ada": (ada, False)}, "first-move-2", artifacts, slug
    )
    play(bob, slug, second)
    wait_for_ply(ada, 2)
    missing += each_phone({"Ada": (ada, True), "Bob": (bob, False)}, "turn", artifacts, slug)
    # Low time (under 20 s: clock.LOW_TIME_MS): Ada has 15 s left, through the ORM, her turn
    # starting now; both pages reloaded.
    Match.objects.filter(public_id=url.rstrip("/").rsplit("/", 1)[1]).update(
        seat1_ms=15_000, turn_started_at=timezone.now() - timedelta(milliseconds=10)
    )
    for page in (ada, bob):
        page.reload()
        wait_for_socket(page)
    expect(ada.locator("#clock-below")).to_have_class(re.compile(r"\blow\b"))
    missing += each_phone({"Ada": (ada, True), "Bob": (bob, False)}, "low-time", artifacts, slug)
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.get_by_role("button", name="Resign").click()
    for page in (ada, bob):
        expect(page.locator("#outcome")).to_be_visible()
    missing += each_phone({"Ada": (ada, False), "Bob": (bob, False)}, "finished", artifacts, slug)
    assert not missing, "\n".join(missing)


def test_signed_in_the_header_leaves_room_for_the_game(live_server_url, new_page, artifacts):
    """Two accounts (the header holds the user name, the challenges and the bell, Sign out
    and "My games"), in Bit Flip, the tallest board: the header stays two rows on a phone,
    and the controls and both clocks are on screen."""
    phone = PHONES[0]
    ada, bob = new_page(viewport=phone), new_page(viewport=phone)
    sign_up(ada, live_server_url, "adalovelace1815")
    sign_up(bob, live_server_url, "bobbyfischer1943")
    url = create_match(ada, live_server_url, "bit-flip", clock="1+1")
    bob.goto(url)
    bob.get_by_role("button", name="Join as the second player").click()
    expect(bob.locator(".flash")).to_contain_text("You joined")
    ada.reload()
    for page in (ada, bob):
        wait_for_socket(page)
    missing = each_phone(
        {"Ada": (ada, True), "Bob": (bob, False)}, "signed-in", artifacts, "bit-flip"
    )
    assert not missing, "\n".join(missing)
