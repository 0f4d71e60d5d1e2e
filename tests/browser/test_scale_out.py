"""Two daphne processes sharing PostgreSQL and Redis: a whole match played live across them."""

from __future__ import annotations

import pytest
from django.db import connection
from playwright.sync_api import expect

from games.models import Match
from tests.browser.helpers import (
    SCRIPTS,
    create_match,
    join,
    move_button,
    status,
    wait_for_ply,
    wait_for_socket,
)
from tests.servers import DaphneServer, database_url, server_env

pytestmark = [pytest.mark.browser, pytest.mark.services]


@pytest.fixture
def two_servers(transactional_db):
    assert connection.vendor == "postgresql"
    env = server_env(database_url(connection.settings_dict))
    assert env["REDIS_URL"].startswith("redis://")
    servers = [DaphneServer(env, name=f"scale-{i}").start() for i in (1, 2)]
    yield servers
    for server in servers:
        server.stop()


@pytest.mark.parametrize("slug", ["bit-flip", "last-digit-standing"])
def test_players_on_two_processes_play_live(slug, two_servers, new_page, artifacts):
    first, second = two_servers
    moves, winner = SCRIPTS[slug]
    ada, bob, eve = new_page(), new_page(), new_page()
    url = create_match(ada, first.url, slug, name="Ada")
    path = url.split(first.url, 1)[1]
    join(bob, second.url + path, name="Bob")
    eve.goto(first.url + path)
    for page in (ada, bob, eve):
        wait_for_socket(page)
    expect(ada.locator(".presence")).to_have_text("connected")  # Bob is on the other process
    players = {1: ada, 2: bob}
    for ply, move in enumerate(moves, start=1):
        mover, other = players[1 + (ply - 1) % 2], players[1 + ply % 2]
        move_button(mover, slug, move).click()
        wait_for_ply(other, ply)  # pushed across processes through Redis
        wait_for_ply(eve, ply)
    expect(status(players[winner])).to_have_text("You win!")
    expect(status(players[3 - winner])).to_contain_text("You lose")
    bob.screenshot(path=str(artifacts / f"scale-out-{slug}.png"), full_page=True)
    match = Match.objects.get()
    assert list(match.moves.values_list("text", flat=True)) == moves
    assert match.winner == winner
