"""The lobby's websockets (lobby/consumers.py) through the real ASGI app: snapshots, live
rows and cards, expiry reaching the pages, caps, and one render per change however many
pages watch."""

from __future__ import annotations

import asyncio
import re
import threading
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore

from bitsite.asgi import application
from games import admission, play
from games.models import Match, new_secret
from lobby import live
from tests.factories import actor, make_match, until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_presence():
    admission.reset()
    yield
    admission.reset()


@pytest.fixture(autouse=True)
async def no_sweeper_left():
    """Each test's sweeper ends with it (its event loop ends with the test)."""
    yield
    task, live.sweeper.task, live.sweeper.pages = live.sweeper.task, None, 0
    if task is not None and not task.done():
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@database_sync_to_async
def session_cookie(token):
    session = SessionStore()
    session["token"] = token
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


async def connect(path, token=None, cookie=None, address=None):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if token:
        cookie = await session_cookie(token)
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    if address:
        communicator.scope["client"] = (address, 50000)
    connected, _ = await communicator.connect(timeout=10)  # a busy machine: not the point
    assert connected
    return communicator


@database_sync_to_async
def listed(game="bit-flip", token=None, name="Ada"):
    token = token or new_secret()
    return play.create_match(game, token=token, name=name, listed=True), token


def ids(html, prefix="c"):
    return re.findall(rf'id="{prefix}-([\w-]{{16}})"', html)


async def test_the_lobby_socket_lists_then_adds_and_removes_challenges_live():
    first, _ = await listed("bit-flip")
    page = await connect("/ws/lobby/")
    snapshot = await page.receive_from(timeout=10)
    assert 'id="challenge-list"' in snapshot and ids(snapshot) == [first.public_id]
    second, _ = await listed("last-digit-standing", name="Grace")
    added = await page.receive_from(timeout=10)
    assert added.startswith('<div hx-swap-oob="beforeend:#challenge-list">')
    assert ids(added) == [second.public_id] and "by Grace" in added and "Accept" in added
    await database_sync_to_async(play.join)(second.public_id, token=new_secret())
    removed = await page.receive_from(timeout=10)
    assert removed == f'<li id="c-{second.public_id}" hx-swap-oob="delete"></li>'
    assert await page.receive_nothing(timeout=0.2)
    await page.disconnect()


async def test_the_creator_gets_the_row_with_withdraw():
    token = new_secret()
    mine = await connect("/ws/lobby/", token=token)
    theirs = await connect("/ws/lobby/")
    for page in (mine, theirs):
        await page.receive_from(timeout=10)
    match, _ = await listed(token=token)
    own, other = await mine.receive_from(timeout=10), await theirs.receive_from(timeout=10)
    assert f"/lobby/{match.public_id}/withdraw" in own and "/accept" not in own
    assert f"/lobby/{match.public_id}/accept" in other and "/withdraw" not in other
    assert match.seat1_secret not in own + other  # the owner's hash never reaches a page
    for page in (mine, theirs):
        await page.disconnect()


async def test_a_row_the_page_already_shows_or_that_left_is_never_sent_again():
    from channels.layers import get_channel_layer

    match, _ = await listed()
    page = await connect("/ws/lobby/")
    assert ids(await page.receive_from(timeout=10)) == [match.public_id]
    layer = get_channel_layer()

    async def batch(*events):
        message = {"type": "lobby.batch", "events": list(events), "group": live.LOBBY_GROUP}
        await layer.group_send(live.LOBBY_GROUP, message)  # named, as the publisher sends it

    added = {
        "kind": "added",
        "id": match.public_id,
        "owner": "",
        "owner_user": None,
        "html": "x",
        "own_html": "x",
    }
    await batch(added)  # shown already: dropped
    assert await page.receive_nothing(timeout=0.2)
    await batch({"kind": "removed", "id": "AAAAAAAAAAAAAAAA", "html": "gone"})  # never shown
    assert await page.receive_nothing(timeout=0.2)
    await batch({**added, "id": "AAAAAAAAAAAAAAAA"})  # its removal overtook it: never shown
    assert await page.receive_nothing(timeout=0.2)
    new = {**added, "id": "BBBBBBBBBBBBBBBB", "html": "<li>b</li>", "own_html": "<li>mine</li>"}
    gone = {"kind": "removed", "id": match.public_id, "html": "<del>"}
    await batch(new, gone)  # both for this page: one frame
    assert await page.receive_from(timeout=10) == "<li>b</li><del>"
    await page.send_to(text_data='{"type": "sync"}')
    assert ids(await page.receive_from(timeout=10)) == [
        match.public_id
    ]  # the database's list again
    await page.disconnect()


async def test_a_challenge_expires_when_its_creators_pages_close_and_the_lobby_sees_it(settings):
    """The creator's match page closes; a minute later (made short here) the sweeper
    cancels the challenge: the lobby's pages lose its row, and its page says so."""
    settings.LOBBY_CREATOR_AWAY = 0.3
    settings.LOBBY_SWEEP_EVERY = 0.05
    match, token = await listed()
    creator = await connect(f"/ws/m/{match.public_id}/", token=token)
    await creator.receive_from(timeout=10)
    lobby = await connect("/ws/lobby/")
    assert ids(await lobby.receive_from(timeout=10)) == [match.public_id]
    # The creator is here: sweeps come and go (twice past the time away), nothing happens.
    swept = live.sweeper.ticks
    await until(lambda: live.sweeper.ticks >= swept + 8)
    assert await lobby.receive_nothing(timeout=0.1)
    spectator = await connect(f"/ws/m/{match.public_id}/")  # someone else keeps a page open
    await spectator.receive_from(timeout=10)
    await creator.disconnect()
    started = time.monotonic()
    removed = await lobby.receive_from(timeout=5)
    assert removed == f'<li id="c-{match.public_id}" hx-swap-oob="delete"></li>'
    assert time.monotonic() - started >= 0.25  # not before the creator was away long enough
    # The creator left (told once presence.GRACE has passed), and the match was cancelled:
    # two messages, in either order.
    told = [await spectator.receive_from(timeout=10) for _ in range(2)]
    assert any('data-online="no"' in message for message in told)
    assert any("This match was cancelled" in message for message in told)
    await database_sync_to_async(match.refresh_from_db)()
    assert (match.status, match.ending) == (Match.Status.FINISHED, Match.Ending.CANCELLED)
    for page in (lobby, spectator):
        await page.disconnect()


async def test_a_challenge_expires_after_its_time_to_live_with_the_lobby_told(settings):
    settings.LOBBY_CHALLENGE_TTL = 0.4
    settings.LOBBY_CREATOR_AWAY = 10_000
    settings.LOBBY_SWEEP_EVERY = 0.05
    match, _ = await listed()
    lobby = await connect("/ws/lobby/")
    assert ids(await lobby.receive_from(timeout=10)) == [match.public_id]
    removed = await lobby.receive_from(timeout=5)
    assert removed == f'<li id="c-{match.public_id}" hx-swap-oob="delete"></li>'
    await database_sync_to_async(match.refresh_from_db)()
    assert match.ending == Match.Ending.CANCELLED
    await lobby.disconnect()


async def test_the_watch_socket_adds_updates_and_removes_cards():
    early, _ = await listed("last-digit-standing")
    await database_sync_to_async(play.join)(early.public_id, token=new_secret())
    page = await connect("/ws/watch/")
    snapshot = await page.receive_from(timeout=10)
    assert 'id="watch-list"' in snapshot and ids(snapshot, "w") == [early.public_id]
    match, token1 = await listed("bit-flip")
    token2 = new_secret()
    await database_sync_to_async(play.join)(match.public_id, token=token2, name="Bob")
    added = await page.receive_from(timeout=10)
    assert added.startswith('<div hx-swap-oob="afterbegin:#watch-list">')
    assert ids(added, "w") == [match.public_id]
    assert 'aria-label="Position: 00000000"' in added
    joined = await database_sync_to_async(Match.objects.get)(pk=match.pk)
    await database_sync_to_async(play.submit_move)(
        match.public_id, by=actor(joined, token1), text="3", ply=0
    )
    moved = await page.receive_from(timeout=10)
    assert moved.startswith(f'<li class="watch-card" id="w-{match.public_id}" hx-swap-oob="true"')
    assert 'aria-label="Position: 00100000"' in moved
    # An unlisted match's moves never reach the watch page.
    private, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    await database_sync_to_async(play.submit_move)(
        private.public_id, by=actor(private, t1), text="1", ply=0
    )
    assert await page.receive_nothing(timeout=0.3)
    await database_sync_to_async(play.resign)(match.public_id, by=play.Actor(token=token2))
    assert (
        await page.receive_from(timeout=10)
        == f'<li id="w-{match.public_id}" hx-swap-oob="delete"></li>'
    )
    await page.disconnect()


async def test_nothing_is_drawn_for_the_watch_page_while_nobody_has_it_open(monkeypatch):
    drawn = []
    monkeypatch.setattr(live, "card_changed", lambda match: drawn.append(match.public_id))
    match, _ = await listed()
    await database_sync_to_async(play.join)(match.public_id, token=new_secret())
    assert drawn == []
    page = await connect("/ws/watch/")
    await page.receive_from(timeout=10)
    other, _ = await listed("bit-flip-divisor")
    await database_sync_to_async(play.join)(other.public_id, token=new_secret())
    assert drawn == [other.public_id]
    await page.disconnect()


@pytest.fixture
def counted(monkeypatch):
    """Counts every SQL query (on any thread) and every lobby render."""
    from django.db.backends import utils

    counts = {"queries": 0, "renders": 0}
    lock = threading.Lock()
    execute = utils.CursorWrapper._execute_with_wrappers

    def counting_execute(self, *args, **kwargs):
        with lock:
            counts["queries"] += 1
        return execute(self, *args, **kwargs)

    def counting(render):
        def wrapper(*args, **kwargs):
            with lock:
                counts["renders"] += 1
            return render(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(utils.CursorWrapper, "_execute_with_wrappers", counting_execute)
    monkeypatch.setattr(live, "render_challenge", counting(live.render_challenge))
    monkeypatch.setattr(live, "render_card", counting(live.render_card))
    return counts


async def test_a_lobby_change_costs_the_same_for_2_10_or_100_pages(counted, settings):
    """One render per variant and one group send, however many pages watch: a challenge
    opened, then accepted (its row leaves the lobby, its card joins the watch page)."""
    settings.SOCKETS_PER_MATCH = settings.SOCKETS_PER_PROCESS = 1000
    settings.LOBBY_SWEEP_EVERY = 3600  # no sweep's read inside the counted windows
    per_change = {}
    for pages in (2, 10, 100):
        sockets = []
        for i in range(pages):
            sockets.append(await connect("/ws/lobby/" if i % 2 == 0 else "/ws/watch/"))
            await sockets[-1].receive_from(timeout=10)
        lobby_pages = sockets[0::2]
        counted.update(queries=0, renders=0)
        match, _ = await listed()
        for page in lobby_pages:
            assert ids(await page.receive_from(timeout=10)) == [match.public_id]
        opened = dict(counted)
        counted.update(queries=0, renders=0)
        await database_sync_to_async(play.join)(match.public_id, token=new_secret())
        for page in sockets:
            assert match.public_id in await page.receive_from(timeout=10)
        per_change[pages] = (opened, dict(counted))
        for page in sockets:
            await page.disconnect()
    assert per_change[2] == per_change[10] == per_change[100], per_change
    opened, accepted = per_change[2]
    assert opened["renders"] == 2  # the row as everyone sees it, and as its creator does
    assert accepted["renders"] == 1  # the watch card (to add, or to replace: the same)


async def test_lobby_sockets_are_capped_per_browser_and_rate_limited(settings):
    from tests.test_limits import an_address, rates

    settings.SOCKETS_PER_MATCH = 2
    token = new_secret()
    cookie = await session_cookie(token)
    first = await connect("/ws/lobby/", cookie=cookie)
    second = await connect("/ws/lobby/", cookie=cookie)
    for page in (first, second):
        await page.receive_from(timeout=10)
    third = await connect("/ws/lobby/", cookie=cookie)
    assert await third.receive_output(timeout=10) == {"type": "websocket.close", "code": 4409}
    watch = await connect("/ws/watch/", cookie=cookie)  # the watch page counts apart
    await watch.receive_from(timeout=10)
    for page in (first, second, watch):
        await page.disconnect()
    settings.RATE_LIMITS = rates(socket=("100/m", "2/m"))
    address = an_address()
    outputs = []
    for path in ("/ws/lobby/", "/ws/watch/", "/ws/lobby/"):
        page = await connect(path, address=address)
        outputs.append(await page.receive_output(timeout=10))
        await page.disconnect()
    assert [o["type"] for o in outputs[:2]] == ["websocket.send"] * 2
    assert outputs[2] == {"type": "websocket.close", "code": 4429}


async def test_bad_frames_close_the_lobby_socket():
    page = await connect("/ws/lobby/")
    await page.receive_from(timeout=10)
    await page.send_to(text_data='{"type": "move"}')
    assert await page.receive_output(timeout=10) == {"type": "websocket.close", "code": 4400}
    await page.disconnect()
