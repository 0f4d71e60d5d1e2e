"""The match websocket: a thin relay from the write path to each open page.

On connect (and on a ``{"type": "sync"}`` frame) it reads the match and renders the
whole board for this one viewer, so a page that slept, reconnected or missed a push
is right again. After that it only forwards: every committed change arrives from the
live layer (games/live.py) with the board already rendered for each kind of viewer,
and the socket sends the one for its kind, without touching the database. It holds
no rules and writes nothing.

Presence lives where it expires by itself (games/presence.py): a socket is a member of
its browser's, its kind's and (a player's) its seat's sets while it is open, and
refreshes them every heartbeat; a seat's first socket to open and last to close send one
small update to every page of the match. Every CHECK seconds a socket also looks at who
is connected, so a player whose server process died reads as gone within two heartbeats.

The page sends nothing but an occasional ``{"type": "sync"}``; anything else, or too
much, closes the socket with a code that says why (the page shows it):

    4400  a frame the server does not expect
    4404  no such match
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
from dataclasses import dataclass

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from games import boards, limits, play, presence
from games.live import SEND_TIMEOUT, group_name, presence_changed, publisher
from games.models import Match
from games.rights import Viewer, viewer_from_session

log = logging.getLogger(__name__)

CLOSE_UNEXPECTED = 4400
CLOSE_UNKNOWN_MATCH = 4404
CLOSE_TOO_MANY = 4409
CLOSE_TOO_LARGE = 4413
CLOSE_FLOOD = 4429
CLOSE_TRY_LATER = 4503  # 1013 would say it, but autobahn lets a server send only 1000 or 3000+
MAX_FRAME = 1024
FLOOD_FRAMES = 20
FLOOD_WINDOW = 10.0


@dataclass
class Opened:
    """What a socket learns when it opens: its viewer, the seat whose presence it makes (one
    player's socket in a friend's match), and its first board."""

    viewer: Viewer
    mode: str
    seat: int | None
    was_online: bool
    snapshot: Snapshot


@dataclass
class Snapshot:
    html: str
    version: int
    marks: dict[int, bool]  # the presence marks drawn on this page: seat -> connected


def _session_key(scope) -> str | None:
    return (scope.get("cookies") or {}).get(settings.SESSION_COOKIE_NAME) or None


class NoSuchPath(AsyncWebsocketConsumer):
    """Any websocket path that is not a match's: accepted and closed at once with 4404,
    touching nothing (no channel layer, no database)."""

    channel_layer_alias = "no layer"  # Channels gives it none: nothing to join or read

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_UNKNOWN_MATCH)


async def asks_to_sync(consumer, text_data, bytes_data) -> bool:
    """A page's frame: the only one it may send is ``{"type": "sync"}`` (show me what is
    current). Anything else, too much or too fast closes the socket with its reason.
    ``consumer.frames`` holds the times of its recent frames."""
    now = time.monotonic()
    consumer.frames.append(now)
    while consumer.frames and consumer.frames[0] < now - FLOOD_WINDOW:
        consumer.frames.popleft()
    if len(consumer.frames) > FLOOD_FRAMES:
        await consumer.close(code=CLOSE_FLOOD)
        return False
    if bytes_data is not None or text_data is None:
        await consumer.close(code=CLOSE_UNEXPECTED)
        return False
    if len(text_data) > MAX_FRAME:
        await consumer.close(code=CLOSE_TOO_LARGE)
        return False
    try:
        frame = json.loads(text_data)
    except ValueError:
        frame = None
    if not isinstance(frame, dict) or frame.get("type") != "sync":
        await consumer.close(code=CLOSE_UNEXPECTED)
        return False
    return True


async def leave_group(consumer, group: str) -> None:
    """Leave a group as a socket closes; if the layer does not answer, the group forgets
    the socket when Redis expires it."""
    try:
        await asyncio.wait_for(
            consumer.channel_layer.group_discard(group, consumer.channel_name), SEND_TIMEOUT
        )
    except Exception as error:
        publisher.lost(error)


class LayerGuard:
    """For a consumer: if the channel layer fails while the socket reads it (Redis went
    away), the socket is closed with 4503, so that the page comes back and reads what it
    shows again, instead of dying with a traceback in the log."""

    layer_failed = False

    @property
    def channel_receive(self):
        return self._channel_receive

    @channel_receive.setter
    def channel_receive(self, receive):
        async def guarded():
            if self.layer_failed:
                await asyncio.Event().wait()  # the socket is closing: nothing more to read
            try:
                return await receive()
            except Exception as error:
                self.layer_failed = True
                publisher.lost(error)
                return {"type": "layer.lost"}

        self._channel_receive = guarded

    async def layer_lost(self, event):
        await self.close(code=CLOSE_TRY_LATER)


class MatchConsumer(LayerGuard, AsyncWebsocketConsumer):
    admitted = False
    membership: presence.Membership | None = None
    opened: Opened | None = None
    heartbeat_task: asyncio.Task | None = None

    async def connect(self):
        self.public_id = self.scope["url_route"]["kwargs"]["public_id"]
        self.group = None
        self.frames: deque[float] = deque()
        self.version = -1
        self.marks: dict[int, bool] = {}
        # One browser's sockets in this process are counted before any database or cache
        # is touched: a storm of sockets from one session costs next to nothing.
        self.session_key = _session_key(self.scope)
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key):
            await self._refuse(CLOSE_FLOOD)
            return
        if self.session_key:
            self.admitted = presence.admit(self.session_key)
            if not self.admitted:
                await self._refuse(CLOSE_TOO_MANY)
                return
        # The browser's sockets on this match are capped before the database is read.
        self.membership = await presence.call(
            presence.enter, self.public_id, self.channel_name, self.session_key
        )
        if self.membership is None:
            await self._refuse(CLOSE_TOO_MANY)
            return
        opened = await self._open()
        if opened is None:
            await self._refuse(CLOSE_UNKNOWN_MATCH)
            return
        self.opened = opened
        # The group of this socket's kind of viewer: what it is sent is its board.
        try:
            group = group_name(self.public_id, opened.viewer.key)
            await asyncio.wait_for(
                self.channel_layer.group_add(group, self.channel_name), SEND_TIMEOUT
            )
            self.group = group
        except Exception as error:
            publisher.lost(error)
            await self._refuse(CLOSE_TRY_LATER)
            return
        publisher.answered()
        # A change that committed after the board was read, and whose push went out before
        # this socket joined its group, would be missed: the newest version says so.
        snapshot = opened.snapshot
        newest = await presence.call(presence.pushed_version, self.public_id)
        if newest is None:
            newest = await self._version()
        if newest is not None and newest > snapshot.version:
            snapshot = await self._read_snapshot()
        await self.accept()
        await self._send_snapshot(snapshot)
        if opened.seat is not None and not opened.was_online:
            presence_changed(self.public_id, opened.mode, opened.seat, True)
        self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code):
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        if self.admitted:
            presence.leave(self.session_key)
            self.admitted = False
        if self.membership is not None:
            await presence.call(presence.depart, self.membership)
        opened = self.opened
        if opened is not None:
            seat = opened.seat
            if seat is not None:
                online = await presence.call(presence.online_seats, self.public_id, (seat,))
                if online is not None and seat not in online:
                    # The opponent learns at once that this page went away.
                    presence_changed(self.public_id, opened.mode, seat, False)
        if self.group is not None:
            await leave_group(self, self.group)

    async def receive(self, text_data=None, bytes_data=None):
        if not await asks_to_sync(self, text_data, bytes_data):
            return
        await self._send_snapshot(await self._read_snapshot())

    # ---- pushes from the channel layer: forwarded, never rendered again -------------

    async def match_changed(self, event):
        if event["version"] <= self.version:
            return  # this page already shows this version or a newer one
        self.version = event["version"]
        await self.send(text_data=event["html"])
        self._marks_drawn(event["marks"])

    async def presence_changed(self, event):
        seat, online = event["seat"], event["online"]
        if seat in self.marks and self.marks[seat] != online:
            self.marks[seat] = online
            await self.send(text_data=event["html"])

    # ---- helpers ---------------------------------------------------------------------

    async def _refuse(self, code: int):
        """Accept and close at once, so that the page learns why (a refused handshake
        tells it nothing)."""
        await self.accept()
        await self.close(code=code)

    def _marks_drawn(self, marks):
        """The presence marks the last board drew: ``[[seat, connected], ...]``."""
        if marks is None:
            return
        own = self.opened.viewer.seats if self.opened else frozenset()
        self.marks = {seat: online for seat, online in marks if seat not in own}

    async def _send_snapshot(self, snapshot: Snapshot | None):
        if snapshot is None:  # the match was deleted
            await self.close(code=CLOSE_UNKNOWN_MATCH)
            return
        self.version = snapshot.version
        self.marks = dict(snapshot.marks)
        await self.send(text_data=snapshot.html)

    @database_sync_to_async
    def _open(self) -> Opened | None:
        """Read the match and this viewer, join the kind's (and seat's) sets, and draw the
        first board."""
        match = Match.objects.filter(public_id=self.public_id).select_related("rematch").first()
        if match is None:
            return None
        match = play.settle_time(match)  # a clock that ran out ends the match first
        viewer = viewer_from_session(self.scope.get("session"), match)
        humans = viewer.seats - {match.computer_seat}
        seat = min(humans) if match.mode == Match.Mode.FRIEND and len(humans) == 1 else None
        was_online = seat is not None and seat in (presence.online_seats(self.public_id) or ())
        presence.settle(self.membership, self.public_id, kind=viewer.key, seat=seat)
        return Opened(viewer, match.mode, seat, was_online, self._snapshot(match, viewer))

    @database_sync_to_async
    def _version(self) -> int | None:
        return (
            Match.objects.filter(public_id=self.public_id).values_list("version", flat=True).first()
        )

    @database_sync_to_async
    def _read_snapshot(self) -> Snapshot | None:
        match = Match.objects.filter(public_id=self.public_id).select_related("rematch").first()
        if match is None:
            return None
        # A page whose clock reached zero asks for its board: the server's clock decides.
        return self._snapshot(play.settle_time(match), self.opened.viewer)

    @staticmethod
    def _snapshot(match: Match, viewer: Viewer) -> Snapshot:
        shared = boards.scene(match)
        html = boards.render_board(match, viewer, shared=shared)
        marks = {
            seat: seat in shared.online
            for seat in boards.presence_seats(match)
            if seat not in viewer.seats
        }
        return Snapshot(html, match.version, marks)

    async def _heartbeat(self):
        """Keep this socket's memberships alive, and correct the presence marks this page
        shows (a player whose process died sends no goodbye). Survives any error."""
        ticks = 0
        while True:
            await asyncio.sleep(presence.CHECK)
            ticks += 1
            try:
                if ticks * presence.CHECK >= presence.HEARTBEAT:
                    ticks = 0
                    await presence.call(presence.refresh, self.membership)
                if self.marks:
                    online = await presence.call(
                        presence.online_seats, self.public_id, tuple(self.marks)
                    )
                    if online is None:
                        continue
                    for seat, shown in list(self.marks.items()):
                        if (seat in online) != shown:
                            self.marks[seat] = seat in online
                            await self.send(
                                text_data=boards.presence_fragment(seat, seat in online)
                            )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("match socket heartbeat failed; trying again", exc_info=True)
