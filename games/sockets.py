"""Admitting a websocket: the steps every socket of the site takes, written once.

Every page's socket (a match's, the lobby's, the watch page's, My games') is a
``Socket``. Its ``connect`` takes the same steps in the same order, each cheaper than
the next, so that a storm of sockets costs the others as little as possible:

1. its client's sockets in this server process, counted in memory before anything is
   read (games/admission.py: a browser by its session cookie, a cookie-less socket by
   its address): 4409;
2. a turn among the process's handshakes (``admission.gate``) for steps 3 to 5: at most
   a few do their work at once, a browser's before a cookie-less one's; one client with
   too many handshakes in progress, or a full line, is refused at once: 4503 (the page
   tries again);
3. the socket rate limit, per session and per address (games/limits.py): 4429;
4. what the page's socket itself must check (``admit``: its cap in the presence sets,
   its match or its account), which may refuse with its own code;
5. its channel layer groups (``groups_to_join``), and the groups it shares with every
   page of its kind through the process's relay (``groups_to_share``: games/fanout.py),
   each join bounded by the live layer's ``SEND_TIMEOUT`` (Channels' own ``groups`` are
   joined without a bound): a layer that does not answer is 4503 (the page tries again);
6. accepted, the turn ends, then ``opened`` sends what the page shows first (read once
   for every socket that asks at the same time: ``Shared``), and a heartbeat runs every
   ``heartbeat_every`` seconds (``beat``) until the socket closes.

A page sends an occasional ``{"type": "sync"}`` (show me what is current: ``sync``),
answered at most once every ``SYNC_EVERY`` seconds (more are answered together, once the
time has come), and, on a page that acts over its socket (a match's: its moves), the
frames of its ``acts`` (``act``); anything else, or too much, closes the socket with a
code that says why. On close every step is undone in reverse (``left``, then the
groups), however the connection ended: closed by either side, reset, or the socket's
task cancelled by the server (daphne kills a handshake that takes too long, and an
application that does not end after its connection did): nothing of a socket, its
presence or its heartbeat, outlives it. If the channel layer fails while the socket
reads it, the layer hands it a ``layer.lost`` message (bitsite/layers.py) and the
socket closes with 4503, so that the page comes back and reads what it shows again.

A subclass keeps only what differs: its hooks, and the handlers of the messages its
groups carry, which forward what the live layer drew; they decide nothing again.

Close codes (the page shows why):

    4400  a frame the server does not expect
    4403  not signed in (a page that needs an account)
    4404  no such match, or no such path
    4409  too many pages of this match, or of bitsite, open in this browser (or, without
          a cookie, from this address)
    4413  a frame larger than 1 KB
    4429  more than 20 syncs in 10 seconds, or sockets opened faster than the rate limit
    4503  the server is busy or cannot reach its channel layer (Redis): the page tries
          again later
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import deque
from dataclasses import dataclass

from autobahn.exception import Disconnected
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.utils.crypto import constant_time_compare

from bitsite import runtime
from bitsite.database import pool_exhausted
from games import admission, fanout, limits, presence
from games.live import SEND_TIMEOUT, publisher

log = logging.getLogger(__name__)

CLOSE_UNEXPECTED = 4400
CLOSE_SIGNED_OUT = 4403
CLOSE_UNKNOWN = 4404
CLOSE_TOO_MANY = 4409
CLOSE_TOO_LARGE = 4413
CLOSE_FLOOD = 4429
CLOSE_TRY_LATER = 4503  # 1013 would say it, but autobahn lets a server send only 1000 or 3000+
MAX_FRAME = 1024
FLOOD_FRAMES = 20
FLOOD_WINDOW = 10.0
SYNC_EVERY = 1.0  # seconds: a page's syncs are answered at most this often
# What sending on a connection the client already closed raises: the ASGI spec asks for an
# OSError; daphne (autobahn) raises its Disconnected. The disconnect message follows.
CONNECTION_GONE = (OSError, Disconnected)


def session_key(scope) -> str | None:
    """The browser's session, from its cookie: known before any database or cache read."""
    return (scope.get("cookies") or {}).get(settings.SESSION_COOKIE_NAME) or None


def signed_in_user_id(session) -> int | None:
    """The account this session is signed into, checked as django.contrib.auth checks it
    (its backend, and the hash of the account's password), without changing the session.
    Reads the database: call it from a database thread."""
    if session is None:
        return None
    try:
        user_id = session[SESSION_KEY]
        backend_path = session[BACKEND_SESSION_KEY]
    except KeyError:
        return None
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    try:
        user = load_backend(backend_path).get_user(get_user_model()._meta.pk.to_python(user_id))
    except Exception:
        return None
    if user is None:
        return None
    held = session.get(HASH_SESSION_KEY) or ""
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    if not any(constant_time_compare(held, known) for known in hashes):
        return None
    return user.pk


class Socket(runtime.websocket_consumer()):
    """One page's websocket: admitted, grouped, kept alive and let go the same way for
    every page of the site (the module's docstring says how)."""

    heartbeat_every: float | None = None  # seconds between ``beat`` calls (None: HEARTBEAT)

    # ---- what a page's socket says about itself (override) -------------------------------

    async def admit(self) -> int | None:
        """After the rate limit and the process's count: anything else to check before the
        socket joins its groups. A close code refuses it; None lets it in."""
        return None

    def groups_to_join(self) -> list[str]:
        """The channel layer groups whose messages this socket forwards."""
        return []

    def groups_to_share(self) -> list[str]:
        """The groups every page of a kind shares (a tournament's standings, the lobby), joined
        through the process's relay (games/fanout.py): one member per process in the
        layer, however many of its sockets forward them."""
        return []

    async def opened(self) -> None:
        """Accepted and grouped: send what the page shows first."""

    async def beat(self) -> None:
        """Every ``heartbeat_every`` seconds while open (errors are logged, never fatal)."""

    async def sync(self) -> None:
        """The page asked for what is current (after sleeping, or missing a push)."""

    acts: frozenset[str] = frozenset()  # the frame types a page may send besides sync

    async def act(self, frame: dict) -> None:
        """The page sent one of its ``acts`` (``frame["type"]``), with its fields."""

    async def left(self) -> None:
        """The socket closed: undo what ``admit`` did (before the groups are left)."""

    # ---- the steps, in order ---------------------------------------------------------------

    client: admission.Client | None = None
    frames: deque[float] | None = None  # when its recent syncs came (``read_frame``)
    admitted = False  # counted in this process's share of its client's sockets
    joined: tuple[tuple[str, bool], ...] = ()  # the groups it joined; True: through the relay
    joined_at = 0  # when it had joined them (``Shared.step``)
    heartbeat_task: asyncio.Task | None = None
    sync_task: asyncio.Task | None = None
    synced_at = float("-inf")
    ended = False  # every step undone (``let_go``)

    async def __call__(self, scope, receive, send):
        # However the socket ends (its task cancelled included: daphne cancels a handshake
        # that took too long, or an application that outlived its connection), its steps
        # are undone, so that no heartbeat or presence outlives it.
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.let_go()

    async def connect(self):
        self.session_key = session_key(self.scope)
        client = admission.Client.of(self.session_key, (self.scope.get("client") or ("",))[0])
        if not admission.admit(client):
            await self.refuse(CLOSE_TOO_MANY)
            return
        self.client, self.admitted = client, True
        if not await admission.gate.enter(client):
            await self.refuse(CLOSE_TRY_LATER)
            return
        try:
            welcome = await self.handshake()
        except Exception as error:
            if not pool_exhausted(error):
                raise
            await self.refuse(CLOSE_TRY_LATER)  # PostgreSQL's pool is empty: later
            return
        finally:
            admission.gate.leave(client)
        if welcome and not self.ended:
            # Out of the line: what the page shows first is read once for every socket
            # that asks at the same time (``Shared``), however many there are.
            if await self.busy_if_pool_empty(self.opened()):
                return
            self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def busy_if_pool_empty(self, step) -> bool:
        """Run ``step`` (an awaitable); if PostgreSQL's pool had no connection to give, close
        the socket with 4503 (the page tries again) and say so."""
        try:
            await step
        except Exception as error:
            if not pool_exhausted(error):
                raise
            log.warning("%s: the database pool is empty; the page will try again", type(self))
            await self.close(code=CLOSE_TRY_LATER)
            return True
        return False

    async def handshake(self) -> bool:
        """The socket's own work, in its turn: True once it is accepted."""
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key):
            await self.refuse(CLOSE_FLOOD)
            return False
        refusal = await self.admit()
        if refusal is not None:
            await self.refuse(refusal)
            return False
        wanted = [(group, False) for group in self.groups_to_join()]
        wanted += [(group, True) for group in self.groups_to_share()]
        for group, shared in wanted:
            try:
                if shared:
                    joining = fanout.relay(self.channel_layer).join(group, self)
                else:
                    joining = self.channel_layer.group_add(group, self.channel_name)
                await asyncio.wait_for(joining, SEND_TIMEOUT)
            except Exception as error:
                publisher.lost(error)
                await self.refuse(CLOSE_TRY_LATER)
                return False
            self.joined = (*self.joined, (group, shared))
        self.joined_at = Shared.step()
        publisher.answered()
        await self.accept()
        return True

    async def disconnect(self, code):
        await self.let_go()

    async def let_go(self):
        """Undo every step, once: the heartbeat, the count, the page's own, the groups."""
        if self.ended:
            return
        self.ended = True
        for task in (self.heartbeat_task, self.sync_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if self.admitted:
            admission.release(self.client)
            self.admitted = False
        try:
            await self.left()
        finally:
            for group, shared in self.joined:
                await self.leave_group(group, shared=shared)
            self.joined = ()

    async def receive(self, text_data=None, bytes_data=None):
        frame = await self.read_frame(text_data, bytes_data)
        if frame is None:
            return
        if frame["type"] != "sync":
            await self.busy_if_pool_empty(self.act(frame))
            return
        if self.sync_task is not None and not self.sync_task.done():
            return  # a sync is already due: it answers this one too
        wait = self.synced_at + SYNC_EVERY - time.monotonic()
        if wait <= 0:
            self.synced_at = time.monotonic()
            await self.busy_if_pool_empty(self.sync())
        else:
            self.sync_task = asyncio.create_task(self._sync_later(wait))

    async def _sync_later(self, wait: float):
        await asyncio.sleep(wait)
        self.synced_at = time.monotonic()
        try:
            await self.busy_if_pool_empty(self.sync())
        except Exception:
            log.warning("%s sync failed", type(self).__name__, exc_info=True)

    async def send(self, text_data=None, bytes_data=None, close=False):
        """Send a frame; if the page went away meanwhile, nothing (its disconnect follows)."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except CONNECTION_GONE:
            log.debug("%s: the page went away before a frame was sent", type(self).__name__)

    async def refuse(self, code: int) -> None:
        """Accept and close at once, so that the page learns why (a refused handshake tells
        it nothing)."""
        await self.accept()
        await self.close(code=code)

    async def layer_lost(self, event):
        """The channel layer failed while this socket read it (bitsite/layers.py)."""
        publisher.lost(event.get("error") or ConnectionError("the channel layer failed"))
        await self.close(code=CLOSE_TRY_LATER)

    # ---- helpers ---------------------------------------------------------------------------

    async def read_frame(self, text_data, bytes_data) -> dict | None:
        """A page's frame, as a dict with its ``type``: ``sync``, or one of the page's
        ``acts``. Anything else, or too large, closes the socket with its reason; so do
        more than FLOOD_FRAMES syncs in FLOOD_WINDOW seconds (actions are counted by their
        own rate limit, in ``act``, as their POSTs are)."""
        if bytes_data is not None or text_data is None:
            await self.close(code=CLOSE_UNEXPECTED)
            return None
        if len(text_data) > MAX_FRAME:
            await self.close(code=CLOSE_TOO_LARGE)
            return None
        try:
            frame = json.loads(text_data)
        except ValueError:
            frame = None
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind != "sync" and (not isinstance(kind, str) or kind not in self.acts):
            await self.close(code=CLOSE_UNEXPECTED)
            return None
        if kind == "sync":
            now = time.monotonic()
            if self.frames is None:  # made on the first sync: most sockets never send one
                self.frames = deque()
            self.frames.append(now)
            while self.frames and self.frames[0] < now - FLOOD_WINDOW:
                self.frames.popleft()
            if len(self.frames) > FLOOD_FRAMES:
                await self.close(code=CLOSE_FLOOD)
                return None
        return frame

    async def leave_group(self, group: str, *, shared: bool = False) -> None:
        """Leave a group as the socket closes; if the layer does not answer, the group
        forgets the socket (or the process's relay) when Redis expires it."""
        try:
            if shared:
                leaving = fanout.relay(self.channel_layer).leave(group, self)
            else:
                leaving = self.channel_layer.group_discard(group, self.channel_name)
            await asyncio.wait_for(leaving, SEND_TIMEOUT)
        except Exception as error:
            publisher.lost(error)

    async def _heartbeat(self):
        while True:
            await asyncio.sleep(self.heartbeat_every or presence.HEARTBEAT)
            try:
                await self.beat()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("%s heartbeat failed; trying again", type(self).__name__, exc_info=True)


@dataclass
class _Read:
    began: int  # the step it began at
    task: asyncio.Task


def _retrieved(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()  # read by whoever awaits it; never "never retrieved"


class Shared:
    """What a page's socket shows first (and on a sync), read once for every socket of
    this process that asks at the same time.

    A socket joins its groups first and reads second, so that a change committed after
    the read comes as a push; so it may take any read that *began after it had joined*
    (``Socket.joined_at``: a step of one counter): whatever committed before that read
    began is in it. At most one read runs for a key; a socket that joined after it
    began waits for it to end, and every socket waiting then shares the next one. A
    storm of sockets on one page costs one read and one render at a time, however many
    ask. The read runs as a task of its own: a socket cancelled meanwhile cancels
    nobody's read."""

    _steps = itertools.count(1)

    def __init__(self):
        self.reads: dict[object, _Read] = {}

    @classmethod
    def step(cls) -> int:
        return next(cls._steps)

    async def read(self, key, joined_at: int, fetch):
        """``fetch()``'s result (a coroutine function), from a read that began after
        ``joined_at``."""
        while True:
            current = self.reads.get(key)
            if current is not None and current.began > joined_at:
                return await asyncio.shield(current.task)
            if current is not None and not current.task.done():
                await asyncio.wait([current.task])  # began too early for this socket
                continue
            task = asyncio.ensure_future(fetch())
            task.add_done_callback(_retrieved)
            read = self.reads[key] = _Read(self.step(), task)
            task.add_done_callback(lambda _, key=key, read=read: self._ended(key, read))
            return await asyncio.shield(task)

    def _ended(self, key, read: _Read) -> None:
        if self.reads.get(key) is read:
            del self.reads[key]


class NoSuchPath(AsyncWebsocketConsumer):
    """Any websocket path that is not a page's: accepted and closed at once with 4404,
    touching nothing (no channel layer, no database)."""

    channel_layer_alias = "no layer"  # Channels gives it none: nothing to join or read

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_UNKNOWN)
