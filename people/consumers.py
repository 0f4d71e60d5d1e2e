"""The inbox websocket of a signed-in player's page (people/live.py says what it carries).

Admitted like every socket of the site (games/sockets.py); 4403 without a signed-in
account (checked as Django's sign-in checks it). It joins the account's group and its
set of open inbox pages, sends what the page shows now, then forwards what
people/live.py drew, the newest only: the badge to every page, the lists only to the
challenges page (``/ws/me/challenges/``). It writes nothing.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from games import presence
from games.sockets import CLOSE_SIGNED_OUT, Shared, Socket, signed_in_user_id
from people import live

snapshots = Shared()


class InboxConsumer(Socket):
    user_id: int | None = None
    with_lists = False  # the challenges page's socket (its route says so)
    at = 0

    async def admit(self) -> int | None:
        self.with_lists = bool(self.scope["url_route"]["kwargs"].get("lists"))
        self.user_id = await database_sync_to_async(signed_in_user_id)(self.scope.get("session"))
        return CLOSE_SIGNED_OUT if self.user_id is None else None

    def groups_to_join(self) -> list[str]:
        return [live.group_name(self.user_id)]

    def _sets(self) -> list[str]:
        """The account's open inbox pages; a challenges page's, its open lists too."""
        sets = [live.pages_set(self.user_id)]
        return [*sets, live.lists_set(self.user_id)] if self.with_lists else sets

    async def opened(self) -> None:
        await presence.call(presence.join_sets, self.channel_name, self._sets())
        await self._send_now(self.joined_at)

    async def beat(self) -> None:
        await presence.call(presence.join_sets, self.channel_name, self._sets())

    async def sync(self) -> None:
        await self._send_now(Shared.step())

    async def left(self) -> None:
        if self.user_id is not None and self.joined:
            await presence.call(presence.leave_sets, self.channel_name, self._sets())

    async def inbox_changed(self, event):
        if event["at"] <= self.at:
            return
        self.at = event["at"]
        await self.send(text_data=event["badge"] + (event["lists"] if self.with_lists else ""))

    async def _send_now(self, since: int) -> None:
        def read():
            return database_sync_to_async(live.snapshot)(self.user_id, with_lists=self.with_lists)

        html, at = await snapshots.read((self.user_id, self.with_lists), since, read)
        if at > self.at:
            self.at = at
            await self.send(text_data=html)
