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
from tests.factories import actor, make_match, until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_presence():
    """Each test starts with no sockets counted in this process. (The cache is not cleared:
    with REDIS_URL it is a shared Redis, and every test's match has ids of its own.)"""
    from games import admission, presence

    admission.reset()
    presence.GRACE, grace = 0.2, presence.GRACE  # a page that closes reads as gone at once
    yield
    presence.GRACE = grace
    admission.reset()


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


async def board_from(communicator, timeout=10):
    """The next frame that is a board: a spectator's page opening sends every page its
    "N watching" (a small frame of its own) in between."""
    while True:
        html = await communicator.receive_from(timeout=timeout)
        if 'id="board"' in html or 'id="watching"' not in html:
            return html


def version_of(html):
    return int(re.search(r'id="board(?:-state)?"[^>]*data-version="(\d+)"', html).group(1))


async def test_snapshot_on_connect_for_each_kind_of_viewer():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player1, ok1 = await connect(match.public_id, t1)
    player2, ok2 = await connect(match.public_id, t2)
    watcher, ok3 = await connect(match.public_id)
    assert ok1 and ok2 and ok3
    first = await player1.receive_from(timeout=10)
    second = await player2.receive_from(timeout=10)
    spectator = await watcher.receive_from(timeout=10)
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
    await watcher.receive_from(timeout=10)  # the snapshot
    moves = [(t1, "5"), (t2, "1"), (t1, "7")]
    for ply, (token, text) in enumerate(moves):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, token), text=text, ply=ply
        )
        html = await watcher.receive_from(timeout=10)
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
    await watcher.receive_from(timeout=10)
    moves = [(t1, "5"), (t2, "1"), (t1, "7")]
    for ply, (token, text) in enumerate(moves):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, token), text=text, ply=ply
        )
    # A push per move; each renders the board as it is when sent, and the page never goes
    # back to an older one. Over Redis the three group sends are under way at once and may
    # land out of order: the socket forwards only a board newer than the one it shows, so
    # a page may skip one, never the newest.
    newest = match.version + len(moves)
    versions = [version_of(await watcher.receive_from(timeout=10))]
    while versions[-1] < newest:
        versions.append(version_of(await watcher.receive_from(timeout=10)))
    assert versions == sorted(set(versions)) and len(versions) <= len(moves)
    assert versions[0] >= match.version + 1
    assert await watcher.receive_nothing(timeout=0.3)
    await watcher.disconnect()


async def test_the_push_comes_after_commit_and_a_rollback_pushes_nothing():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from(timeout=10)

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


@pytest.mark.parametrize(
    "origin",
    [
        b"http://evil.example",
        b"http://testserver:6666",  # the right host on another port
        b"https://testserver",  # or another scheme (this site is served over plain HTTP)
        b"http://testserver.evil.example",
        b"null",
        b"",
        None,
    ],
)
async def test_an_origin_other_than_the_sites_own_is_refused(origin):
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    headers = [(b"host", b"testserver")] + ([(b"origin", origin)] if origin is not None else [])
    communicator = WebsocketCommunicator(application, f"/ws/m/{match.public_id}/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_the_sites_own_origin_with_its_port_and_a_trusted_origin_are_accepted(settings):
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.org"]
    cases = [
        (b"localhost:8000", b"http://localhost:8000", "ws", True),
        (b"localhost:8000", b"http://localhost:8001", "ws", False),
        (b"localhost", b"http://localhost:80", "ws", True),  # the default port, said or not
        (b"localhost", b"https://localhost", "wss", True),
        (b"localhost", b"http://localhost", "wss", False),
        (b"localhost:8000", b"https://play.example.org", "ws", True),
        (b"evil.example", b"http://evil.example", "ws", False),  # not an allowed host
    ]
    for host, origin, scheme, accepted in cases:
        communicator = WebsocketCommunicator(
            application,
            f"/ws/m/{match.public_id}/",
            headers=[(b"host", host), (b"origin", origin)],
        )
        communicator.scope["scheme"] = scheme
        connected, _ = await communicator.connect()
        assert connected is accepted, (host, origin, scheme)
        await communicator.disconnect()


async def test_behind_a_proxy_its_forwarded_scheme_counts(settings):
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    settings.ALLOWED_HOSTS = ["play.example.org"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    for forwarded, accepted in ((b"https", True), (b"http", False)):
        communicator = WebsocketCommunicator(
            application,
            f"/ws/m/{match.public_id}/",
            headers=[
                (b"host", b"play.example.org"),
                (b"origin", b"https://play.example.org"),
                (b"x-forwarded-proto", forwarded),
            ],
        )
        connected, _ = await communicator.connect()
        assert connected is accepted
        await communicator.disconnect()


@pytest.mark.parametrize(
    "path",
    [
        "/ws/m/AAAAAAAAAAAAAAAA/",  # the right form, no such match
        "/ws/m/no-such-match/",
        "/ws/m/\xff/",
        "/ws/m/" + "x" * 2000 + "/",
        "/ws/m/../../etc/passwd/",
        "/ws/nothing/here/",
        "/",
    ],
)
async def test_an_unknown_match_or_path_is_closed_with_4404(path):
    """(A NUL or a path over 2,048 characters is refused before, at the handshake:
    tests/test_fuzz.py.)"""
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_output(timeout=10) == {
        "type": "websocket.close",
        "code": 4404,
    }


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"text_data": "hello"}, 4400),
        ({"text_data": '{"type": "rematch"}'}, 4400),  # an action a socket does not take
        ({"text_data": '{"type": ["move"]}'}, 4400),
        ({"bytes_data": b"\x00\x01"}, 4400),
        ({"text_data": '{"type": "sync", "pad": "' + "x" * 5000 + '"}'}, 4413),
    ],
)
async def test_unexpected_or_oversized_frames_close_the_socket(frame, code):
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from(timeout=10)
    await communicator.send_to(**frame)
    assert await communicator.receive_output(timeout=10) == {
        "type": "websocket.close",
        "code": code,
    }
    # Nothing else was harmed: the match still takes moves, and a new socket works.
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    again, connected = await connect(match.public_id)
    assert connected
    assert "10000000" in await again.receive_from(timeout=10)
    await again.disconnect()


async def test_a_sync_frame_resends_the_board_and_a_flood_closes():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from(timeout=10)
    await communicator.send_to(text_data='{"type": "sync"}')
    assert 'id="board"' in await communicator.receive_from(timeout=10)
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


async def test_presence_is_a_small_update_on_connect_and_disconnect():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player2, _ = await connect(match.public_id, t2)
    first = await player2.receive_from(timeout=10)
    assert 'id="presence-seat1" data-online="no"' in first
    assert 'id="presence-seat2"' not in first  # a player's own mark is not drawn
    player1, _ = await connect(match.public_id, t1)
    snapshot = await player1.receive_from(timeout=10)
    assert 'id="presence-seat2" data-online="yes"' in snapshot
    pushed = await player2.receive_from(timeout=10)
    assert 'id="board"' not in pushed  # one small update, never a board
    assert 'id="presence-seat1" data-online="yes"' in pushed
    assert await player2.receive_nothing(timeout=0.3)
    await player1.disconnect()
    pushed = await player2.receive_from(timeout=10)
    assert 'id="board"' not in pushed
    assert 'id="presence-seat1" data-online="no"' in pushed
    await player2.disconnect()


async def test_a_second_page_of_a_connected_player_sends_no_update():
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player2, _ = await connect(match.public_id, t2)
    await player2.receive_from(timeout=10)
    tab1, _ = await connect(match.public_id, t1)
    await tab1.receive_from(timeout=10)
    assert 'data-online="yes"' in await player2.receive_from(timeout=10)
    tab2, _ = await connect(match.public_id, t1)
    await tab2.receive_from(timeout=10)
    assert await player2.receive_nothing(timeout=0.3)
    await tab1.disconnect()  # the other tab is still open: still connected
    assert await player2.receive_nothing(timeout=0.3)
    await tab2.disconnect()
    assert 'data-online="no"' in await player2.receive_from(timeout=10)
    await player2.disconnect()


@pytest.fixture
def fast_heartbeat(monkeypatch):
    """Heartbeats every 0.2 s, slots that live 1 s."""
    from games import presence

    monkeypatch.setattr(presence, "HEARTBEAT", 0.2)
    monkeypatch.setattr(presence, "CHECK", 0.1)
    monkeypatch.setattr(presence, "TTL", 1)
    return presence


async def test_the_heartbeat_survives_errors_and_keeps_the_player_connected(
    fast_heartbeat, monkeypatch
):
    presence = fast_heartbeat
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    original = presence.refresh
    calls = []

    def failing_then_fine(*args):
        calls.append(args)
        if len(calls) <= 2:
            raise ConnectionError("the cache went away for a moment")
        return original(*args)

    monkeypatch.setattr(presence, "refresh", failing_then_fine)
    player1, _ = await connect(match.public_id, t1)
    await player1.receive_from(timeout=10)
    # A membership lives 1 s: past it, only a refresh keeps it. It went on after the two
    # errors.
    await until(lambda: len(calls) >= 8)
    online = await database_sync_to_async(presence.online_seats)(match.public_id)
    assert online == {1}
    await player1.disconnect()


async def test_a_player_whose_process_vanished_reads_as_gone(fast_heartbeat):
    """A membership nobody refreshes (its process was killed) expires, and the pages that
    show that player as connected are corrected without any sweeper."""
    presence = fast_heartbeat
    match, _, t2 = await database_sync_to_async(make_match)("bit-flip")
    # Seat 1's socket lived on a process that was then killed: its membership is all that
    # is left of it.
    await database_sync_to_async(presence.store().join)(
        "specific.dead!process", [presence.seat_set(match.public_id, 1)]
    )
    player2, _ = await connect(match.public_id, t2)
    assert 'id="presence-seat1" data-online="yes"' in await player2.receive_from(timeout=10)
    gone = await player2.receive_from(timeout=5)  # within TTL + CHECK
    assert 'id="presence-seat1" data-online="no"' in gone and 'id="board"' not in gone
    await player2.disconnect()


async def test_sockets_past_the_cap_of_one_browser_on_one_match_are_refused(settings):
    settings.SOCKETS_PER_MATCH = 3
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    cookie = await session_cookie(t1)
    opened = []
    for _ in range(3):
        communicator, connected = await connect(match.public_id, cookie=cookie)
        assert connected
        assert 'id="board"' in await communicator.receive_from(timeout=10)
        opened.append(communicator)
    refused, connected = await connect(match.public_id, cookie=cookie)
    assert await refused.receive_output(timeout=10) == {"type": "websocket.close", "code": 4409}
    # Another browser is not affected, and a closed page frees its place.
    watcher, _ = await connect(match.public_id)
    assert 'id="board"' in await watcher.receive_from(timeout=10)
    await opened.pop().disconnect()
    again, _ = await connect(match.public_id, cookie=cookie)
    assert 'id="board"' in await again.receive_from(timeout=10)
    for communicator in [*opened, again, watcher]:
        await communicator.disconnect()


async def test_sockets_past_the_cap_of_one_browser_on_one_process_are_refused(settings):
    settings.SOCKETS_PER_PROCESS = 2
    cookie = await session_cookie("some-browser")
    opened = []
    for _ in range(2):
        match, _, _ = await database_sync_to_async(make_match)("bit-flip")
        communicator, _ = await connect(match.public_id, cookie=cookie)
        assert 'id="board"' in await communicator.receive_from(timeout=10)
        opened.append(communicator)
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    refused, _ = await connect(match.public_id, cookie=cookie)
    assert await refused.receive_output(timeout=10) == {"type": "websocket.close", "code": 4409}
    await refused.disconnect()
    await opened.pop().disconnect()
    again, _ = await connect(match.public_id, cookie=cookie)
    assert 'id="board"' in await again.receive_from(timeout=10)
    for communicator in [*opened, again]:
        await communicator.disconnect()


async def test_a_hints_toggle_reaches_the_players_boards_and_only_theirs():
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip", mode="hotseat")
    cookie = await session_cookie(t1)
    player, _ = await connect(match.public_id, cookie=cookie)
    assert 'id="hint-line"' not in await player.receive_from(timeout=10)
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from(timeout=10)
    client = client_with(cookie)
    response = await database_sync_to_async(client.post)(
        f"/m/{match.public_id}/hints", HTTP_HX_REQUEST="true"
    )
    assert 'id="hint-line"' in response.content.decode()
    # Every page of the player shows the hints now; a spectator's board did not change.
    assert 'id="hint-line"' in await board_from(player)
    assert await watcher.receive_nothing(timeout=0.5)
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    assert 'id="hint-line"' in await board_from(player)
    spectator_board = await watcher.receive_from(timeout=10)
    assert 'id="hint-line"' not in spectator_board and "10000000" in spectator_board
    for communicator in (player, watcher):
        await communicator.disconnect()


async def test_a_hints_toggle_while_the_socket_connects_wins_over_its_snapshot(monkeypatch):
    """The toggle lands after the socket read the match and before it joined its group (so
    the toggle's push cannot reach it): the socket sees the newer version and sends the
    board with the hints, never leaving the page on the older one."""
    from games import consumers

    match, t1, _ = await database_sync_to_async(make_match)("bit-flip", mode="hotseat")
    cookie = await session_cookie(t1)
    client = client_with(cookie)
    original = consumers.viewer_of
    toggled = []

    def read_then_toggle(m, token):
        viewer = original(m, token)
        if not toggled:
            toggled.append(client.post(f"/m/{match.public_id}/hints", HTTP_HX_REQUEST="true"))
        return viewer

    monkeypatch.setattr(consumers, "viewer_of", read_then_toggle)
    communicator, _ = await connect(match.public_id, cookie=cookie)
    assert toggled and toggled[0].status_code == 200
    boards_sent = [await communicator.receive_from(timeout=10)]
    while not await communicator.receive_nothing(timeout=0.5):
        boards_sent.append(await communicator.receive_from(timeout=10))
    assert 'id="hint-line"' in boards_sent[-1]
    assert version_of(boards_sent[-1]) == match.version + 1
    await communicator.disconnect()


@pytest.fixture
def counted(monkeypatch):
    """Counts every SQL query (on any thread) and every board render."""
    from django.db.backends import utils

    from games import boards

    counts = {"queries": 0, "renders": 0}
    lock = threading.Lock()
    execute = utils.CursorWrapper._execute_with_wrappers
    render = boards.render_board

    def counting_execute(self, *args, **kwargs):
        with lock:
            counts["queries"] += 1
        return execute(self, *args, **kwargs)

    def counting_render(*args, **kwargs):
        with lock:
            counts["renders"] += 1
        return render(*args, **kwargs)

    monkeypatch.setattr(utils.CursorWrapper, "_execute_with_wrappers", counting_execute)
    monkeypatch.setattr(boards, "render_board", counting_render)
    return counts


async def test_a_change_costs_the_same_queries_and_renders_for_1_10_or_100_sockets(counted):
    """One read and one render per kind of viewer, however many pages watch."""
    per_change = {}
    for spectators in (1, 10, 100):
        match, t1, t2 = await database_sync_to_async(make_match)("last-bit-standing")
        player1, _ = await connect(match.public_id, t1)
        await player1.receive_from(timeout=10)  # the snapshot: a read for that one socket
        player2, _ = await connect(match.public_id, t2)
        await player2.receive_from(timeout=10)
        assert 'data-online="yes"' in await player1.receive_from(timeout=10)  # player 2 is here
        sockets = [player1, player2]
        for _ in range(spectators):
            watcher, _ = await connect(match.public_id)
            await watcher.receive_from(timeout=10)
            sockets.append(watcher)
        counted.update(queries=0, renders=0)
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, t1), text="0", ply=0
        )
        for communicator in sockets:
            assert 'data-ply="1"' in await board_from(communicator, timeout=10)
        per_change[spectators] = dict(counted)
        for communicator in sockets:
            await communicator.disconnect()
    assert per_change[1] == per_change[10] == per_change[100], per_change
    assert per_change[1]["renders"] == 3  # seat 1, seat 2, spectator


async def test_renders_per_presence_change_grow_linearly_with_sockets(counted, settings):
    """Many pages of one player: each renders its own snapshot once, and the other pages
    get one small update, not a board per page per page (that was quadratic)."""
    settings.SOCKETS_PER_MATCH = settings.SOCKETS_PER_PROCESS = 100
    renders = {}
    for pages in (10, 40):
        match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
        opponent, _ = await connect(match.public_id, t2)
        await opponent.receive_from(timeout=10)
        counted.update(queries=0, renders=0)
        cookie = await session_cookie(t1)
        tabs = []
        for _ in range(pages):
            tab, _ = await connect(match.public_id, cookie=cookie)
            await tab.receive_from(timeout=10)
            tabs.append(tab)
        update = await opponent.receive_from(timeout=10)
        assert 'data-online="yes"' in update
        # One update for all those pages. The one thing that may follow is the same mark
        # again (a page's periodic presence check, or a publish resent after a slow
        # Redis, can repeat it under load); never a board, never one per page.
        extra = []
        while not await opponent.receive_nothing(timeout=0.3):
            out = await opponent.receive_output(timeout=10)
            assert out["type"] == "websocket.send", out
            extra.append(out["text"])
        assert extra in ([], [update]), extra
        for tab in tabs:
            assert await tab.receive_nothing(timeout=0.01)
        renders[pages] = counted["renders"]
        for tab in tabs:
            await tab.disconnect()
        assert 'data-online="no"' in await opponent.receive_from(timeout=10)
        await opponent.disconnect()
    assert renders == {10: 10, 40: 40}


@pytest.mark.services
async def test_an_idle_socket_on_the_redis_layer_stays_open():
    """redis-py 8 made reads time out after 5 s by default, which killed every idle
    channels-redis receive (its BZPOPMIN blocks for 5 s); settings give the layer
    a longer socket timeout."""
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    communicator, _ = await connect(match.public_id, t1)
    await communicator.receive_from(timeout=10)
    assert await communicator.receive_nothing(timeout=8)  # idle for longer than 5 s
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(match, t1), text="1", ply=0
    )
    assert "10000000" in await communicator.receive_from(timeout=5)
    await communicator.disconnect()


async def test_a_spectators_page_is_counted_for_every_page_in_a_small_update():
    """ "N watching": the first board of a page carries the count; a spectator's page
    opening or closing sends the new count to every page, never a board."""
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    player, _ = await connect(match.public_id, t1)
    first = await player.receive_from(timeout=10)
    assert 'id="board"' in first and re.search(r'id="watching" hidden>.*0 watching', first)
    watcher, _ = await connect(match.public_id)
    snapshot = await watcher.receive_from(timeout=10)
    assert 'id="board"' in snapshot and "1 watching" in snapshot
    pushed = await player.receive_from(timeout=5)
    assert 'id="board"' not in pushed and 'id="watching"' in pushed and "1 watching" in pushed
    assert await watcher.receive_nothing(timeout=0.3)  # its own count came with its board
    await watcher.disconnect()
    pushed = await player.receive_from(timeout=5)  # at most a count a second
    assert 'id="board"' not in pushed and "0 watching" in pushed
    assert await player.receive_nothing(timeout=0.3)
    await player.disconnect()


async def test_a_player_who_only_reloads_is_never_shown_away():
    from games import presence

    presence.GRACE = 1.5
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    player2, _ = await connect(match.public_id, t2)
    await player2.receive_from(timeout=5)
    player1, _ = await connect(match.public_id, t1)
    await player1.receive_from(timeout=5)
    assert 'id="presence-seat1" data-online="yes"' in await player2.receive_from(timeout=5)
    await player1.disconnect()
    player1, _ = await connect(match.public_id, t1)  # the reloaded page
    assert 'id="presence-seat2" data-online="yes"' in await player1.receive_from(timeout=5)
    assert await player2.receive_nothing(timeout=2.5)  # past the grace: not a word
    await player1.disconnect()  # gone for good: told once the grace has passed
    gone = await player2.receive_from(timeout=5)
    assert re.search(r'id="presence-seat1" data-online="no" data-away-ms="1[5-9]\d\d"', gone)
    await player2.disconnect()


REALTIME = {"clock": "realtime", "base": 180, "increment": 2}


async def test_the_server_aborts_a_first_move_that_never_came_on_every_page(settings):
    from games.models import Match

    settings.ABORT_AFTER = 1.5  # the server aborts at 3 s: after both pages' first board
    match, t1, _ = await database_sync_to_async(make_match)(
        "last-bit-standing", time_control=REALTIME
    )
    watcher, _ = await connect(match.public_id)
    player1, _ = await connect(match.public_id, t1)
    assert "s to make a first move, or the game is aborted" in await watcher.receive_from(
        timeout=10
    )
    assert 'id="abort"' in await player1.receive_from(timeout=10)
    for page in (watcher, player1):  # nobody asks: the server's timer aborts it
        pushed = await page.receive_from(timeout=10)
        while 'id="board"' not in pushed:  # a presence mark (player 1's page opened)
            pushed = await page.receive_from(timeout=10)
        assert "Aborted: no result" in pushed
        assert "a first move did not come in time" in pushed
    ended = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    assert (ended.ending, ended.winner, ended.ended_by) == ("aborted", None, None)
    for page in (watcher, player1):
        await page.disconnect()


async def test_the_servers_timers_are_read_again_from_the_database_after_a_restart(settings):
    from games import timers
    from games.models import Match

    settings.ABORT_AFTER = 0.3
    match, _, _ = await database_sync_to_async(make_match)(
        "last-bit-standing", time_control=REALTIME
    )
    fired = timers.fired
    timers.forget()  # a process that starts knows of no timer
    timers.recover()  # as daphne starts serving (bitsite/asgi.py)
    for _ in range(1500):
        ended = await database_sync_to_async(Match.objects.get)(pk=match.pk)
        if ended.status == "finished":
            break
        await asyncio.sleep(0.02)
    assert (ended.ending, ended.ended_by) == ("aborted", None)
    assert timers.fired > fired


async def test_a_push_is_what_changed_on_a_page_that_shows_the_push_before_it():
    """After its first board (drawn for it alone), a socket is sent the first push whole and
    every later one as what changed; a push drawn against a board the page does not show
    (another process drew the one before, or this process no longer keeps it) goes whole."""
    from games import live

    match, t1, t2 = await database_sync_to_async(make_match)("last-digit-standing")
    watcher, _ = await connect(match.public_id)
    await watcher.receive_from(timeout=10)  # the snapshot

    async def move(ply, token, text):
        await database_sync_to_async(play.submit_move)(
            match.public_id, by=actor(match, token), text=text, ply=ply
        )
        return await board_from(watcher)

    first = await move(0, t1, "5")
    assert 'id="board"' in first and not first.startswith("<!--delta:")
    second = await move(1, t2, "1")
    assert second.startswith(f"<!--delta:{version_of(first)}-->")
    assert version_of(second) == version_of(first) + 1 and 'id="board"' not in second
    assert len(second) < len(first)
    # The board kept for the next push is not the one the page shows (a board of the same
    # slots, of another version): the push goes whole.
    live.drawn.boards[(match.public_id, "spectator")] = (version_of(first) - 1, first)
    third = await move(2, t1, "7")
    assert 'id="board"' in third and not third.startswith("<!--delta:")
    assert version_of(third) == version_of(second) + 1
    await watcher.disconnect()
