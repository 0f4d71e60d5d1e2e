"""Moves over the match's socket, in Chromium: the same refusals as their POSTs, and a
socket that drops in the middle of a move neither loses the move nor plays it twice."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from games.models import Match, Move
from games.rights import StaleBoard
from tests.browser.helpers import (
    Actions,
    create_match,
    move_button,
    open_typed,
    wait_for_ply,
    wait_for_socket,
)
from tests.factories import until_sync

pytestmark = pytest.mark.browser

ILLEGAL = "Bits 1 and 3 are not adjacent"


def test_refusals_by_frame_say_what_the_post_says(live_server_url, new_page):
    page = new_page()
    sent = Actions(page)
    create_match(page, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(page)
    notice = page.locator("#notice")
    open_typed(page)
    page.fill("#typed-move", "1 3")
    page.get_by_role("button", name="Play").click()
    expect(notice).to_contain_text(ILLEGAL)
    assert page.locator("#board").get_attribute("data-ply") == "0"
    # A board the player saw that is no longer the match's (an old tab): refused as stale.
    page.locator("#board form[data-frame=move] input[name=ply]").first.evaluate(
        "input => { input.value = '7' }"
    )
    move_button(page, "bit-flip", "1").click()
    expect(notice).to_have_text(StaleBoard.default)
    assert page.locator("#board").get_attribute("data-ply") == "0"
    move_button(page, "bit-flip", "1").click()  # the board the answer drew is current
    wait_for_ply(page, 1)
    expect(notice).to_be_empty()
    assert [f["ply"] for f in sent.frames] == ["0", "7", "0"]
    assert sent.posts == []  # every try went by the socket
    assert not Move.objects.filter(ply=2).exists()

    # Without JavaScript the same forms POST, and the same refusals come back as words.
    plain = new_page(java_script_enabled=False)
    posted = Actions(plain)
    create_match(plain, live_server_url, "bit-flip", opponent="hotseat")
    open_typed(plain)
    plain.fill("#typed-move", "1 3")
    plain.get_by_role("button", name="Play").click()
    expect(plain.locator(".flash")).to_contain_text(ILLEGAL)
    assert [p.rsplit("/", 1)[1] for p in posted.posts][-1] == "move"
    assert posted.frames == []
    assert page.console_errors == []


def route_dropping_the_first_move(page, *, forward: bool):
    """Route the page's match socket through a proxy that, on its first connection, drops
    the connection right after the page sends its first move: the move forwarded to the
    server first (``forward``: its answer never reaches the page) or lost on the way. Every
    later connection passes everything through. Returns the move frames the server was sent,
    per connection."""
    seen: list[list[dict]] = []

    def handler(route):
        server = route.connect_to_server()
        mine: list[dict] = []
        seen.append(mine)
        first = len(seen) == 1
        state = {"dropped": False}

        def from_page(message):
            frame = json.loads(message) if isinstance(message, str) else {}
            if first and frame.get("type") == "move" and not state["dropped"]:
                state["dropped"] = True
                if forward:
                    mine.append(frame)
                    server.send(message)
                route.close(code=1012, reason="the network dropped")
                return
            if frame.get("type") == "move":
                mine.append(frame)
            server.send(message)

        def from_server(message):
            if not state["dropped"]:
                route.send(message)

        route.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/m/"), handler)
    return seen


@pytest.mark.parametrize("forward", [True, False], ids=["move-arrived", "move-lost"])
def test_a_socket_dropped_mid_move_neither_loses_nor_doubles_it(forward, live_server_url, new_page):
    page = new_page()
    seen = route_dropping_the_first_move(page, forward=forward)
    create_match(page, live_server_url, "bit-flip", opponent="hotseat")
    wait_for_socket(page)
    move_button(page, "bit-flip", "1").click()
    # The page comes back on a new socket and shows the move, played once.
    wait_for_ply(page, 1, timeout=20000)
    wait_for_socket(page)
    match = Match.objects.get()
    assert list(Move.objects.filter(match=match).values_list("ply", "text")) == [(1, "1")]
    assert len(seen) >= 2
    if forward:  # the server had it: the page saw it done and sent nothing again
        assert seen[0] == [{"type": "move", "move": "1", "ply": "0"}]
        assert all(frames == [] for frames in seen[1:])
    else:  # the server never had it: the page sent it again, once, from the same board
        assert seen[0] == []
        assert [f for frames in seen[1:] for f in frames] == [
            {"type": "move", "move": "1", "ply": "0"}
        ]
    expect(page.locator("#notice")).to_be_empty()
    # The game goes on over the new socket.
    move_button(page, "bit-flip", "2").click()
    wait_for_ply(page, 2)
    until_sync(lambda: Move.objects.filter(match=match).count() == 2)
    assert page.console_errors == []
