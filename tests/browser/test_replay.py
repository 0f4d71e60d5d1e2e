"""The replay in a browser: the keyboard, the slider, the move list, and without JavaScript.

A match of up to review_views.HELD plies holds every ply's frame: steps make no request."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.review import FULL, WINDOW
from tests.replays import BLUNDER_GAME, long_last_bit_match, played, seeded_moves, staff_user

pytestmark = pytest.mark.browser


def shown(page, ply: int, timeout: float = 5000) -> None:
    """The replay shows ``ply``: the board, the slider and the highlighted move agree."""
    expect(page.locator("#replay")).to_have_attribute("data-ply", str(ply), timeout=timeout)
    expect(page.locator("#replay-ply")).to_have_text(f"{ply:,}")
    expect(page.locator("#replay-slider")).to_have_value(str(ply))
    current = page.locator("#replay-moves li.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("value", str(ply))
    now = page.locator("#strip a[aria-current=step]")  # the strip marks the same ply
    expect(now).to_have_count(1)
    expect(now).to_have_attribute("data-ply", str(ply))


def test_stepping_through_a_replay_with_the_keyboard(live_server_url, new_page, artifacts):
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"{live_server_url}/m/{match.public_id}/replay/"
    page = new_page()
    page.goto(url)  # waits for the load event: the page's scripts have run
    shown(page, 4)  # the final position
    page.keyboard.press("Home")
    shown(page, 0)
    expect(page.locator("#replay-status")).to_contain_text("The start. Player 1 (Ada) moves first.")
    expect(page.locator("#flips")).to_contain_text("Move 3: Player 1 (Ada) flipped bit 2")

    page.keyboard.press("ArrowRight")
    shown(page, 1)
    expect(page.locator("#binary .val")).to_have_text(list("00100"))
    expect(page.locator("#replay-verdict")).to_have_text("keeps the win")
    page.keyboard.press("ArrowRight")
    shown(page, 2)
    expect(page.locator("#best-moves")).to_contain_text("Best moves: flip bit 4; flip bit 5.")
    page.keyboard.press("ArrowRight")
    shown(page, 3)
    expect(page.locator("#binary .val")).to_have_text(list("11100"))
    expect(page.locator("#replay-verdict")).to_have_text("throws away the win: a blunder")
    expect(page.locator("#replay-moves li.current")).to_contain_text("Player 1 (Ada) flipped bit 2")
    expect(page.locator("#value-text")).to_have_text(
        "Player 2 (Bob) wins with perfect play, in 1 move."
    )
    assert page.url.endswith("?ply=3")  # the URL follows, so a reload keeps the place
    page.screenshot(path=str(artifacts / "replay-blunder-1100.png"), full_page=True)

    page.keyboard.press("ArrowLeft")
    shown(page, 2)
    page.keyboard.press("End")
    shown(page, 4)
    expect(page.locator("#binary .val")).to_have_text(list("11111"))
    expect(page.locator("#replay-next")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("ArrowRight")  # nothing after the last move
    page.keyboard.press("Home")
    shown(page, 0)
    expect(page.locator("#binary .val")).to_have_text(list("00000"))

    # The slider and the move list jump too.
    page.locator("#replay-slider").fill("3")
    shown(page, 3)
    page.locator("#replay-moves a", has_text="Player 2 (Bob) flipped bits 4 and 5").click()
    shown(page, 4)
    page.go_back()
    expect(page).to_have_url(re.compile(r"\?ply=3$"))
    assert page.console_errors == []

    small = page  # the same browser on a phone: loaded again at 360 px
    small.set_viewport_size({"width": 360, "height": 800})
    small.goto(url + "?ply=3")
    shown(small, 3)
    small.keyboard.press("ArrowRight")
    shown(small, 4)
    small.keyboard.press("ArrowLeft")
    shown(small, 3)
    width = small.evaluate("document.documentElement.scrollWidth")
    assert width <= 360  # nothing sticks out sideways
    small.screenshot(path=str(artifacts / "replay-blunder-360.png"), full_page=True)
    assert small.console_errors == []


def test_the_replay_steps_without_javascript(live_server_url, new_page):
    match = played("last-digit-standing", ["6", "3", "1", "9"])
    page = new_page(java_script_enabled=False)
    page.goto(f"{live_server_url}/m/{match.public_id}/")
    page.locator("#replay-link").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", "4")  # the final position
    page.locator("#replay-first").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", "0")
    page.locator("#replay-next").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", "1")
    expect(page.locator("#replay-moves li.current")).to_contain_text("Player 1 (Ada) removed 6")
    page.locator("#replay-last").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", "4")
    expect(page.locator("#remaining")).to_have_text("2 4 5 7 8")
    page.locator("#replay-slider").fill("2")
    page.get_by_role("button", name="Go").click()
    expect(page.locator("#replay")).to_have_attribute("data-ply", "2")


def test_a_long_match_replays_a_window_at_a_time(live_server_url, new_page, artifacts):
    match = long_last_bit_match(20_000)
    page = new_page()
    page.goto(f"{live_server_url}/m/{match.public_id}/replay/?ply=10000")
    shown(page, 10_000)
    expect(page.locator("#replay-moves li")).to_have_count(2 * WINDOW + 1)
    expect(page.locator("#strip a")).to_have_count(FULL + 1)
    page.locator("#strip a[data-ply='10050']").click()  # the strip jumps within its plies
    shown(page, 10_050)
    page.locator("#earlier a", has_text="the start").click()
    shown(page, 0)
    page.go_back()
    shown(page, 10_050)
    page.locator("#later a", has_text=f"{FULL} plies on").click()
    shown(page, 10_050 + FULL)
    expect(page.locator("#summary-cap")).to_contain_text("judges only the last 5,000")
    # Too long to hold every ply: each step asks the server, and presses made meanwhile
    # add up (five quick presses, five plies).
    here = 10_050 + FULL
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    shown(page, here + 5, timeout=15000)  # five round trips, on two busy cores
    page.keyboard.press("End")
    shown(page, 20_001)
    expect(page.locator("#replay-verdict")).to_have_text("loses at once: a blunder")
    expect(page.locator("#decimal")).to_contain_text("digits)")
    page.screenshot(path=str(artifacts / "replay-long-1100.png"), full_page=True)
    assert page.console_errors == []


def test_staff_find_a_match_in_the_admin_and_open_its_replay(live_server_url, new_page, artifacts):
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5}, name="Grace")
    played("last-digit-standing", ["6", "3", "1", "9"])
    staff_user(password="a-long-staff-password-42")
    page = new_page()
    page.on("console", lambda m: print("CONSOLE", m.type, m.text, m.location))
    page.goto(f"{live_server_url}/admin/games/match/")
    expect(page).to_have_url(re.compile(r"/admin/login/\?next="))  # the only way in
    page.fill("#id_username", "staff")
    page.fill("#id_password", "a-long-staff-password-42")
    page.get_by_role("button", name="Log in").click()
    page.fill("#searchbar", "Grace")
    page.keyboard.press("Enter")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    rows.first.get_by_role("link", name=match.public_id).click()
    log = page.locator("#moves-group tbody tr.has_original")
    expect(log).to_have_count(4)
    expect(log.nth(2).locator(".field-verdict")).to_have_text("throws away the win (a blunder)")
    expect(log.nth(2).locator(".field-position_after")).to_have_text("11100")
    page.screenshot(path=str(artifacts / "admin-match.png"), full_page=True)
    page.get_by_role("link", name="Replay with every move's verdict").click()
    page.wait_for_load_state()  # the keys work once the page's scripts have run
    shown(page, 4)
    page.keyboard.press("Home")
    shown(page, 0)
    page.keyboard.press("End")
    shown(page, 4)
    assert page.console_errors == []


# Counts the bodies the page's fetches have read; the page's own handler of a body runs in
# a microtask after the count, so a poll that sees the count sees that handler's work.
COUNT_BODIES = """
const fetched = window.fetch;
window.__bodies = 0;
window.fetch = (...args) => fetched(...args).then((r) => {
  const text = r.text.bind(r);
  r.text = () => text().then((body) => { window.__bodies += 1; return body; });
  return r;
});
"""


def test_an_answer_that_arrives_after_the_frames_does_not_undo_a_later_step(
    live_server_url, new_page
):
    """Home asks the server while the frames are on their way; the frames arrive, End shows
    the last ply from them, and only then the answer for ply 0 arrives: it is not drawn."""
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    page = new_page()
    page.add_init_script(COUNT_BODIES)
    held = {}

    def hold(route):
        held[route.request.url] = route

    page.route(re.compile(r"/replay/frames$"), hold)
    page.route(re.compile(r"/replay/\?ply=0$"), hold)
    page.goto(f"{live_server_url}/m/{match.public_id}/replay/")
    shown(page, 4)
    page.keyboard.press("Home")
    for _ in range(200):  # Playwright calls the handlers while the page is waited on
        if len(held) == 2:
            break
        page.wait_for_timeout(50)
    assert len(held) == 2, list(held)
    frames, answer = sorted(held.values(), key=lambda r: "frames" not in r.request.url)
    frames.continue_()
    shown(page, 0)  # from the frames, the answer still out
    page.keyboard.press("End")
    shown(page, 4)
    answer.continue_()
    page.wait_for_function("() => window.__bodies === 2")
    assert page.locator("#replay").get_attribute("data-ply") == "4"
    page.keyboard.press("ArrowLeft")
    shown(page, 3)
    assert page.console_errors == []


def test_clicking_the_strip_jumps_to_that_ply(live_server_url, new_page, artifacts):
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"{live_server_url}/m/{match.public_id}/replay/"
    page = new_page()
    page.goto(url)
    shown(page, 4)
    strip = page.locator("#strip")
    expect(strip).to_have_attribute("aria-label", re.compile(r"^The whole game in a picture"))
    expect(strip.locator("a")).to_have_count(5)
    expect(strip.locator("a.blunder")).to_have_count(1)
    expect(strip.locator("a.blunder")).to_have_attribute("data-ply", "3")
    strip.locator("a[data-ply='3']").click()
    shown(page, 3)
    expect(page.locator("#replay-verdict")).to_have_text("throws away the win: a blunder")
    expect(page.locator("#binary .val")).to_have_text(list("11100"))
    assert page.url.endswith("?ply=3")
    # The arrow keys still step, and the strip follows.
    page.keyboard.press("ArrowRight")
    shown(page, 4)
    page.locator("#strip a[data-ply='1']").click()
    shown(page, 1)
    page.go_back()
    shown(page, 4)
    page.screenshot(path="/tmp/replay-strip-light.png", full_page=True)
    page.screenshot(path=str(artifacts / "replay-strip-light.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path="/tmp/replay-strip-dark.png", full_page=True)
    page.screenshot(path=str(artifacts / "replay-strip-dark.png"), full_page=True)
    assert page.console_errors == []

    # Every ply of an 11-ply game is listed and drawn; without JavaScript the cells are links.
    eleven = played("last-digit-standing", seeded_moves("last-digit-standing", 4))
    plain = new_page(java_script_enabled=False)
    plain.goto(f"{live_server_url}/m/{eleven.public_id}/replay/")
    last = eleven.ply
    expect(plain.locator("#replay")).to_have_attribute("data-ply", str(last))
    expect(plain.locator("#replay-moves li")).to_have_count(last + 1)
    expect(plain.locator("#strip a")).to_have_count(last + 1)
    plain.locator(f"#strip a[data-ply='{last - 1}']").click()
    expect(plain.locator("#replay")).to_have_attribute("data-ply", str(last - 1))
    expect(plain.locator("#replay-ply")).to_have_text(str(last - 1))
    expect(plain.locator("#strip a[aria-current=step]")).to_have_attribute(
        "data-ply", str(last - 1)
    )

    small = page  # the first browser again, on a phone (in the light theme)
    small.emulate_media(color_scheme="light")
    small.set_viewport_size({"width": 360, "height": 800})
    small.goto(url + "?ply=3")
    shown(small, 3)
    assert small.evaluate("document.documentElement.scrollWidth") <= 360
    small.screenshot(path="/tmp/replay-strip-360.png", full_page=True)
    assert small.console_errors == []


def test_the_replay_opens_at_the_end_with_the_board_first(live_server_url, new_page, artifacts):
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"{live_server_url}/m/{match.public_id}/replay/"
    page = new_page()
    for width in (1100, 360):  # one browser, loaded at each width
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(url)
        shown(page, 4)
        expect(page.locator("#binary .val")).to_have_text(list("11111"))
        status = page.locator("#replay-status")
        expect(status).to_contain_text("Player 2 (Bob) flipped bits 4 and 5")
        board = page.locator("#position").bounding_box()
        summary = page.locator("#summary").bounding_box()
        assert board["y"] + board["height"] <= summary["y"], (width, board, summary)
        assert board["y"] + board["height"] <= 800, (width, board)  # seen without scrolling
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(artifacts / f"replay-opens-{width}.png"), full_page=True)
        assert page.console_errors == []


def test_quick_presses_and_a_held_arrow_key_walk_the_game_without_a_request(
    live_server_url, new_page, artifacts
):
    match = long_last_bit_match(20)  # 20 safe bits, then the losing one
    last = match.ply
    assert last == 21
    url = f"{live_server_url}/m/{match.public_id}/replay/"
    page, direct = new_page(), new_page()
    for width in (1100, 360):  # the same two browsers, loaded at each width
        page.set_viewport_size({"width": width, "height": 800})
        direct.set_viewport_size({"width": width, "height": 800})
        page.goto(url + "?ply=0")
        shown(page, 0)
        # Every ply's frame, asked for once the page has loaded.
        expect(page.locator("#replay-frames template")).to_have_count(last + 1)
        asked: list[str] = []

        def asked_for(request, asked=asked) -> None:
            asked.append(request.url)

        page.on("request", asked_for)
        for _ in range(5):  # five presses as fast as the keyboard sends them
            page.keyboard.press("ArrowRight")
        shown(page, 5)
        for _ in range(last):  # a held key: one keydown, then repeats, then the key is let go
            page.keyboard.down("ArrowRight")
        page.keyboard.up("ArrowRight")
        shown(page, last)
        for _ in range(3):
            page.keyboard.down("ArrowLeft")
        page.keyboard.up("ArrowLeft")
        shown(page, last - 3)
        assert page.url.endswith(f"?ply={last - 3}")
        assert asked == []  # every ply's board was on the page already
        page.remove_listener("request", asked_for)
        # The board and every part of the frame are the server's, as on a page of that ply.
        board = page.locator("#position").inner_html()
        status = page.locator("#replay-status").inner_text()
        direct.goto(url + f"?ply={last - 3}")
        assert direct.locator("#position").inner_html() == board
        assert direct.locator("#replay-status").inner_text() == status
        page.reload()
        shown(page, last - 3)
        page.screenshot(path=str(artifacts / f"replay-held-key-{width}.png"), full_page=True)
        assert page.console_errors == []
