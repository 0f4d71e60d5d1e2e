"""The analysis board in Chromium: opened from a replay's ply, a line played by clicking,
stepped back by key, at 360 px and without JavaScript; axe in both themes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import mark_page, move_button, wait_for_ply, was_not_reloaded
from tests.browser.test_accessibility import Audit
from tests.replays import BLUNDER_GAME, played

pytestmark = pytest.mark.browser


def shown(page, ply: int) -> None:
    expect(page.locator("#analysis")).to_have_attribute("data-ply", str(ply))
    current = page.locator("#analysis-line li.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("value", str(ply))


def choice(page, move: str):
    return page.locator(f"#analysis-moves li[data-move='{move}']")


def test_analyse_from_a_replay_ply_and_play_a_line(live_server_url, new_page, artifacts):
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    page = new_page()
    page.goto(f"{live_server_url}/m/{match.public_id}/replay/?ply=1")
    page.locator("#analyse-here").click()
    expect(page).to_have_url(re.compile(r"/games/bit-flip/analysis/\?width=5&moves=3$"))
    shown(page, 1)
    expect(page.locator("#analysis-turn")).to_have_text("Player 2 to move.")
    expect(page.locator("#binary .val")).to_have_text(list("00100"))
    expect(page.locator("#value-text")).to_have_text("Player 1 wins with perfect play, in 4 moves.")
    # Player 1 took the middle: no move of Player 2's wins.
    expect(choice(page, "1").locator(".verdict")).to_have_text("no winning move existed")
    mark_page(page)

    choice(page, "1").get_by_role("link", name="Flip bit 1").click()  # the line's first move
    shown(page, 2)
    expect(page).to_have_url(re.compile(r"moves=3\.1$"))
    expect(page.locator("#analysis-turn")).to_have_text("Player 1 to move.")
    expect(page.locator("#analysis-moves li").first).to_have_attribute("data-move", "4")
    expect(choice(page, "4").locator(".verdict")).to_have_text("keeps the win")
    expect(choice(page, "4").locator(".after")).to_have_text(
        "Player 1 wins with perfect play, in 2 moves."
    )
    expect(choice(page, "2").locator(".verdict")).to_have_text("throws away the win")
    expect(choice(page, "4 5").locator(".after")).to_have_text(
        "Player 2 wins with perfect play, in 1 move."
    )

    choice(page, "2").get_by_role("link").click()  # the second move: the replay's blunder
    shown(page, 3)
    expect(page).to_have_url(re.compile(r"moves=3\.1\.2$"))
    expect(page.locator("#binary .val")).to_have_text(list("11100"))
    expect(page.locator("#value-text")).to_have_text("Player 2 wins with perfect play, in 1 move.")
    expect(page.locator("#best-line li")).to_have_text(
        [re.compile(r"Player 2 flipped bits 4 and 5")]
    )

    page.keyboard.press("ArrowLeft")  # the replay's keys step here too
    shown(page, 2)
    expect(page).to_have_url(re.compile(r"moves=3\.1\.2&ply=2$"))
    expect(choice(page, "2").locator(".verdict")).to_have_text("throws away the win")
    expect(choice(page, "2")).to_contain_text("the line's next move")
    page.locator("#replay-next").click()
    shown(page, 3)
    page.locator("#best-line a").first.click()  # the best line plays on to the end
    shown(page, 4)
    expect(page.locator("#analysis-status")).to_contain_text(
        "Player 2 flipped bits 4 and 5 and completed 11111."
    )
    assert was_not_reloaded(page)  # htmx swapped the analysis, no page load
    page.go_back()
    shown(page, 3)
    page.screenshot(path=str(artifacts / "analysis-1100.png"), full_page=True)
    assert page.console_errors == []


def test_the_analysis_at_360_px_without_javascript_and_with_axe(
    live_server_url, new_page, artifacts
):
    audit = Audit()
    small = new_page(viewport={"width": 360, "height": 800})
    for slug, query in (
        ("bit-flip", "width=200&moves=100.3-4"),
        ("bitwise-battle", "moves=1.0"),
        ("last-bit-standing", "moves=0.1"),
        ("bit-flip-divisor", "moves=8.7"),
        ("last-digit-standing", "highest=100&moves=6.3"),
    ):
        small.goto(f"{live_server_url}/games/{slug}/analysis/?{query}")
        shown(small, 2)
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, slug  # nothing sticks out sideways
        audit(small, f"analysis of {slug} at 360 px")
    small.screenshot(path=str(artifacts / "analysis-360.png"), full_page=True)
    small.goto(f"{live_server_url}/games/bit-flip/analysis/?moves=99")
    expect(small.locator("#refusal-message")).to_contain_text("Move 1 ('99') cannot be played")
    audit(small, "a refused analysis")
    audit.verify(at_least=12)
    assert small.console_errors == [] or all("400" in e for e in small.console_errors)

    plain = new_page(java_script_enabled=False)
    plain.goto(f"{live_server_url}/games/last-digit-standing/analysis/")
    shown(plain, 0)
    plain.locator("#analysis-moves li[data-move='6'] a").click()
    shown(plain, 1)
    expect(plain.locator("#analysis-turn")).to_have_text("Player 2 to move.")
    plain.locator("#replay-previous").click()
    shown(plain, 0)
    expect(plain).to_have_url(re.compile(r"moves=6&ply=0$"))
    practise_without_javascript_as_the_side_not_to_move(live_server_url, plain)


def test_the_largest_sizes_answer_at_once_with_every_move_judged(
    live_server_url, new_page, artifacts
):
    """Answered from the theory (nim-values, maximum matchings): a verdict for every move,
    and the value says honestly that the number of moves is out of reach. Both largest
    boards, one after the other in one browser."""
    page = new_page(viewport={"width": 360, "height": 800})
    for slug, query, moves in (
        ("bit-flip", "width=200", 200 + 199),  # every bit, every pair
        ("last-digit-standing", "highest=100", 100),  # every number
    ):
        response = page.goto(f"{live_server_url}/games/{slug}/analysis/?{query}")
        assert response.status == 200
        shown(page, 0)
        items = page.locator("#analysis-moves li")
        expect(items).to_have_count(moves)
        verdicts = page.locator("#analysis-moves li .verdict")
        expect(verdicts).to_have_count(moves)
        texts = set(verdicts.all_inner_texts())
        assert texts <= {"keeps the win", "throws away the win"} and "keeps the win" in texts
        expect(page.locator("#value-text")).to_have_text(
            "Player 1 wins with perfect play (the number of moves is beyond exact analysis "
            "at this size)."
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=str(artifacts / f"analysis-largest-{slug}.png"), full_page=False)
        # A move from the list answers as quickly, still with every move judged.
        first_best = page.locator("#analysis-moves li.best a").first
        first_best.click()
        shown(page, 1)
        expect(page.locator("#analysis-moves li .verdict").first).to_be_visible()


# ---- issue 25: practise from here, variations, the board's own buttons, keys ----------------


def test_practise_from_here_starts_a_game_in_that_position_and_plays_it_out(
    live_server_url, new_page, artifacts
):
    page = new_page()
    page.goto(f"{live_server_url}/games/bit-flip/analysis/?width=5&moves=3.1.2&ply=2")
    expect(page.locator("#strip a")).to_have_count(4)  # the start and three plies
    expect(page.locator("#strip a[aria-current=step]")).to_have_attribute("data-ply", "2")
    expect(page.locator("#practise input[name=side][value='1']")).to_be_checked()  # to move
    page.locator("#practise-start").click()
    expect(page).to_have_url(re.compile(r"/m/[A-Za-z0-9_-]{16}/$"))
    expect(page.locator("#setup-note")).to_contain_text("after 2 moves from the start")
    expect(page.locator("#binary .val")).to_have_text(list("10100"))
    # The winning move. The computer answers at once: the board after the move alone may be
    # on the page for less than one of Playwright's polls (it was, under CI), so wait for
    # the computer's answer.
    button = move_button(page, "bit-flip", "4")
    expect(button).to_be_enabled()
    button.click()
    wait_for_ply(page, 2)
    left = page.locator("#board button.bit[name=move]")
    expect(left).to_have_count(1)  # one 0 bit left: flipping it fills the byte
    left.click()
    wait_for_ply(page, 3)
    expect(page.locator("#status")).to_contain_text("You win")
    page.screenshot(path=str(artifacts / "practice-won.png"), full_page=True)

    page.goto(page.url + "replay/?ply=0")
    expect(page.locator("#setup-note")).to_contain_text("after 2 moves from the start")
    expect(page.locator("#binary .val")).to_have_text(list("10100"))  # begins where it began
    page.locator("#analyse-here").click()  # back to the board, the set-up moves first
    expect(page).to_have_url(re.compile(r"/analysis/\?width=5&moves=3\.1$"))
    assert page.console_errors == []


def practise_without_javascript_as_the_side_not_to_move(live_server_url, plain) -> None:
    """In a browser without JavaScript (``plain``; test_the_analysis_at_360_px_... has one)."""
    plain.goto(f"{live_server_url}/games/last-digit-standing/analysis/?moves=6")
    plain.locator("#practise input[name=side][value='1']").check()  # Player 2 is to move
    plain.locator("#practise-start").click()
    expect(plain.locator("#setup-note")).to_contain_text("after 1 move from the start")
    # The computer (Player 2) moved first: Player 1 is to move in the match's first ply.
    expect(plain.locator("#board")).to_have_attribute("data-ply", "1")


def test_a_variation_survives_a_copy_of_the_address_into_a_fresh_browser(
    live_server_url, new_page, artifacts
):
    page = new_page()
    page.goto(f"{live_server_url}/games/bit-flip/analysis/?width=5")
    choice(page, "3").get_by_role("link").click()
    shown(page, 1)
    choice(page, "1").get_by_role("link").click()
    shown(page, 2)
    expect(page.locator("#analysis-moves a").first).to_be_focused()  # not the page's body
    page.locator("#replay-previous").click()
    shown(page, 1)
    expect(page.locator("#replay-previous")).to_be_focused()
    move_button(page, "bit-flip", "2").click()  # on the board itself: a new line
    shown(page, 2)
    expect(page).to_have_url(re.compile(r"width=5&moves=3\.2\(1\)$"))
    variation = page.locator("#analysis-line .variation")
    expect(variation).to_have_count(1)
    expect(variation).to_contain_text("2. Player 2 flipped bit 1")
    expect(page.locator("#analysis-moves a").first).to_be_focused()
    copied = page.locator("#analysis-link").input_value()
    assert copied == page.url
    expect(page.locator("#analysis-copy")).to_be_visible()

    fresh = new_page(viewport={"width": 360, "height": 800})
    fresh.goto(copied)
    shown(fresh, 2)
    expect(fresh.locator("#analysis-line .variation")).to_contain_text("flipped bit 1")
    assert fresh.evaluate("document.documentElement.scrollWidth") <= 360
    fresh.screenshot(path=str(artifacts / "analysis-variation-360.png"), full_page=True)
    fresh.locator("#analysis-line .variation a").click()  # the variation becomes the line
    shown(fresh, 2)
    expect(fresh).to_have_url(re.compile(r"moves=3\.1\(2\)$"))
    expect(fresh.locator("#analysis-line .variation")).to_contain_text("flipped bit 2")
    assert page.console_errors == [] and fresh.console_errors == []


def test_the_keys_list_and_the_best_move_key(live_server_url, new_page):
    page = new_page()
    page.goto(f"{live_server_url}/games/bit-flip/analysis/?width=5")
    keys = page.locator("#analysis-keys")
    expect(keys).not_to_have_attribute("open", "")
    page.keyboard.press("?")
    expect(keys).to_have_attribute("open", "")
    expect(keys).to_contain_text("play the best move")
    page.keyboard.press("?")
    expect(keys).not_to_have_attribute("open", "")
    page.keyboard.press("b")  # the best move: the middle bit
    shown(page, 1)
    expect(page).to_have_url(re.compile(r"moves=3$"))
    expect(page.locator("#analysis-moves a").first).to_be_focused()
    page.keyboard.press("b")
    shown(page, 2)
    assert page.console_errors == []
