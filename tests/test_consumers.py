"""The match websocket, through Channels' WebsocketCommunicator and the real ASGI app."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction

from bitsite.asgi import application
from games import play
from games.models import Presence
from tests.factories import actor, make_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def session_cookie(token):
    session = SessionStore()
    session["token"] = token
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


def client_with(cookie):
    """A Django test client in the same session as a socket sent ``cookie``."""
    from django.test import Client

    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = cookie.decode().split("=", 1)[1]
    return client


async def connect(public_id, token=None, origin=b"http://testserver", cookie=None):
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if token:
        cookie = await session_cookie(token)
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, f"/ws/m/{public_id}/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


def version_of(html):
    return int(re.search(r'id="board"[^>]*data-version="(\d+)"', html).group(1))


async def test_snapshot_on_connect_for_each_kind_of_viewer():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player1, ok1 = await connect(match.public_id, t1)
    player2, ok2 = await connect(match.public_id, t2)
    watcher, ok3 = await connect(match.public_id)
    assert ok1 and ok2 and ok3
    first = await player1.receive_from()
    second = await player2.receive_from()
    spectator = await watcher.receive_from()
    assert "Your turn" in first and 'name="move"' in first
    assert "Waiting for Player 1 (Ada)" in second and 'name="move"' not in second
    assert "Player 1 (Ada) to move" in spectator and 'name="move"' not in spectator
    for html in (first, second, spectator):
        assert 'id="board"' in html
        assert version_of(html) == match.version
    for communicator in (player1, player2, watcher):
        await communicator.disconnect()


async def test_exactly_one_push_per_accepted_move():
    match, t1, t2 = await database_sync_to_async(make_match)("last-digit-standing")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from()  # the snapshot
    moves = [(t1, "5"), (t2, "1"), (t1, "7")]
    for ply, (token, text) in enumerate(moves):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, token), text=text, ply=ply
        )
        html = await watcher.receive_from()
        assert version_of(html) == match.version + ply + 1
        assert f'data-ply="{ply + 1}"' in html
    assert await watcher.receive_nothing(timeout=0.3)
    # A refused move pushes nothing.
    with pytest.raises(play.Refused):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, t2), text="7", ply=3
        )
    assert await watcher.receive_nothing(timeout=0.3)
    await watcher.disconnect()


async def test_moves_in_quick_succession_each_push_the_newest_board():
    match, t1, t2 = await database_sync_to_async(make_match)("last-digit-standing")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from()
    moves = [(t1, "5"), (t2, "1"), (t1, "7")]
    for ply, (token, text) in enumerate(moves):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, token), text=text, ply=ply
        )
    # One push per move; each renders the board as it is when sent, never an older one.
    versions = [version_of(await watcher.receive_from()) for _ in moves]
    assert versions == sorted(versions)
    assert all(v >= match.version + i + 1 for i, v in enumerate(versions))
    assert versions[-1] == match.version + 3
    assert await watcher.receive_nothing(timeout=0.3)
    await watcher.disconnect()


async def test_the_push_comes_after_commit_and_a_rollback_pushes_nothing():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from()

    class Rollback(Exception):
        pass

    def rolled_back():
        try:
            with transaction.atomic():
                play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=0)
                raise Rollback
        except Rollback:
            pass

    await database_sync_to_async(rolled_back)()
    assert await watcher.receive_nothing(timeout=0.5)

    inside = threading.Event()
    release = threading.Event()

    def committed_later():
        with transaction.atomic():
            play.submit_move(match.public_id, by=actor(match, t1), text="2", ply=0)
            inside.set()
            release.wait(10)

    task = asyncio.ensure_future(database_sync_to_async(committed_later)())
    await asyncio.get_running_loop().run_in_executor(None, inside.wait, 10)
    assert await watcher.receive_nothing(timeout=0.5)  # written, not yet committed
    release.set()
    await task
    html = await watcher.receive_from(timeout=5)
    assert "01000000" in html
    assert version_of(html) == match.version + 1
    await watcher.disconnect()


async def test_a_foreign_origin_is_refused():
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, connected = await connect(match.public_id, origin=b"http://evil.example")
    assert not connected
    await communicator.disconnect()


async def test_an_unknown_match_is_closed_with_4404():
    communicator, connected = await connect("no-such-match")
    assert connected
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"text_data": "hello"}, 4400),
        ({"text_data": '{"type": "move", "move": "1"}'}, 4400),
        ({"bytes_data": b"\x00\x01"}, 4400),
        ({"text_data": '{"type": "sync", "pad": "' + "x" * 5000 + '"}'}, 4413),
    ],
)
async def test_unexpected_or_oversized_frames_close_the_socket(frame, code):
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from()
    await communicator.send_to(**frame)
    assert await communicator.receive_output() == {"type": "websocket.close", "code": code}
    # Nothing else was harmed: the match still takes moves, and a new socket works.
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    again, connected = await connect(match.public_id)
    assert connected
    assert "10000000" in await again.receive_from()
    await again.disconnect()


async def test_a_sync_frame_resends_the_board_and_a_flood_closes():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from()
    await communicator.send_to(text_data='{"type": "sync"}')
    assert 'id="board"' in await communicator.receive_from()
    for _ in range(25):
        await communicator.send_to(text_data='{"type": "sync"}')
    outputs = []
    while True:
        output = await communicator.receive_output(timeout=5)
        outputs.append(output)
        if output["type"] == "websocket.close":
            break
    assert outputs[-1] == {"type": "websocket.close", "code": 4429}
    assert len(outputs) <= 21


async def test_presence_is_written_on_connect_and_removed_on_disconnect():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player2, _ = await connect(match.public_id, t2)
    first = await player2.receive_from()
    assert 'data-online="no"' in first
    player1, _ = await connect(match.public_id, t1)
    await player1.receive_from()
    pushed = await player2.receive_from()
    assert 'data-online="yes"' in pushed
    seats = await database_sync_to_async(
        lambda: sorted(Presence.objects.values_list("seat", flat=True))
    )()
    assert seats == [1, 2]
    await player1.disconnect()
    pushed = await player2.receive_from()
    assert 'data-online="no"' in pushed
    seats = await database_sync_to_async(
        lambda: list(Presence.objects.values_list("seat", flat=True))
    )()
    assert seats == [2]
    await player2.disconnect()


async def test_the_heartbeat_keeps_a_connected_players_presence_fresh(monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from games import consumers

    monkeypatch.setattr(consumers, "HEARTBEAT", 0.05)
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    player1, _ = await connect(match.public_id, t1)
    await player1.receive_from()
    stale = timezone.now() - timedelta(hours=1)
    await database_sync_to_async(lambda: Presence.objects.update(seen_at=stale))()
    seen_at = database_sync_to_async(
        lambda: list(Presence.objects.values_list("seen_at", flat=True))
    )
    for _ in range(50):  # a heartbeat every 0.05 s: wait up to 5 s on a busy machine
        await asyncio.sleep(0.1)
        seen = await seen_at()
        if seen and seen[0] > stale:
            break
    assert len(seen) == 1 and seen[0] > timezone.now() - timedelta(seconds=5)
    await player1.disconnect()


async def test_a_hints_toggle_reaches_the_boards_pushed_afterwards():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip", mode="hotseat")
    cookie = await session_cookie(t1)
    communicator, _ = await connect(match.public_id, cookie=cookie)
    assert 'id="hint-line"' not in await communicator.receive_from()
    client = client_with(cookie)
    response = await database_sync_to_async(client.post)(
        f"/m/{match.public_id}/hints", HTTP_HX_REQUEST="true"
    )
    assert 'id="hint-line"' in response.content.decode()
    # The toggle itself sends this viewer's board again: a snapshot rendered before the
    # toggle may reach the page after the toggle's answer, and must not have the last word.
    assert 'id="hint-line"' in await communicator.receive_from()
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    assert 'id="hint-line"' in await communicator.receive_from()
    await communicator.disconnect()


async def test_a_hints_toggle_while_the_socket_connects_wins_over_its_snapshot(monkeypatch):
    """The toggle lands after the socket read the session and before its snapshot went out:
    the socket's last board still shows the hints."""
    from games import boards

    match, t1, _ = await database_sync_to_async(make_match)("bit-flip", mode="hotseat")
    cookie = await session_cookie(t1)
    client = client_with(cookie)
    original = boards.viewer_from_session
    toggled = []

    def read_then_toggle(session, m):
        viewer = original(session, m)
        if not toggled:
            toggled.append(client.post(f"/m/{match.public_id}/hints", HTTP_HX_REQUEST="true"))
        return viewer

    monkeypatch.setattr(boards, "viewer_from_session", read_then_toggle)
    communicator, _ = await connect(match.public_id, cookie=cookie)
    assert toggled and toggled[0].status_code == 200
    boards_sent = [await communicator.receive_from()]
    while not await communicator.receive_nothing(timeout=0.5):
        boards_sent.append(await communicator.receive_from())
    assert 'id="hint-line"' not in boards_sent[0]  # the snapshot, read before the toggle
    assert 'id="hint-line"' in boards_sent[-1]
    await communicator.disconnect()


async def test_a_hints_toggle_sends_nothing_to_viewers_it_does_not_change():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip", mode="hotseat")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from()
    client = client_with(await session_cookie(t1))
    response = await database_sync_to_async(client.post)(
        f"/m/{match.public_id}/hints", HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert await watcher.receive_nothing(timeout=0.5)
    await watcher.disconnect()


@pytest.mark.services
async def test_an_idle_socket_on_the_redis_layer_stays_open():
    """redis-py 8 made reads time out after 5 s by default, which killed every idle
    channels-redis receive (its BZPOPMIN blocks for 5 s); settings give the layer
    a longer socket timeout."""
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from()
    assert await communicator.receive_nothing(timeout=8)  # idle for longer than 5 s
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    assert "10000000" in await communicator.receive_from(timeout=5)
    await communicator.disconnect()
