"""A person in Chromium plays the example bot (examples/bot.py, a process of its own on the
API): challenged from its page, the bot accepts through its event stream, the person is
taken to the game, and every bot move appears live on the board to the end."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Match
from games.rules import get_game
from tests.api.test_bot import start_bot, stop
from tests.browser.helpers import (
    board_ply,
    mark_page,
    move_button,
    status,
    wait_for_ply,
    wait_for_socket,
)
from tests.browser.test_challenges import LIVE, signed_in

pytestmark = pytest.mark.browser


def test_a_person_plays_the_example_bot_to_the_end(live_server_url, new_page, artifacts):
    base = live_server_url
    process, log = start_bot(base, "bitbot", artifacts)
    try:
        page = new_page()
        signed_in(page, base, "ada")
        page.goto(f"{base}/players/bitbot/")
        expect(page.locator(".bot-mark").first).to_be_visible()
        page.get_by_role("link", name=re.compile(r"^Challenge bitbot")).click()
        page.wait_for_url(re.compile(r"/players/bitbot/challenge/"))
        page.goto(f"{base}/players/bitbot/challenge/bit-flip/")
        page.get_by_role("button", name=re.compile(r"^Challenge bitbot to ")).click()
        # The bot accepts on its own; the challenger is taken to the game.
        page.wait_for_url(re.compile(r"/m/[\w-]{16}/$"), timeout=LIVE)
        wait_for_socket(page)
        mark_page(page)
        match = Match.objects.get()
        assert match.seat2_user.username == "bitbot"
        rules = get_game("bit-flip")
        while True:
            match.refresh_from_db()
            if match.status == Match.Status.FINISHED:
                break
            if match.seat_of_player(match.current.to_move) == 1:  # ada's turn
                button = move_button(page, "bit-flip", rules.legal_moves(match.current)[0])
                expect(button).to_be_enabled(timeout=LIVE)
                button.click()
                # Her move shows, or already the bot's answer to it.
                after = re.compile(rf"^({match.ply + 1}|{match.ply + 2})$")
                expect(page.locator("#board")).to_have_attribute("data-ply", after, timeout=LIVE)
            else:  # the bot's move arrives by itself
                wait_for_ply(page, match.ply + 1, timeout=LIVE)
        wait_for_ply(page, match.ply)
        expect(status(page)).to_contain_text(re.compile("You (win|lose)"))
        assert board_ply(page) == match.ply
        assert page.evaluate("window.__notReloaded === true")
        page.screenshot(path=str(artifacts / "bot-game.png"), full_page=True)
        assert page.console_errors == []
    finally:
        stop(process, log)
