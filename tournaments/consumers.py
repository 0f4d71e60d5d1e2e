"""A tournament page's websocket: a thin relay of what tournaments/live.py drew.

Admitted like every socket of the site (games/sockets.py); capped per browser in the
presence sets like a match's sockets (4409), and a member of its viewer's set there, so
that the director knows which waiting players of an arena have the page open (one absent
when pairing comes is paused). On connect (and on a ``{"type": "sync"}`` frame) it reads
the page's live parts once for every socket of the process that asks at the same time
(``Shared``); after that it forwards what the event's one group brings (through the
process's relay): the shared part, and its own viewer's panel out of the players' panels
the message carries (no one else's); and what its viewer's own group brings (a pairing's
"Go to your game"); each only if newer than what the page shows. It reads no database
and draws nothing on a push.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from games import presence
from games.sockets import CLOSE_TOO_MANY, CLOSE_UNKNOWN, Shared, Socket, signed_in_user_id
from tournaments import live

snapshots = Shared()


class TournamentConsumer(Socket):
    membership: presence.Membership | None = None
    user_id: int | None = None
    status = ""  # the event's status as this page shows it
    entered = False  # the viewer has an entry (their own panel comes to them)

    async def admit(self) -> int | None:
        self.public_id = self.scope["url_route"]["kwargs"]["public_id"]
        self.shown = -1  # the version of the shared part this page shows
        self.panel_shown = -1
        self.user_id = await database_sync_to_async(signed_in_user_id)(self.scope.get("session"))
        page = live.page(self.public_id)
        self.membership = await presence.call(
            presence.enter, page, self.channel_name, self.session_key
        )
        if self.membership is None:
            return CLOSE_TOO_MANY
        kind = live.player_kind(self.user_id) if self.user_id is not None else live.OPEN
        await presence.call(presence.settle, self.membership, page, kind=kind, seat=None)
        return None

    def groups_to_join(self) -> list[str]:
        if self.user_id is None:
            return []
        return [live.player_group(self.public_id, self.user_id)]

    def groups_to_share(self) -> list[str]:
        return [live.group(self.public_id)]

    async def opened(self) -> None:
        await self._snapshot(self.joined_at)

    async def sync(self) -> None:
        await self._snapshot(Shared.step())

    async def beat(self) -> None:
        await presence.call(presence.refresh, self.membership)

    async def left(self) -> None:
        if self.membership is not None:
            await presence.call(presence.depart, self.membership)

    async def _snapshot(self, since: int) -> None:
        key = (self.public_id, self.user_id)
        found = await snapshots.read(
            key, since, database_sync_to_async(lambda: live.snapshot(*key))
        )
        if found is None:
            await self.close(code=CLOSE_UNKNOWN)
            return
        html, version, self.status, self.entered = found
        if version >= self.shown:
            self.shown = self.panel_shown = version
            await self.send(text_data=html)

    # ---- from the channel layer ---------------------------------------------------------

    async def tournament_changed(self, message):
        html = self._own_panel(message)
        if message["version"] > self.shown:
            self.shown = message["version"]
            html += message["html"]
            if not self.entered and message["status"] != self.status:
                # A viewer without an entry: no panel of their own comes; the one every
                # such viewer shares changes with the status (Join, started, over).
                html += message["anonymous" if self.user_id is None else "visitor"]
            self.status = message["status"]
        if html:
            await self.send(text_data=html)

    async def tournament_panel(self, message):
        html = self._panel(message["version"], message)
        if html:
            await self.send(text_data=html)

    def _own_panel(self, message) -> str:
        """The viewer's own panel among the message's players' panels, if newer than the
        page's ("": none)."""
        if self.user_id is None:
            return ""
        mine = message.get("panels", {}).get(live.panel_key(self.user_id))
        return "" if mine is None else self._panel(message["version"], mine)

    def _panel(self, version: int, panel: dict) -> str:
        if version <= self.panel_shown:
            return ""
        self.panel_shown = version
        self.entered = panel["entry"]
        return panel["html"]
