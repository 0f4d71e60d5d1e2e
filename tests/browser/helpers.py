"""What a person does in the browser: create a match, join it, make moves by clicking."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

from games.presenters import presenter_for
from games.rules import get_game

# A whole game per rule book, as clicks: the books' correct examples where they exist.
SCRIPTS = {
    # 10, 101, 1011, 10110, then 101101 = 45: Player 1 makes a multiple of 3 and loses.
    "last-bit-standing": (["0", "1", "1", "0", "1"], 2),
    # Example 1 of the book: 45 is the first multiple of 3, made by Player 2.
    "bitwise-battle": (["1", "0", "1", "1", "0", "1"], 2),
    # The book's example game: Player 2 completes 11111111 with bit 8.
    "bit-flip": (["3", "5 6", "7", "1 2", "4", "8"], 2),
    # The book's example: 00000111 = 7, Player 1 wins.
    "bit-flip-divisor": (["8", "7", "6"], 1),
    # The book's opening, corrected: after 8, Player 2 may still remove 1; then 5 leaves
    # Player 2 with no divisor or multiple of 5.
    "last-digit-standing": (["3", "6", "2", "4", "8", "1", "5"], 1),
}


def create_match(
    page: Page,
    base: str,
    slug: str,
    *,
    opponent="friend",
    first="me",
    name="",
    level="",
    opponent_name="",
    options=None,
    clock="",
) -> str:
    """Fill the game's new-match page and start; returns the match URL."""
    page.goto(f"{base}/games/{slug}/new/")
    for option, value in (options or {}).items():
        page.fill(f"#id_{slug}-{option}", str(value))
    page.check(f"input[name='{slug}-opponent'][value='{opponent}']")
    page.check(f"input[name='{slug}-first'][value='{first}']")
    if level:
        page.check(f"input[name='{slug}-level'][value='{level}']")
    if name:
        page.fill(f"#id_{slug}-name", name)
    if opponent_name:
        page.fill(f"#id_{slug}-opponent_name", opponent_name)
    if clock:
        page.check(f"input[name='{slug}-time_control'][value='{clock}']")
    page.get_by_role("button", name=re.compile(r"^Start a .* match$")).click()
    page.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    return page.url


def join(page: Page, url: str, name: str = "") -> None:
    page.goto(url)
    if name:
        page.fill("#join-name", name)
    page.get_by_role("button", name="Join as the second player").click()
    expect(page.locator(".flash")).to_contain_text("You joined")


def move_button(page: Page, slug: str, move: str):
    """The control a player presses for ``move`` on the board of ``slug``: found by the
    accessible name its game's presenter gives it."""
    label = presenter_for(get_game(slug)).label(move)
    return page.get_by_role("button", name=re.compile("^" + re.escape(label) + r"( \(hint.*\))?$"))


def open_typed(page: Page) -> None:
    """Open the "Or type it" disclosure of the board (closed by default; once opened, it
    stays open across boards)."""
    details = page.locator("details.typed-move")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    expect(page.locator("#typed-move")).to_be_visible()


def play(page: Page, slug: str, move: str) -> None:
    """Make ``move`` once the page offers it (the opponent's move may still be on its way),
    and wait for the board after it."""
    button = move_button(page, slug, move)
    expect(button).to_be_enabled(timeout=10000)
    ply = board_ply(page)
    # The player looks at the page they play on: a tab behind another of its browser gets
    # no animation frames, and Playwright waits for frames before it clicks (1-2 s).
    page.bring_to_front()
    button.click()
    wait_for_ply(page, ply + 1)


def board_ply(page: Page) -> int:
    return int(page.locator("#board").get_attribute("data-ply"))


def wait_for_ply(page: Page, ply: int, timeout: float = 10000) -> float:
    """Wait until the page shows the board after ``ply`` moves; returns the seconds waited."""
    start = time.monotonic()
    expect(page.locator("#board")).to_have_attribute("data-ply", str(ply), timeout=timeout)
    return time.monotonic() - start


def status(page: Page):
    return page.locator("#status")


def mark_page(page: Page) -> None:
    """Mark the document, to prove later that it was never reloaded."""
    page.evaluate("window.__notReloaded = true")


def was_not_reloaded(page: Page) -> bool:
    return page.evaluate("window.__notReloaded === true")


def wait_for_socket(page: Page, timeout: float = 10000) -> None:
    """Wait until the page's websocket is open (site.js marks <html data-live>)."""
    expect(page.locator("html")).to_have_attribute("data-live", "open", timeout=timeout)


PASSWORD = "a-long-enough-password-42"  # of the accounts browser tests sign up


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/accounts/games/$"))
    expect(page.locator(".account-nav .who")).to_have_text(username)


def sign_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/accounts/games/$"))
    expect(page.locator(".account-nav .who")).to_have_text(username)


class Actions:
    """What a page sent as a player's actions: the frames on its match socket
    (``frames``: the decoded JSON of each, syncs left out) and the POSTs to the match's
    action addresses (``posts``: their paths). Start it before the page loads."""

    def __init__(self, page: Page):
        self.frames: list[dict] = []
        self.posts: list[str] = []
        page.on("websocket", self._socket)
        page.on("request", self._request)

    def _socket(self, ws) -> None:
        if "/ws/m/" in ws.url:
            ws.on("framesent", self._frame)

    def _frame(self, payload) -> None:
        try:
            frame = json.loads(payload)
        except (TypeError, ValueError):
            return
        if isinstance(frame, dict) and frame.get("type") != "sync":
            self.frames.append(frame)

    def _request(self, request) -> None:
        path = urlsplit(request.url).path
        if request.method == "POST" and path.startswith("/m/"):
            self.posts.append(path)

    def moves(self) -> list[str]:
        return [f.get("move") for f in self.frames if f.get("type") == "move"]
