"""The end of a rated game reaches every open page of it with its rating changes, through
the live layer's one push (games/live.py), with no reload."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from tests.factories import both_moved
from tests.ratings.helpers import account, rated_match, resign
from tests.test_consumers import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_presence():
    from games import admission

    admission.reset()
    yield
    admission.reset()


def notes(html: str) -> str:
    found = re.search(r'<ul class="end-notes" id="end-notes">(.*?)</ul>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


@database_sync_to_async
def rated_game():
    match, token1, token2 = rated_match(account("ada"), account("bob"))
    both_moved(match)  # before, resigning would abort it
    return match, token1, token2


async def test_both_players_and_a_spectator_get_the_rating_changes_pushed():
    match, token1, token2 = await rated_game()
    pages = [await connect(match.public_id, token) for token in (token1, token2, None)]
    for communicator, connected in pages:
        assert connected
        snapshot = await communicator.receive_from(timeout=10)
        assert 'id="board"' in snapshot and notes(snapshot) == ""
    await database_sync_to_async(resign)(match, token2)
    for communicator, _ in pages:
        html = await communicator.receive_from(timeout=10)
        while 'id="board"' not in html:  # a presence mark may come first
            html = await communicator.receive_from(timeout=10)
        assert notes(html) == "Ratings: ada 1662? (+162), bob 1338? (\u2212162)"
    for communicator, _ in pages:
        await communicator.disconnect()
