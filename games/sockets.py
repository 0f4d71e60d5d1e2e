"""Admitting a websocket: the steps every socket of the site takes, written once.

Every page's socket (a match's, the lobby's, the watch page's, My games') is a
``Socket``. Its ``connect`` takes the same steps in the same order, each cheaper than
the next, so that a storm of sockets costs as little as possible:

1. the socket rate limit, per session and per address (games/limits.py): 4429;
2. this browser's sockets in this server process, counted in memory before anything is
   read (``presence.admit``): 4409;
3. what the page's socket itself must check (``admit``: its cap in the presence sets,
   its match or its account), which may refuse with its own code;
4. its channel layer groups (``groups_to_join``), each join bounded by the live layer's
   ``SEND_TIMEOUT`` (Channels' own ``groups`` are joined without a bound): a layer that
   does not answer is 4503 (the page tries again);
5. accepted, then ``opened`` sends what the page shows first, and a heartbeat runs every
   ``heartbeat_every`` seconds (``beat``) until the socket closes.

A page sends nothing but an occasional ``{"type": "sync"}`` (show me what is current:
``sync``); anything else, or too much, closes the socket with a code that says why. On
close every step is undone in reverse (``left``, then the groups). If the channel layer
fails while the socket reads it, the layer hands it a ``layer.lost`` message
(bitsite/layers.py) and the socket closes with 4503, so that the page comes back and
reads what it shows again.

A subclass keeps only what differs: its hooks, and the handlers of the messages its
groups carry, which forward what the live layer drew; they decide nothing again.

Close codes (the page shows why):

    4400  a frame the server does not expect
    4403  not signed in (a page that needs an account)
    4404  no such match, or no such path
    4409  too many pages of this match, or of bitsite, open in this browser
    4413  a frame larger than 1 KB
    4429  more than 20 frames in 10 seconds, or sockets opened faster than the rate limit
    4503  the server cannot reach its channel layer (Redis): the page tries again later
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque

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

from games import limits, presence
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


class Socket(AsyncWebsocketConsumer):
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

    async def opened(self) -> None:
        """Accepted and grouped: send what the page shows first."""

    async def beat(self) -> None:
        """Every ``heartbeat_every`` seconds while open (errors are logged, never fatal)."""

    async def sync(self) -> None:
        """The page asked for what is current (after sleeping, or missing a push)."""

    async def left(self) -> None:
        """The socket closed: undo what ``admit`` did (before the groups are left)."""

    # ---- the steps, in order ---------------------------------------------------------------

    admitted = False  # counted in this process's share of its browser's sockets
    joined: tuple[str, ...] = ()  # the groups it joined
    heartbeat_task: asyncio.Task | None = None

    async def connect(self):
        self.frames: deque[float] = deque()
        self.session_key = session_key(self.scope)
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key):
            await self.refuse(CLOSE_FLOOD)
            return
        if self.session_key:
            self.admitted = presence.admit(self.session_key)
            if not self.admitted:
                await self.refuse(CLOSE_TOO_MANY)
                return
        refusal = await self.admit()
        if refusal is not None:
            await self.refuse(refusal)
            return
        for group in self.groups_to_join():
            try:
                await asyncio.wait_for(
                    self.channel_layer.group_add(group, self.channel_name), SEND_TIMEOUT
                )
            except Exception as error:
                publisher.lost(error)
                await self.refuse(CLOSE_TRY_LATER)
                return
            self.joined = (*self.joined, group)
        publisher.answered()
        await self.accept()
        await self.opened()
        self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code):
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        if self.admitted:
            presence.leave(self.session_key)
            self.admitted = False
        await self.left()
        for group in self.joined:
            await self.leave_group(group)
        self.joined = ()

    async def receive(self, text_data=None, bytes_data=None):
        if await self.asks_to_sync(text_data, bytes_data):
            await self.sync()

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

    async def asks_to_sync(self, text_data, bytes_data) -> bool:
        """A page's frame: the only one it may send is ``{"type": "sync"}``. Anything else,
        too much or too fast closes the socket with its reason."""
        now = time.monotonic()
        self.frames.append(now)
        while self.frames and self.frames[0] < now - FLOOD_WINDOW:
            self.frames.popleft()
        if len(self.frames) > FLOOD_FRAMES:
            await self.close(code=CLOSE_FLOOD)
            return False
        if bytes_data is not None or text_data is None:
            await self.close(code=CLOSE_UNEXPECTED)
            return False
        if len(text_data) > MAX_FRAME:
            await self.close(code=CLOSE_TOO_LARGE)
            return False
        try:
            frame = json.loads(text_data)
        except ValueError:
            frame = None
        if not isinstance(frame, dict) or frame.get("type") != "sync":
            await self.close(code=CLOSE_UNEXPECTED)
            return False
        return True

    async def leave_group(self, group: str) -> None:
        """Leave a group as the socket closes; if the layer does not answer, the group
        forgets the socket when Redis expires it."""
        try:
            await asyncio.wait_for(
                self.channel_layer.group_discard(group, self.channel_name), SEND_TIMEOUT
            )
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


class NoSuchPath(AsyncWebsocketConsumer):
    """Any websocket path that is not a page's: accepted and closed at once with 4404,
    touching nothing (no channel layer, no database)."""

    channel_layer_alias = "no layer"  # Channels gives it none: nothing to join or read

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_UNKNOWN)
