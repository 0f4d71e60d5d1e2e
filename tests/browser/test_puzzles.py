"""Puzzles in Chromium: solve one by clicking the winning moves and fail the next, with and
without JavaScript, and see both ratings (the solver's and the puzzle's) change each time;
a theme page (in the same browser, with and without JavaScript); the focus after a move;
no sideways scroll at 360 px; axe in the light and the dark theme."""

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


def number_in(page: Page) -> int:
    return int(re.search(r"/puzzles/(\d+)/", page.url)[1])


def fail_by_clicking(page: Page, slug: str, n: int) -> str:
    game = get_game(slug)
    pos = puzzles.puzzle(slug, n).position()
    wrong = next(m for m in game.legal_moves(pos) if m not in puzzles.accepted_moves(game, pos))
    click_move(page, slug, wrong)
    expect(page.locator("#puzzle")).to_have_attribute("data-state", "failed")
    return wrong


@pytest.mark.parametrize("js", [True, False], ids=["htmx", "no-js"])
def test_solve_a_puzzle_then_fail_the_next_and_both_ratings_change(
    js, live_server_url, new_page, artifacts
):
    page = new_page(viewport=NARROW, java_script_enabled=js)
    puzzle = first_deep_puzzle(SLUG)
    page.goto(f"{live_server_url}/games/{SLUG}/puzzles/{puzzle.n}/")
    expect(page.get_by_role("heading", name=re.compile("Find the winning move"))).to_be_visible()
    expect(page.locator("#my-rating")).to_have_text("1500?")
    expect(page.locator("#puzzle-rating")).to_have_count(0)  # shown once the attempt is over
    no_sideways_scroll(page)
    solve_by_clicking(page, SLUG, puzzle)
    # Solved at the first try: the solver goes up, the puzzle down, both shown.
    mine = page.locator("#my-rating").inner_text()
    assert int(mine.rstrip("?")) > 1500
    expect(page.locator("#my-change")).to_have_text(re.compile(r"^\+\d+$"))
    expect(page.locator("#puzzle-change")).to_have_text(re.compile(r"^\u2212\d+$"))
    assert int(page.locator("#puzzle-rating").inner_text().rstrip("?")) < puzzle.rating
    expect(page.locator("#streak-now")).to_have_text("1")
    expect(page.locator("#puzzle-steps li")).to_have_count(len(page_steps(puzzle)))
    expect(page.locator("#puzzle-themes a").first).to_be_visible()
    no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"puzzle-solved-{'js' if js else 'nojs'}.png"))

    page.get_by_role("link", name="Next puzzle").click()
    expect(page).not_to_have_url(re.compile(rf"/puzzles/{puzzle.n}/"))
    n = number_in(page)
    failed = puzzles.puzzle(SLUG, n)
    fail_by_clicking(page, SLUG, n)
    expect(page.locator("#puzzle-result")).to_contain_text("Not winning:")
    expect(page.locator("#rating-change")).to_contain_text("Your streak is back to 0.")
    # A wrong first move: the solver goes down from where the solve left it, the puzzle up.
    expect(page.locator("#my-rating")).not_to_have_text(mine)
    assert int(page.locator("#my-rating").inner_text().rstrip("?")) < int(mine.rstrip("?"))
    expect(page.locator("#my-change")).to_have_text(re.compile(r"^\u2212\d+$"))
    assert int(page.locator("#puzzle-rating").inner_text().rstrip("?")) > failed.rating
    expect(page.locator("#streak-now")).to_have_text("0")
    expect(page.locator("#streak-best")).to_have_text("1")
    expect(page.locator("#puzzle-winning")).to_contain_text("The winning move")
    expect(page.locator("#puzzle-solution li").first).to_be_visible()
    expect(page.locator("#next-puzzle")).to_be_visible()
    no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"puzzle-failed-{'js' if js else 'nojs'}.png"))
    # A retry is not rated: solving it now leaves both figures as they are.
    shown = page.locator("#my-rating").inner_text()
    page.get_by_role("button", name="Try this one again").click()
    expect(page.locator("#puzzle")).to_have_attribute("data-state", "solving")
    solve_by_clicking(page, SLUG, failed)
    expect(page.locator("#my-rating")).to_have_text(shown)
    expect(page.locator("#rating-change")).to_contain_text("(a wrong move)")
    if js:
        assert not page.console_errors
    a_theme_page_lists_its_puzzles_and_leads_to_them(live_server_url, page)
    if js:
        assert not page.console_errors


def a_theme_page_lists_its_puzzles_and_leads_to_them(live_server_url, page: Page) -> None:
    """From the Learn page to a theme's list, and to its first puzzle (failed): in the
    browser of test_solve_a_puzzle_then_fail_..., with or without JavaScript."""
    page.goto(f"{live_server_url}/learn/")
    page.get_by_role("link", name="Puzzle themes").click()
    page.get_by_role("link", name="Split the row into equal halves").click()
    expect(
        page.get_by_role("heading", name="Puzzles: Split the row into equal halves")
    ).to_be_visible()
    listed = puzzles.with_theme("split-halves")
    expect(page.locator("tbody tr")).to_have_count(len(listed))
    no_sideways_scroll(page)
    page.get_by_role("link", name=f"Puzzle {listed[0].n}", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/games/bit-flip/puzzles/{listed[0].n}/$"))
    fail_by_clicking(page, SLUG, listed[0].n)
    expect(page.locator("#puzzle-themes")).to_contain_text("Split the row into equal halves")


def test_after_a_move_the_focus_stays_on_the_moves(live_server_url, new_page):
    page = new_page()
    puzzle = first_deep_puzzle(SLUG)
    page.goto(f"{live_server_url}/games/{SLUG}/puzzles/{puzzle.n}/")
    game = get_game(SLUG)
    move = puzzles.accepted_moves(game, puzzle.position())[0]
    click_move(page, SLUG, move)
    expect(page.locator("#puzzle-result")).to_contain_text("Right!")
    expect(page.locator("#puzzle-play button").first).to_be_focused()
    page.keyboard.press("Tab")  # the next move is one Tab away, not seven
    expect(page.locator("#puzzle-play button").nth(1)).to_be_focused()


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
    expect(page).not_to_have_url(re.compile(r"/puzzles/1/$"))
    fail_by_clicking(page, "bit-flip-divisor", number_in(page))
    no_sideways_scroll(page)
    audit(page, "a failed puzzle")
    page.goto(f"{live_server_url}/games/bit-flip/puzzles/999/")
    audit(page, "no such puzzle")
    audit.verify(at_least=2 * 8)
