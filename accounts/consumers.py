"""The My games websocket: a relay from accounts/live.py to an account's open pages.

On connect it checks the session's account (as Django's sign-in does: the session's
password hash must match), joins the account's group and its set of open pages, and
sends the ongoing list once (so a page that loaded just before a change, or reconnected,
is right). After that it forwards what accounts/live.py drew for the account, the newest
only. A ``{"type": "sync"}`` frame (a page coming back from sleep) gets the ongoing list
again, with a request to read the finished list. It writes nothing.

Close codes are the match socket's (games/consumers.py), and 4403: not signed in.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from channels.db import database_sync_to_async
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

from accounts import my_games
from accounts.live import group_name, watchers_set
from bitsite import redis_guard
from games import limits, presence
from games.consumers import (
    CLOSE_FLOOD,
    CLOSE_TOO_MANY,
    CLOSE_TRY_LATER,
    LayerGuard,
    asks_to_sync,
    leave_group,
)
from games.live import SEND_TIMEOUT, publisher

log = logging.getLogger(__name__)

CLOSE_SIGNED_OUT = 4403


def signed_in_user_id(session) -> int | None:
    """The account this session is signed into, checked as django.contrib.auth checks it
    (its backend, and the hash of the account's password), without changing the session."""
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


def _join(channel: str, user_id: int) -> bool:
    """This socket is one of the account's open pages (members expire unless refreshed)."""
    if not redis_guard.available():
        return False
    try:
        presence.store().join(channel, [watchers_set(user_id)])
    except Exception as error:
        redis_guard.failed("my games, a page opens", error)
        return False
    redis_guard.answered()
    return True


def _leave(channel: str, user_id: int) -> None:
    if not redis_guard.available():
        return
    try:
        presence.store().leave(channel, [watchers_set(user_id)])
    except Exception as error:
        redis_guard.failed("my games, a page closes", error)


class MyGamesConsumer(LayerGuard, AsyncWebsocketConsumer):
    user_id: int | None = None
    group: str | None = None
    admitted = False
    heartbeat_task: asyncio.Task | None = None

    async def connect(self):
        self.frames: deque[float] = deque()
        self.at = 0.0  # when the list this page shows was read
        cookies = self.scope.get("cookies") or {}
        self.session_key = cookies.get(settings.SESSION_COOKIE_NAME) or None
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key):
            await self._refuse(CLOSE_FLOOD)
            return
        if self.session_key:
            self.admitted = presence.admit(self.session_key)
            if not self.admitted:
                await self._refuse(CLOSE_TOO_MANY)
                return
        self.user_id = await database_sync_to_async(signed_in_user_id)(self.scope.get("session"))
        if self.user_id is None:
            await self._refuse(CLOSE_SIGNED_OUT)
            return
        group = group_name(self.user_id)
        try:
            await asyncio.wait_for(
                self.channel_layer.group_add(group, self.channel_name), SEND_TIMEOUT
            )
            self.group = group
        except Exception as error:
            publisher.lost(error)
            await self._refuse(CLOSE_TRY_LATER)
            return
        publisher.answered()
        # Joined before the list is read: a change that commits after the reading is sent.
        await presence.call(_join, self.channel_name, self.user_id)
        await self.accept()
        await self._send_list(finished_changed=False)
        self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code):
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        if self.admitted:
            presence.leave(self.session_key)
            self.admitted = False
        if self.user_id is not None:
            await presence.call(_leave, self.channel_name, self.user_id)
        if self.group is not None:
            await leave_group(self, self.group)

    async def receive(self, text_data=None, bytes_data=None):
        if not await asks_to_sync(self, text_data, bytes_data):
            return
        await self._send_list(finished_changed=True)

    # ---- from the channel layer -------------------------------------------------------

    async def games_changed(self, event):
        """What accounts/live.py drew for this account: forwarded, unless this page
        already shows a list read later."""
        if event["at"] <= self.at:
            return
        self.at = event["at"]
        await self.send(text_data=event["html"])

    async def _send_list(self, *, finished_changed: bool):
        html, at = await database_sync_to_async(my_games.render_ongoing)(
            self.user_id, finished_changed=finished_changed
        )
        if at > self.at:
            self.at = at
            await self.send(text_data=html)

    async def _refuse(self, code: int):
        await self.accept()
        await self.close(code=code)

    async def _heartbeat(self):
        """Keep this page in the account's set of open pages."""
        while True:
            await asyncio.sleep(presence.HEARTBEAT)
            try:
                await presence.call(_join, self.channel_name, self.user_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("my games heartbeat failed; trying again", exc_info=True)
