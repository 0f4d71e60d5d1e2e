"""Admission before work (games/admission.py, games/sockets.py): no client's sockets slow
the others, and nothing of a socket outlives it however it ends.

Each test runs the site's ASGI application in this process, as daphne does: a socket that
daphne gives up on (a handshake that took too long, an application that did not end
after its connection did) has its task cancelled, which is ``communicator.future.cancel()``
here (daphne/server.py: "took too long to shut down and was killed")."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from bitsite.asgi import application
from games import admission, presence
from games import consumers as match_sockets
from games.sockets import CLOSE_TOO_MANY, CLOSE_TRY_LATER
from lobby import consumers as lobby_sockets
from lobby import live as lobby_live
from tests.factories import make_match, until
from tests.test_consumers import counted, session_cookie  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ELSEWHERE = "203.0.113.7"  # a client address that is not exempt (TEST-NET-3)


@pytest.fixture(autouse=True)
def fresh_counts():
    admission.reset()
    yield
    admission.reset()


def socket(path, *, cookie=None, address=ELSEWHERE):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    communicator.scope["client"] = (address, 50000)
    return communicator


async def opened(communicator) -> str:
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return await communicator.receive_from(timeout=10)


async def closed_with(communicator) -> int:
    connected, _ = await communicator.connect(timeout=10)
    assert connected  # accepted, then closed at once with a reason
    message = await communicator.receive_output(timeout=10)
    assert message["type"] == "websocket.close", message
    await communicator.disconnect()  # the browser goes: its application ends
    return message["code"]


async def closed_all(pages) -> None:
    """Every page of a storm goes at once, each given time to end on its own: one after
    the other, with the test client's default of a second before it cancels, forty pages
    on Redis took from 10 s to over 3 minutes on a loaded machine."""
    await asyncio.gather(*(page.disconnect(timeout=30) for page in pages))


def socket_tasks() -> list[asyncio.Task]:
    """The heartbeats and syncs of sockets still running on this loop."""
    names = ("_heartbeat", "_sync_later")
    return [
        task
        for task in asyncio.all_tasks()
        if not task.done() and getattr(task.get_coro(), "__name__", "") in names
    ]


def seat_members(public_id: str) -> list[int] | None:
    return presence.counts([presence.seat_set(public_id, 1), presence.kind_set(public_id, "seat1")])


class Stall:
    """Holds a step of every match socket until released: by default its first board's
    read (after its turn), ``admit`` to hold its turn in the line."""

    def __init__(self, monkeypatch, step="_shared_snapshot"):
        self.reached = 0
        self.order: list[bool] = []  # whether each read's socket had a session cookie
        self.release = asyncio.Event()
        original = getattr(match_sockets.MatchConsumer, step)

        async def stalled(consumer, *args):
            self.reached += 1
            self.order.append(consumer.client.has_session)
            await self.release.wait()
            return await original(consumer, *args)

        monkeypatch.setattr(match_sockets.MatchConsumer, step, stalled)


async def kill(communicator) -> None:
    """What daphne does to an application that outlived its connection."""
    communicator.future.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await communicator.future


# ---- nothing outlives a socket ------------------------------------------------------------


async def test_a_socket_killed_mid_handshake_leaves_no_presence_and_no_task(monkeypatch):
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    stall = Stall(monkeypatch)
    player = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie(t1))
    await player.send_input({"type": "websocket.connect"})
    await until(lambda: stall.reached == 1)  # its seat is taken in the sets, no board yet
    assert await presence.call(seat_members, match.public_id) == [1, 1]
    await kill(player)
    assert await presence.call(seat_members, match.public_id) == [0, 0]
    assert socket_tasks() == []
    assert admission.gate.busy == 0 and not admission._open


async def test_a_socket_killed_after_it_opened_stops_its_heartbeat(monkeypatch, settings):
    """Our part of a kill: the killed socket's heartbeat stops and its presence goes, the
    other socket's stay. On the suite's own layer: channels-redis's in the PostgreSQL +
    Redis suite, where cancelling one consumer while it holds the process's shared receive
    once ended or stalled the other's read now and then (django/channels#1683,
    django/channels_redis#134); the read is now cancelled until it has ended
    (bitsite/layers.py) and tests/test_layers.py races it a hundred times."""
    monkeypatch.setattr(presence, "GRACE", 0.2)  # a page that closes reads as gone at once
    monkeypatch.setattr(presence, "CHECK", 0.05)
    monkeypatch.setattr(presence, "HEARTBEAT", 0.1)
    match, t1, t2 = await database_sync_to_async(make_match)("bit-flip")
    opponent = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie(t2))
    await opened(opponent)
    player = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie(t1))
    await opened(player)
    assert 'data-online="yes"' in await opponent.receive_from(timeout=10)
    assert len(socket_tasks()) == 2
    await kill(player)  # no websocket.disconnect ever reaches it
    assert len(socket_tasks()) == 1  # the opponent's own
    assert await presence.call(seat_members, match.public_id) == [0, 0]
    assert 'data-online="no"' in await opponent.receive_from(timeout=10)
    await opponent.disconnect()
    assert socket_tasks() == []


# ---- caps decided in memory, before any work -----------------------------------------------


async def test_cookieless_sockets_are_capped_per_address(settings, counted):  # noqa: F811
    settings.SOCKETS_PER_ADDRESS = 3
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    pages = [socket(f"/ws/m/{match.public_id}/") for _ in range(3)]
    for page in pages:
        await opened(page)
    counted.update(queries=0, renders=0)
    assert await closed_with(socket(f"/ws/m/{match.public_id}/")) == CLOSE_TOO_MANY
    assert counted == {"queries": 0, "renders": 0}  # refused before anything was read
    # Another address, and a loopback one (a proxy on this host: exempt), are let in.
    await opened(socket(f"/ws/m/{match.public_id}/", address="198.51.100.9"))
    await opened(socket(f"/ws/m/{match.public_id}/", address="127.0.0.1"))
    await pages[0].disconnect()
    await opened(socket(f"/ws/m/{match.public_id}/"))  # a place came free


async def test_a_full_line_of_handshakes_is_refused_at_once_and_the_rest_served(
    settings, monkeypatch
):
    settings.HANDSHAKES, settings.HANDSHAKE_QUEUE = 1, 2
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    stall = Stall(monkeypatch, "admit")
    addresses = iter(f"198.51.100.{n}" for n in range(1, 10))
    first = socket(f"/ws/m/{match.public_id}/", address=next(addresses))
    await first.send_input({"type": "websocket.connect"})
    await until(lambda: stall.reached == 1)
    waiting = [socket(f"/ws/m/{match.public_id}/", address=next(addresses)) for _ in range(2)]
    for page in waiting:
        await page.send_input({"type": "websocket.connect"})
    await until(lambda: admission.gate.waiting() == 2)
    late = socket(f"/ws/m/{match.public_id}/", address=next(addresses))
    assert await closed_with(late) == CLOSE_TRY_LATER  # at once: the line is full
    stall.release.set()
    for page in (first, *waiting):
        assert (await page.receive_output(timeout=10))["type"] == "websocket.accept"
        assert 'id="board"' in await page.receive_from(timeout=10)
    assert admission.gate.busy == 0 and admission.gate.waiting() == 0


async def test_a_browsers_socket_finding_the_line_full_takes_a_cookieless_ones_place(
    settings, monkeypatch
):
    """A storm of cookie-less sockets fills the line: a player's own page still opens, and
    the storm's last socket is the one refused."""
    settings.HANDSHAKES, settings.HANDSHAKE_QUEUE = 1, 2
    match, t1, _ = await database_sync_to_async(make_match)("bit-flip")
    stall = Stall(monkeypatch, "admit")
    addresses = iter(f"198.51.100.{n}" for n in range(1, 10))
    first = socket(f"/ws/m/{match.public_id}/", address=next(addresses))
    await first.send_input({"type": "websocket.connect"})
    await until(lambda: stall.reached == 1)
    storm = [socket(f"/ws/m/{match.public_id}/", address=next(addresses)) for _ in range(2)]
    for page in storm:
        await page.send_input({"type": "websocket.connect"})
    await until(lambda: admission.gate.waiting() == 2)
    player = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie(t1))
    await player.send_input({"type": "websocket.connect"})
    # The storm's last socket is turned away at once (accepted, then closed with why).
    assert (await storm[1].receive_output(timeout=10))["type"] == "websocket.accept"
    turned_away = await storm[1].receive_output(timeout=10)
    assert turned_away == {"type": "websocket.close", "code": CLOSE_TRY_LATER}
    stall.release.set()
    for page in (first, player, storm[0]):
        assert (await page.receive_output(timeout=10))["type"] == "websocket.accept"
        assert 'id="board"' in await page.receive_from(timeout=10)
    assert admission.gate.busy == 0 and admission.gate.waiting() == 0


async def test_a_browser_waits_before_a_cookieless_socket(settings, monkeypatch):
    settings.HANDSHAKES = 1
    match, _, t2 = await database_sync_to_async(make_match)("bit-flip")
    stall = Stall(monkeypatch, "admit")
    first = socket(f"/ws/m/{match.public_id}/", address="198.51.100.1")
    await first.send_input({"type": "websocket.connect"})
    await until(lambda: stall.reached == 1)
    cookieless = socket(f"/ws/m/{match.public_id}/", address="198.51.100.2")
    await cookieless.send_input({"type": "websocket.connect"})
    await until(lambda: admission.gate.waiting() == 1)
    browser = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie(t2))
    await browser.send_input({"type": "websocket.connect"})
    await until(lambda: admission.gate.waiting() == 2)
    stall.release.set()
    for page in (first, browser, cookieless):
        assert (await page.receive_output(timeout=10))["type"] == "websocket.accept"
    # The browser, which came later, had its turn before the cookie-less socket.
    assert stall.order == [False, True, False]


async def test_one_client_has_a_few_handshakes_in_progress_at_most(settings, monkeypatch):
    settings.HANDSHAKES, settings.HANDSHAKES_PER_CLIENT = 1, 2
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    stall = Stall(monkeypatch, "admit")
    cookie = await session_cookie("one-browser")
    pages = [socket(f"/ws/m/{match.public_id}/", cookie=cookie) for _ in range(2)]
    for page in pages:
        await page.send_input({"type": "websocket.connect"})
    await until(lambda: stall.reached == 1 and admission.gate.waiting() == 1)
    third = socket(f"/ws/m/{match.public_id}/", cookie=cookie)
    assert await closed_with(third) == CLOSE_TRY_LATER
    # Another browser is not held back by this one's share.
    other = socket(f"/ws/m/{match.public_id}/", cookie=await session_cookie("another"))
    await other.send_input({"type": "websocket.connect"})
    await until(lambda: admission.gate.waiting() == 2)
    stall.release.set()
    for page in (*pages, other):
        assert (await page.receive_output(timeout=10))["type"] == "websocket.accept"


# ---- a storm costs one read and one render at a time -----------------------------------------


class SlowFirstRead:
    """The first read of a page's sockets is held until every socket of the storm has
    asked for it (as a slow read would be), so that what they share does not depend on
    how fast the machine is."""

    def __init__(self, monkeypatch, shared, owner, fetch_name, sockets):
        self.asked = 0
        self.reads = 0
        self.everyone_asked = asyncio.Event()
        read, fetch = shared.read, owner.__dict__[fetch_name]

        async def asking(key, since, fetch):
            self.asked += 1
            if self.asked == sockets:
                self.everyone_asked.set()
            return await read(key, since, fetch)

        async def slow_fetch(consumer):
            self.reads += 1
            if self.reads == 1:
                await self.everyone_asked.wait()
            return await fetch(consumer)

        monkeypatch.setattr(shared, "read", asking)
        monkeypatch.setattr(owner, fetch_name, slow_fetch)


async def test_a_storm_on_one_match_draws_its_board_twice_not_once_a_socket(
    monkeypatch,
    counted,  # noqa: F811
):
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    slow = SlowFirstRead(
        monkeypatch, match_sockets.snapshots, match_sockets.MatchConsumer, "_read_snapshot", 40
    )
    counted.update(queries=0, renders=0)
    pages = [socket(f"/ws/m/{match.public_id}/", address="127.0.0.1") for _ in range(40)]
    boards = await asyncio.gather(*(opened(page) for page in pages))
    assert all('id="board"' in board for board in boards)
    # The first read (begun before the others joined) and one more, shared by all of them:
    # 40 without sharing.
    assert slow.reads == counted["renders"] == 2, counted
    await closed_all(pages)


async def test_a_read_that_began_before_a_socket_joined_is_never_its_first_board():
    """The rule that keeps a shared read right: a socket takes only a read that began
    after it joined its group (a change committed before it began is in it)."""
    from games.sockets import Shared

    shared = Shared()
    gate = asyncio.Event()
    reads = []

    async def fetch():
        reads.append(len(reads))
        await gate.wait()
        return len(reads)

    early = Shared.step()
    first = asyncio.ensure_future(shared.read("k", early, fetch))
    await until(lambda: reads == [0])
    late = Shared.step()  # joined while the first read runs
    second = asyncio.ensure_future(shared.read("k", late, fetch))
    also_late = asyncio.ensure_future(shared.read("k", Shared.step(), fetch))
    gate.set()
    assert await first == 1
    assert await second == await also_late == 2  # one read for both, begun after they joined
    assert reads == [0, 1]


async def test_a_watch_page_storm_reads_the_cards_twice(monkeypatch):
    reads = []
    cards = lobby_live.watch_cards

    def counted_cards():
        reads.append(1)
        return cards()

    monkeypatch.setattr(lobby_live, "watch_cards", counted_cards)
    SlowFirstRead(monkeypatch, lobby_sockets.snapshots, lobby_sockets.WatchConsumer, "_read", 30)
    pages = [socket("/ws/watch/", address="127.0.0.1") for _ in range(30)]
    snapshots = await asyncio.gather(*(opened(page) for page in pages))
    assert all('id="watch-list"' in html for html in snapshots)
    assert len(reads) == 2  # 30 without sharing
    await closed_all(pages)
    assert lobby_sockets.snapshots.reads == {}


async def test_syncs_are_answered_at_most_once_a_second(counted):  # noqa: F811
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    page = socket(f"/ws/m/{match.public_id}/")
    await opened(page)
    counted.update(queries=0, renders=0)
    for _ in range(5):
        await page.send_json_to({"type": "sync"})
    assert 'id="board"' in await page.receive_from(timeout=10)  # the first, at once
    assert 'id="board"' in await page.receive_from(timeout=10)  # the rest, once, a second on
    assert await page.receive_nothing(timeout=1.5)
    assert counted["renders"] == 2
    await page.disconnect()


async def test_a_frame_for_a_page_that_went_away_is_dropped_quietly():
    """daphne raises autobahn's Disconnected when a push lands on a connection its client
    closed before the disconnect reached the socket; the push is for nobody, not an error."""
    from autobahn.exception import Disconnected

    from games.consumers import MatchConsumer

    async def gone(message):
        raise Disconnected("Attempt to send on a closed protocol")

    consumer = MatchConsumer()
    consumer.base_send = gone
    consumer.version, consumer.marks = 0, {}
    await consumer.send(text_data="<div id='board'></div>")  # nothing raised
    await consumer.match_changed({"version": 1, "html": "<div></div>", "marks": None})
