"""The chats, live (chat/live.py): each change of a room is drawn once for each kind of
viewer reading it and forwarded by the match sockets of that kind only; a socket that
opens gets the room's log with its board."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from chat import talk
from chat.models import Message, Room
from games.rights import Viewer
from tests.factories import make_match
from tests.ratings.helpers import account
from tests.test_consumers import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

SEAT1, SEAT2, SPECTATOR = Viewer(frozenset({1})), Viewer(frozenset({2})), Viewer()


@pytest.fixture(autouse=True)
def fresh_admission():
    from games import admission

    admission.reset()
    yield
    admission.reset()


async def chat_frame(communicator, room: str, timeout: float = 10) -> str:
    """The next frame carrying ``room``'s log (boards and counts may come in between)."""
    while True:
        html = await communicator.receive_from(timeout=timeout)
        if f'id="chat-log-{room}"' in html:
            return html.split(f'id="chat-log-{room}"', 1)[1].split("</ol>", 1)[0]


async def no_chat_frame(communicator) -> None:
    """Nothing about the chats comes (a count of spectators may)."""
    while not await communicator.receive_nothing(timeout=0.3):
        html = await communicator.receive_from(timeout=10)
        assert "chat-log" not in html, html


@database_sync_to_async
def say(match, viewer, user, room, text):
    return talk.say(match, viewer, user, room, text, "127.0.0.1")


async def test_a_message_reaches_each_reader_once_and_nobody_else():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    await say(match, SEAT2, None, Room.PLAYERS, "before")
    ada, _ = await connect(match.public_id, t1)
    bob, _ = await connect(match.public_id, t2)
    watcher, _ = await connect(match.public_id)
    # The log comes with the board, as each kind reads it.
    assert "before" in await chat_frame(ada, "players")
    assert "before" in await chat_frame(bob, "players")
    assert "before" not in await chat_frame(watcher, "spectators")
    await say(match, SEAT1, None, Room.PLAYERS, "<b>hello</b>")
    for page in (ada, bob):
        log = await chat_frame(page, "players")
        assert "&lt;b&gt;hello&lt;/b&gt;" in log and "before" in log
        assert 'hx-swap-oob="true"' in log
    await no_chat_frame(watcher)
    cleo = await database_sync_to_async(account)("cleo")
    await say(match, SPECTATOR, cleo, Room.SPECTATORS, "go Ada")
    assert "go Ada" in await chat_frame(watcher, "spectators")
    await no_chat_frame(ada)
    await no_chat_frame(bob)
    for page in (ada, bob, watcher):
        await page.disconnect()


async def test_a_mute_and_a_hidden_message_redraw_only_whom_they_concern():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    ada, _ = await connect(match.public_id, t1)
    bob, _ = await connect(match.public_id, t2)
    await chat_frame(ada, "players")
    await chat_frame(bob, "players")
    await say(match, SEAT2, None, Room.PLAYERS, "rude words")
    await chat_frame(ada, "players")
    await chat_frame(bob, "players")
    await database_sync_to_async(talk.set_mute)(match, SEAT1, True)
    assert "rude words" not in await chat_frame(ada, "players")
    await no_chat_frame(bob)  # Bob is not told
    await database_sync_to_async(talk.set_mute)(match, SEAT1, False)
    assert "rude words" in await chat_frame(ada, "players")
    hidden = await database_sync_to_async(talk.hide)(Message.objects.all())
    assert hidden == 1
    assert "rude words" not in await chat_frame(ada, "players")
    assert "rude words" not in await chat_frame(bob, "players")
    for page in (ada, bob):
        await page.disconnect()
