"""Puzzles in Chromium: solve one by clicking the winning moves, fail the next, with and
without JavaScript; no sideways scroll at 360 px; axe in the light and the dark theme."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.presenters import presenter_for
from games.rules import get_game
from learn import puzzles
from tests.browser.test_accessibility import Audit

pytestmark = pytest.mark.browser

SLUG = "bit-flip"
NARROW = {"width": 360, "height": 800}


def first_deep_puzzle(slug: str) -> puzzles.Puzzle:
    """A puzzle whose win takes at least two of the solver's moves (a defence is played)."""
    return next(p for p in puzzles.puzzles_of(slug) if p.depth >= 5)


def click_move(page: Page, slug: str, move: str) -> None:
    label = presenter_for(get_game(slug)).label(move)
    page.locator("#puzzle form.puzzle-moves").get_by_role("button", name=label, exact=True).click()


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.evaluate("() => window.innerWidth"), width


def solve_by_clicking(page: Page, slug: str, puzzle: puzzles.Puzzle) -> None:
    """Click a winning move (any: checked against the exact analysis) until "Solved!"."""
    game = get_game(slug)
    pos = puzzle.position()
    at = 0
    while True:
        expect(page.locator("#puzzle")).to_have_attribute("data-at", str(at))
        moves = puzzles.accepted_moves(game, pos)
        move = moves[-1]  # not necessarily the first: any winning move is right
        click_move(page, slug, move)
        reply = puzzles.answer(game, pos, move)
        pos = reply.after
        at += 2 if reply.defence else 1
        if reply.solved:
            break
        expect(page.locator("#puzzle-result")).to_contain_text("Right!")
    expect(page.locator("#puzzle")).to_have_attribute("data-state", "solved")
    expect(page.locator("#puzzle-result")).to_contain_text("Solved!")


def fail_by_clicking(page: Page, slug: str, n: int) -> str:
    game = get_game(slug)
    pos = puzzles.puzzle(slug, n).position()
    wrong = next(m for m in game.legal_moves(pos) if m not in puzzles.accepted_moves(game, pos))
    click_move(page, slug, wrong)
    expect(page.locator("#puzzle")).to_have_attribute("data-state", "failed")
    return wrong


@pytest.mark.parametrize("js", [True, False], ids=["htmx", "no-js"])
def test_solve_a_puzzle_then_fail_the_next(js, live_server_url, new_page, artifacts):
    page = new_page(viewport=NARROW, java_script_enabled=js)
    puzzle = first_deep_puzzle(SLUG)
    page.goto(f"{live_server_url}/games/{SLUG}/puzzles/{puzzle.n}/")
    expect(page.get_by_role("heading", name=re.compile("Find the winning move"))).to_be_visible()
    no_sideways_scroll(page)
    solve_by_clicking(page, SLUG, puzzle)
    expect(page.locator("#streak-now")).to_have_text("1")
    expect(page.locator("#puzzle-steps li")).to_have_count(len(page_steps(puzzle)))
    no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"puzzle-solved-{'js' if js else 'nojs'}.png"))

    page.get_by_role("link", name="Next puzzle").click()
    expect(page).to_have_url(re.compile(rf"/puzzles/{puzzle.n + 1}/$"))
    fail_by_clicking(page, SLUG, puzzle.n + 1)
    expect(page.locator("#puzzle-result")).to_contain_text("Not winning:")
    expect(page.locator("#puzzle-result")).to_contain_text("Your streak is back to 0.")
    expect(page.locator("#streak-now")).to_have_text("0")
    expect(page.locator("#streak-best")).to_have_text("1")
    expect(page.locator("#puzzle-winning")).to_contain_text("The winning move")
    expect(page.locator("#next-puzzle")).to_be_visible()
    no_sideways_scroll(page)
    if js:
        assert not page.console_errors


def page_steps(puzzle: puzzles.Puzzle) -> list[str]:
    """The moves the solved puzzle lists, when the last listed winning move is played."""
    game = get_game(SLUG)
    pos, made = puzzle.position(), []
    while True:
        reply = puzzles.answer(game, pos, puzzles.accepted_moves(game, pos)[-1])
        made += [reply.move] + ([reply.defence] if reply.defence else [])
        pos = reply.after
        if reply.solved:
            return made


def test_puzzle_pages_at_360px_and_axe_in_both_themes(live_server_url, new_page):
    audit = Audit()
    page = new_page(viewport=NARROW)
    for slug in ("bit-flip", "last-digit-standing", "bitwise-battle", "last-bit-standing"):
        page.goto(f"{live_server_url}/games/{slug}/puzzles/")
        no_sideways_scroll(page)
        audit(page, f"puzzle list of {slug}")
    page.goto(f"{live_server_url}/games/bit-flip-divisor/puzzles/1/")
    no_sideways_scroll(page)
    audit(page, "a puzzle to solve")
    puzzle = puzzles.puzzle("bit-flip-divisor", 1)
    solve_by_clicking(page, "bit-flip-divisor", puzzle)
    no_sideways_scroll(page)
    audit(page, "a solved puzzle")
    page.get_by_role("link", name="Next puzzle").click()
    fail_by_clicking(page, "bit-flip-divisor", 2)
    no_sideways_scroll(page)
    audit(page, "a failed puzzle")
    page.goto(f"{live_server_url}/games/bit-flip/puzzles/999/")
    audit(page, "no such puzzle")
    audit.verify(at_least=2 * 8)
