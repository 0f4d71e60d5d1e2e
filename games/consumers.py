"""The match websocket: a thin relay from the write path to each open page.

On connect it sends the whole board, rendered for this viewer (a player or a
spectator), so a page that slept, reconnected or missed a push is right again.
After every committed change (games.live), it renders the board for its viewer
and sends it. It holds no rules and writes nothing but presence.

The page sends nothing but an occasional ``{"type": "sync"}``; anything else
closes the socket with a code that says why:

    4400  a frame the server does not expect
    4404  no such match
    4413  a frame larger than 1 KB
    4429  more than 20 frames in 10 seconds
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from importlib import import_module

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from games import boards
from games.live import group_name
from games.models import Match, Presence
from games.play import writing

CLOSE_UNEXPECTED = 4400
CLOSE_UNKNOWN_MATCH = 4404
CLOSE_TOO_LARGE = 4413
CLOSE_FLOOD = 4429
MAX_FRAME = 1024
FLOOD_FRAMES = 20
FLOOD_WINDOW = 10.0
HEARTBEAT = 30.0


def presence_write(method):
    return database_sync_to_async(method, thread_sensitive=False)


def _fresh_session(session):
    """The viewer's session as it is now (after a hints toggle)."""
    if session is None or not session.session_key:
        return session
    engine = import_module(settings.SESSION_ENGINE)
    return engine.SessionStore(session_key=session.session_key)


class MatchConsumer(AsyncWebsocketConsumer):
    match_id: int | None = None
    seat: int | None = None
    viewer: boards.Viewer | None = None

    async def connect(self):
        self.public_id = self.scope["url_route"]["kwargs"]["public_id"]
        self.frames: deque[float] = deque()
        self.heartbeat_task = None
        # Join first, read the session second: a hints toggle that lands in between
        # still reaches this socket (viewer_changed), so its last board is the right one.
        self.group = group_name(self.public_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        found = await self._seat()
        if found is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.accept()
            await self.close(code=CLOSE_UNKNOWN_MATCH)
            return
        self.match_id, self.seat = found
        await self.accept()
        await self.send_board()
        if self.seat is not None:
            await self._presence(present=True)
            self.heartbeat_task = asyncio.create_task(self._heartbeat())

    async def disconnect(self, code):
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        if self.match_id is None:
            return
        try:  # presence first: the opponent learns at once that this page went away
            if self.seat is not None:
                await self._presence(present=False)
        finally:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        now = time.monotonic()
        self.frames.append(now)
        while self.frames and self.frames[0] < now - FLOOD_WINDOW:
            self.frames.popleft()
        if len(self.frames) > FLOOD_FRAMES:
            await self.close(code=CLOSE_FLOOD)
            return
        if bytes_data is not None or text_data is None:
            await self.close(code=CLOSE_UNEXPECTED)
            return
        if len(text_data) > MAX_FRAME:
            await self.close(code=CLOSE_TOO_LARGE)
            return
        try:
            frame = json.loads(text_data)
        except ValueError:
            frame = None
        if not isinstance(frame, dict) or frame.get("type") != "sync":
            await self.close(code=CLOSE_UNEXPECTED)
            return
        await self.send_board()

    # ---- pushes from the channel layer -------------------------------------------

    async def match_changed(self, event):
        await self.send_board()

    async def presence_changed(self, event):
        if event.get("channel") != self.channel_name:
            await self.send_board()

    async def viewer_changed(self, event):
        """Someone toggled hints: read this viewer's session again (it may be theirs).

        If this viewer's view changed, send the board again: the snapshot sent at connect
        may have been rendered before the toggle and reached the page after its answer."""
        before = self.viewer
        await self._read_viewer(fresh=True)
        if self.viewer != before:
            await self.send_board()

    # ---- helpers ---------------------------------------------------------------------

    async def send_board(self):
        html = await self._render()
        if html is None:  # the match was deleted
            await self.close(code=CLOSE_UNKNOWN_MATCH)
            return
        await self.send(text_data=html)

    @database_sync_to_async
    def _seat(self):
        match = Match.objects.filter(public_id=self.public_id).first()
        if match is None:
            return None
        self.viewer = boards.viewer_from_session(self.scope.get("session"), match)
        seats = self.viewer.seats - {match.computer_seat}
        # Presence matters between two browsers: a friend's match.
        seat = min(seats) if match.mode == Match.Mode.FRIEND and len(seats) == 1 else None
        return match.pk, seat

    @database_sync_to_async
    def _read_viewer(self, fresh: bool):
        match = Match.objects.filter(pk=self.match_id).first()
        if match is not None:
            session = self.scope.get("session")
            self.viewer = boards.viewer_from_session(
                _fresh_session(session) if fresh else session, match
            )

    @database_sync_to_async
    def _render(self):
        """The board for this viewer, decided at connect (seats never change for a socket:
        joining reloads the page)."""
        match = Match.objects.filter(pk=self.match_id).select_related("rematch").first()
        if match is None:
            return None
        return boards.render_board(match, self.viewer, share_url=self._share_url(match))

    def _share_url(self, match) -> str:
        headers = dict(self.scope.get("headers") or [])
        origin = headers.get(b"origin", b"").decode("latin1")
        return origin + match.get_absolute_url()

    async def _presence(self, *, present: bool):
        await self._write_presence(present)
        await self.channel_layer.group_send(
            self.group, {"type": "presence.changed", "channel": self.channel_name}
        )

    # Presence writes run on the executor's threads, not on the one thread that renders
    # every socket's pushes (database_sync_to_async's default): with a thousand sockets
    # the heartbeats alone were 33 writes a second, and each one that waited for SQLite's
    # write lock held up every push of the process. They queue with the moves
    # (play.writing) instead of polling SQLite's busy timeout.

    @presence_write
    def _write_presence(self, present: bool):
        with writing():
            if present:
                Presence.objects.update_or_create(
                    channel_name=self.channel_name,
                    defaults={
                        "match_id": self.match_id,
                        "seat": self.seat,
                        "seen_at": timezone.now(),
                    },
                )
            else:
                Presence.objects.filter(channel_name=self.channel_name).delete()

    @presence_write
    def _touch(self):
        with writing():
            Presence.objects.filter(channel_name=self.channel_name).update(seen_at=timezone.now())

    async def _heartbeat(self):
        while True:
            await asyncio.sleep(HEARTBEAT)
            await self._touch()
