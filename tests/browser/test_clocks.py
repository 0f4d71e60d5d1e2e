"""The clocks of a match as lichess shows them (issue 22): the base time before the join,
two large clocks beside the board (the opponent's above, the viewer's below; stacked above
and below the board on a narrow screen), the running one highlighted, tenths under 10 s,
a low-time sound once, and a correspondence game's time left with its due moment in the
viewer's own time."""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Match
from tests.browser.helpers import (
    create_match,
    play,
    status,
    wait_for_ply,
    wait_for_socket,
)

pytestmark = pytest.mark.browser

SIDEWAYS = "document.documentElement.scrollWidth > innerWidth"


def clock_of(page, player: int):
    return page.locator(f".player[data-player='{player}'] .clock")


def placed(page, where: str) -> int:
    """The player drawn above or below the board."""
    return int(page.locator(f".player.{where}").get_attribute("data-player"))


# Read in one task of the page, from the selector: a redraw may replace an element between
# a locator's finding it and a look at it (a detached element has no box and no style).
LOOK = """([s, what]) => {
  const el = document.querySelector(s);
  if (!el) return null;
  if (what !== "box") return getComputedStyle(el)[what];
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}"""


def look(page, selector: str, what: str):
    return page.evaluate(LOOK, [selector, what])


def box(page, selector: str) -> dict:
    return look(page, selector, "box")


def set_time(url: str, seat: int, ms: int) -> None:
    """A seat's time made small through the ORM, its turn starting now."""
    public_id = url.rstrip("/").rsplit("/", 1)[1]
    Match.objects.filter(public_id=public_id).update(
        **{f"seat{seat}_ms": ms}, turn_started_at=timezone.now()
    )


# Each width and colour scheme the large clocks are looked at in, on the same pages.
LOOKS = [(width, scheme) for width in (1100, 360) for scheme in ("light", "dark")]


def look_as(pages, width: int, scheme: str) -> None:
    for page in pages:
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)


def test_large_clocks_beside_the_board_the_viewers_below(live_server_url, new_page, artifacts):
    """One clocked game from before the join to the flag, its pages looked at at 1100 and
    360 px, light and dark: before the join both clocks show the base time (bug 2: a red
    0:00.0); the clocks tick on every page once both first moves are made; two large clocks
    beside the board (stacked at 360 px), each viewer's own below, the running one standing
    out; low time in tenths and red, with a sound once, on the player's own page only; the
    flag ends the game on every page."""
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, live_server_url, "bit-flip", name="Ada", clock="1+1")
    bob.goto(url)
    for page in (ada, bob):
        wait_for_socket(page)
        for player in (1, 2):
            expect(clock_of(page, player)).to_have_text("1:00")
            expect(clock_of(page, player)).not_to_have_class(re.compile(r"\blow\b"))
    # Bob joins from the page he has open (join() would load it again).
    bob.fill("#join-name", "Bob")
    bob.get_by_role("button", name="Join as the second player").click()
    expect(bob.locator(".flash")).to_contain_text("You joined")
    eve.goto(url)
    for page in (ada, bob, eve):
        wait_for_socket(page)
        for player in (1, 2):
            expect(clock_of(page, player)).to_have_text("1:00")
    expect(ada.locator("#time-control")).to_contain_text("Clock: 1+1")
    play(ada, "bit-flip", "3")
    wait_for_ply(bob, 1)
    play(bob, "bit-flip", "5 6")
    for page in (ada, bob, eve):
        wait_for_ply(page, 2)
        expect(clock_of(page, 1)).to_have_class(re.compile(r"\bruns\b"))  # Ada's clock runs
    # Both first moves made: Ada's clock ticks, on her page, Bob's and the spectator's.
    for page in (ada, bob, eve):
        expect(clock_of(page, 1)).to_have_text(re.compile(r"^0:5\d$"), timeout=5000)
        expect(clock_of(page, 2)).to_have_text("1:00")  # Bob's first move was free
    ada.screenshot(path=str(artifacts / "clocks.png"), full_page=True)
    assert ada.locator("html").get_attribute("data-low-time-sounds") is None  # 50-odd s left
    for width, scheme in LOOKS:
        look_as((ada, bob, eve), width, scheme)
        # Each player's own clock below the board, the opponent's above; a spectator has
        # Player 1 below.
        assert (placed(ada, "above"), placed(ada, "below")) == (2, 1)
        assert (placed(bob, "above"), placed(bob, "below")) == (1, 2)
        assert (placed(eve, "above"), placed(eve, "below")) == (2, 1)
        for page in (ada, bob, eve):
            board, above, below = (
                box(page, s) for s in ("#position", ".above .clock", ".below .clock")
            )
            if width == 1100:  # beside the board, on its right, the opponent's higher
                assert above["x"] >= board["x"] + board["width"]
                assert below["x"] >= board["x"] + board["width"]
                assert above["y"] + above["height"] <= below["y"]
            else:  # stacked: one above the board, one below it
                assert above["y"] + above["height"] <= board["y"]
                assert below["y"] >= board["y"] + board["height"]
            size = look(page, ".above .clock", "fontSize")
            assert float(size.rstrip("px")) >= 26  # large
            # The running clock stands out from the other one.
            clocks = [f".player[data-player='{n}'] .clock" for n in (1, 2)]
            assert look(page, clocks[0], "backgroundColor") != look(
                page, clocks[1], "backgroundColor"
            )
            assert not page.evaluate(SIDEWAYS)
        shots = f"clocks-{width}-{scheme}"
        ada.screenshot(path=str(artifacts / f"{shots}-your-turn.png"), full_page=True)
        bob.screenshot(path=str(artifacts / f"{shots}-opponents-turn.png"), full_page=True)
    # Low time: tenths, in red, and a sound on Ada's page; then the flag falls and the game
    # ends on every page.
    set_time(url, 1, 8_000)
    for page in (ada, bob):
        page.reload()
        wait_for_socket(page)
    for width, scheme in LOOKS:
        look_as((ada,), width, scheme)
        expect(clock_of(ada, 1)).to_have_text(re.compile(r"^0:0\d\.\d$"))
        expect(clock_of(ada, 1)).to_have_class(re.compile(r"\blow\b"))
        ada.screenshot(
            path=str(artifacts / f"clocks-{width}-{scheme}-low-time.png"), full_page=True
        )
    expect(ada.locator("html")).to_have_attribute("data-low-time-sounds", "1")
    expect(status(ada)).to_contain_text("You lose", timeout=15_000)
    expect(ada.locator("#result")).to_have_text("Player 1 (Ada) ran out of time.")
    expect(status(bob)).to_have_text("You win!")
    expect(status(eve)).to_contain_text("Player 2 (Bob) wins")
    assert Match.objects.get().ending == "time"
    # One sound, though the clock went on running low and the page drew new boards; the
    # opponent's clock running low makes none on Bob's page.
    assert ada.locator("html").get_attribute("data-low-time-sounds") == "1"
    assert bob.locator("html").get_attribute("data-low-time-sounds") is None
    for width, scheme in LOOKS:
        look_as((ada,), width, scheme)
        expect(clock_of(ada, 1)).to_have_text("0:00.0")
        expect(clock_of(ada, 1)).not_to_have_class(re.compile(r"\bruns\b"))
        assert not ada.evaluate(SIDEWAYS)
        ada.screenshot(
            path=str(artifacts / f"clocks-{width}-{scheme}-finished.png"), full_page=True
        )
    for page in (ada, bob, eve):
        assert page.console_errors == []


@pytest.fixture
def page_in(browser):
    """A page in a browser context of its own, with options (a time zone, no JavaScript)."""
    contexts = []

    def make(**options):
        context = browser.new_context(viewport={"width": 1100, "height": 900}, **options)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def test_correspondence_time_left_and_the_due_moment_in_local_time(live_server_url, page_in):
    tokyo = page_in(timezone_id="Asia/Tokyo", locale="en-GB")
    create_match(tokyo, live_server_url, "bit-flip", opponent="hotseat", clock="correspondence")
    wait_for_socket(tokyo)
    match = Match.objects.get()
    due = (match.turn_started_at + timedelta(days=3)).astimezone(ZoneInfo("Asia/Tokyo"))
    expect(clock_of(tokyo, 1)).to_have_text("2 days 23 h")  # to move: counting down
    expect(clock_of(tokyo, 2)).to_have_text("3 days")
    expect(clock_of(tokyo, 1)).to_have_class(re.compile(r"\bruns\b"))
    when = tokyo.locator("#time-control time")
    expect(when).to_contain_text(due.strftime("%H:%M"))
    expect(when).to_contain_text(due.strftime("%a"))
    expect(when).not_to_contain_text("UTC")
    # Without JavaScript: the same clocks, and the due moment in UTC, said so.
    plain = page_in(java_script_enabled=False)
    plain.goto(tokyo.url)
    expect(clock_of(plain, 2)).to_have_text("3 days")
    utc = match.turn_started_at + timedelta(days=3)
    expect(plain.locator("#time-control time")).to_have_text(f"{utc:%a %-d %b, %H:%M} UTC")
