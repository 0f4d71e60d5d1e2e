"""The My games websocket: a relay from accounts/live.py to an account's open pages.

Admitted like every socket of the site (games/sockets.py). On connect it checks the
session's account (as Django's sign-in does: the session's password hash must match;
4403 without one), joins the account's group and its set of open pages, and sends the
ongoing list once (so a page that loaded just before a change, or reconnected,
is right). After that it forwards what accounts/live.py drew for the account, the newest
only. A ``{"type": "sync"}`` frame (a page coming back from sleep) gets the ongoing list
again, with a request to read the finished list. It writes nothing.

Close codes: games/sockets.py.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from accounts import my_games
from accounts.live import group_name, watchers_set
from games import presence
from games.sockets import CLOSE_SIGNED_OUT, Shared, Socket, signed_in_user_id

snapshots = Shared()  # each account's ongoing list, read once for its sockets that ask at once


class MyGamesConsumer(Socket):
    user_id: int | None = None

    async def admit(self) -> int | None:
        self.at = 0.0  # when the list this page shows was read
        self.user_id = await database_sync_to_async(signed_in_user_id)(self.scope.get("session"))
        if self.user_id is None:
            return CLOSE_SIGNED_OUT
        return None

    def groups_to_join(self) -> list[str]:
        return [group_name(self.user_id)]

    async def opened(self) -> None:
        # Joined before the list is read: a change that commits after the reading is sent.
        await presence.call(presence.join_sets, self.channel_name, [watchers_set(self.user_id)])
        await self._send_list(self.joined_at, finished_changed=False)

    async def beat(self) -> None:
        """Keep this page in the account's set of open pages."""
        await presence.call(presence.join_sets, self.channel_name, [watchers_set(self.user_id)])

    async def sync(self) -> None:
        await self._send_list(Shared.step(), finished_changed=True)

    async def left(self) -> None:
        if self.user_id is not None and self.joined:
            await presence.call(
                presence.leave_sets, self.channel_name, [watchers_set(self.user_id)]
            )

    # ---- from the channel layer -------------------------------------------------------

    async def games_changed(self, event):
        """What accounts/live.py drew for this account: forwarded, unless this page
        already shows a list read later."""
        if event["at"] <= self.at:
            return
        self.at = event["at"]
        await self.send(text_data=event["html"])

    async def _send_list(self, since: int, *, finished_changed: bool):
        def read():
            return database_sync_to_async(my_games.render_ongoing)(
                self.user_id, finished_changed=finished_changed
            )

        key = (self.user_id, finished_changed)
        html, at = await snapshots.read(key, since, read)
        if at > self.at:
            self.at = at
            await self.send(text_data=html)
