"""The lobby's websockets (the home page's open challenges, the watch page): thin relays.

On connect (and on a ``{"type": "sync"}`` frame) a socket reads its list and draws it for
its viewer (the creator of a challenge sees "Withdraw" on it), as a match socket reads its
board. After that it only forwards: changes arrive drawn once, in batches (lobby/live.py),
and the socket picks the part of each meant for its viewer, drops what its page already
shows or no longer shows (it remembers the rows and cards it sent: a row added twice, or
removed before it was shown, is never sent), and sends the rest as one frame. It reads no
database and draws nothing on a push.

Sockets are counted like the match sockets (games/presence.py, games/limits.py): the socket
rate limit (4429), one browser's sockets per process and on this page (4409), and the
page's set (so that nothing is drawn for the watch page while nobody has it open). The
close codes are the match socket's (games/consumers.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from games import limits, presence
from games.consumers import (
    CLOSE_FLOOD,
    CLOSE_TOO_MANY,
    CLOSE_TRY_LATER,
    LayerGuard,
    _session_key,
    asks_to_sync,
    leave_group,
)
from games.live import SEND_TIMEOUT, publisher
from games.models import hash_secret
from lobby import live

log = logging.getLogger(__name__)

GONE_KEPT = 1000  # ids a socket remembers as gone (a removal that overtook its row)


class _Gone(OrderedDict):
    def add(self, key) -> None:
        self[key] = True
        while len(self) > GONE_KEPT:
            self.popitem(last=False)


class PageConsumer(LayerGuard, AsyncWebsocketConsumer):
    """What the lobby's two pages share: caps, group, snapshot, heartbeat, frames."""

    group = ""  # the channel layer group of the page
    page = ""  # its presence "page" (lobby/live.py)
    admitted = False
    membership: presence.Membership | None = None
    heartbeat_task: asyncio.Task | None = None
    joined = False

    async def connect(self):
        self.frames: deque[float] = deque()
        self.gone = _Gone()
        self.shown: set[str] = set()  # the lobby's rows on the page
        self.mine: str | None = None  # this browser's seat secret, hashed
        self.versions: dict[str, int] = {}  # the watch page's cards: id -> version shown
        self.session_key = _session_key(self.scope)
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key):
            await self._refuse(CLOSE_FLOOD)
            return
        if self.session_key:
            self.admitted = presence.admit(self.session_key)
            if not self.admitted:
                await self._refuse(CLOSE_TOO_MANY)
                return
        self.membership = await presence.call(
            presence.enter, self.page, self.channel_name, self.session_key
        )
        if self.membership is None:
            await self._refuse(CLOSE_TOO_MANY)
            return
        await presence.call(presence.settle, self.membership, self.page, kind=live.OPEN, seat=None)
        try:
            await asyncio.wait_for(
                self.channel_layer.group_add(self.group, self.channel_name), SEND_TIMEOUT
            )
            self.joined = True
        except Exception as error:
            publisher.lost(error)
            await self._refuse(CLOSE_TRY_LATER)
            return
        publisher.answered()
        # Joined first, read second: a change that commits meanwhile is in the snapshot or
        # comes as a push (which the socket drops if its page shows it already).
        await self.accept()
        await self.send(text_data=await self._snapshot())
        live.sweeper.opened()
        self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code):
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
            live.sweeper.closed()
        if self.admitted:
            presence.leave(self.session_key)
            self.admitted = False
        if self.membership is not None:
            await presence.call(presence.depart, self.membership)
        if self.joined:
            await leave_group(self, self.group)

    async def receive(self, text_data=None, bytes_data=None):
        if not await asks_to_sync(self, text_data, bytes_data):
            return
        await self.send(text_data=await self._snapshot())

    async def _refuse(self, code: int):
        await self.accept()
        await self.close(code=code)

    async def _snapshot(self) -> str:
        raise NotImplementedError

    async def _heartbeat(self):
        while True:
            await asyncio.sleep(presence.HEARTBEAT)
            try:
                await presence.call(presence.refresh, self.membership)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("lobby socket heartbeat failed; trying again", exc_info=True)


class LobbyConsumer(PageConsumer):
    """The home page's open challenges."""

    group = live.LOBBY_GROUP
    page = live.LOBBY_PAGE

    async def _snapshot(self) -> str:
        html, self.shown, self.mine = await self._read()
        return html

    @database_sync_to_async
    def _read(self) -> tuple[str, set[str], str | None]:
        session = self.scope.get("session")
        token = session.get("token") if session is not None else None
        mine = hash_secret(token) if token else None
        rows = live.challenge_rows(mine)
        html = render_to_string("lobby/_challenges.html", {"challenges": rows})
        return html, {row["match"].public_id for row in rows}, mine

    async def lobby_batch(self, message):
        parts = []
        for event in message["events"]:
            public_id = event["id"]
            if event["kind"] == "added":
                if public_id in self.shown or public_id in self.gone:
                    continue
                self.shown.add(public_id)
                own = self.mine is not None and event["owner"] == self.mine
                parts.append(event["own_html"] if own else event["html"])
            else:  # removed
                self.gone.add(public_id)
                if public_id in self.shown:
                    self.shown.discard(public_id)
                    parts.append(event["html"])
        if parts:
            await self.send(text_data="".join(parts))


class WatchConsumer(PageConsumer):
    """The watch page's cards of the listed matches being played."""

    group = live.WATCH_GROUP
    page = live.WATCH_PAGE

    async def _snapshot(self) -> str:
        html, self.versions = await self._read()
        return html

    @database_sync_to_async
    def _read(self) -> tuple[str, dict[str, int]]:
        cards = live.watch_cards()
        html = render_to_string("lobby/_cards.html", {"cards": cards})
        return html, {card["match"].public_id: card["match"].version for card in cards}

    async def watch_batch(self, message):
        parts = []
        for event in message["events"]:
            public_id = event["id"]
            if event["kind"] == "card":
                if public_id in self.gone:
                    continue
                shown = self.versions.get(public_id)
                if shown is not None and event["version"] <= shown:
                    continue  # this page shows this version or a newer one
                self.versions[public_id] = event["version"]
                parts.append(event["add"] if shown is None else event["replace"])
            else:  # removed
                self.gone.add(public_id)
                if self.versions.pop(public_id, None) is not None:
                    parts.append(event["html"])
        if parts:
            await self.send(text_data="".join(parts))
