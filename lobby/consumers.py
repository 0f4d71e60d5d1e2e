"""The lobby's websockets (the home page's open challenges, the watch page): thin relays.

Admitted like every socket of the site (games/sockets.py: the socket rate limit, a
browser's sockets per process, groups, heartbeat, close codes), and capped per page in
the presence sets like a match's sockets (at most SOCKETS_PER_MATCH lobby pages, and as
many watch pages, per browser: 4409). Each socket is also a member of its page's set, so
that nothing is drawn for the watch page while nobody has it open.

On connect (and on a ``{"type": "sync"}`` frame) a socket reads its list and draws it
for its viewer, once for every socket of the process that asks at the same time (the
watch page's is everybody's; the lobby's, each browser's: ``games.sockets.Shared``; the
creator of a challenge sees "Withdraw" on it: lobby.challenges.Challenger says who owns
what), as a match socket reads its board. After that it only forwards: changes arrive
drawn once, in batches (lobby/live.py), and the socket picks the part of each meant for
its viewer, drops what its page already shows or no longer shows (it remembers the rows
and cards it sent: a row added twice, or removed before it was shown, is never sent),
and sends the rest as one frame. It reads no database and draws nothing on a push.
"""

from __future__ import annotations

from collections import OrderedDict

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games import presence
from games.sockets import CLOSE_TOO_MANY, Shared, Socket, signed_in_user_id
from lobby import live
from lobby.challenges import Challenger

GONE_KEPT = 1000  # ids a socket remembers as gone (a removal that overtook its row)

# The lists sockets read as they open or sync: the watch page's, and the lobby's for each
# browser (a cookie-less socket's is everybody's), read once for all that ask at once.
snapshots = Shared()


class _Gone(OrderedDict):
    def add(self, key) -> None:
        self[key] = True
        while len(self) > GONE_KEPT:
            self.popitem(last=False)


class PageConsumer(Socket):
    """What the lobby's two pages share: their page's set and group, a snapshot."""

    group = ""  # the channel layer group of the page
    page = ""  # its presence "page" (lobby/live.py)
    membership: presence.Membership | None = None
    counted = False  # counted among this process's lobby pages (the sweeper runs for them)

    async def admit(self) -> int | None:
        self.gone = _Gone()
        self.shown: set[str] = set()  # the lobby's rows on the page
        self.viewer = Challenger()  # who this browser is, as a challenge's creator
        self.versions: dict[str, int] = {}  # the watch page's cards: id -> version shown
        self.membership = await presence.call(
            presence.enter, self.page, self.channel_name, self.session_key
        )
        if self.membership is None:
            return CLOSE_TOO_MANY
        await presence.call(presence.settle, self.membership, self.page, kind=live.OPEN, seat=None)
        return None

    def groups_to_share(self) -> list[str]:
        return [self.group]  # every page of the lobby (or the watch page): one relay each

    async def opened(self) -> None:
        # Joined first, read second: a change that commits meanwhile is in the snapshot or
        # comes as a push (which the socket drops if its page shows it already).
        await self.send(text_data=await self._snapshot(self.joined_at))
        live.sweeper.opened()
        self.counted = True

    async def sync(self) -> None:
        await self.send(text_data=await self._snapshot(Shared.step()))

    async def beat(self) -> None:
        await presence.call(presence.refresh, self.membership)

    async def left(self) -> None:
        if self.counted:
            live.sweeper.closed()
            self.counted = False
        if self.membership is not None:
            await presence.call(presence.depart, self.membership)

    async def _snapshot(self, since: int) -> str:
        """The page's list, from a read that began after ``since`` (``Shared``)."""
        raise NotImplementedError


class LobbyConsumer(PageConsumer):
    """The home page's open challenges."""

    group = live.LOBBY_GROUP
    page = live.LOBBY_PAGE

    async def _snapshot(self, since: int) -> str:
        html, shown, self.viewer = await snapshots.read(
            ("lobby", self.session_key), since, self._read
        )
        self.shown = set(shown)  # a copy: the read is shared
        return html

    @database_sync_to_async
    def _read(self) -> tuple[str, set[str], Challenger]:
        session = self.scope.get("session")
        token = session.get("token") if session is not None else None
        viewer = Challenger.of(token, signed_in_user_id(session))
        rows = live.challenge_rows(viewer)
        html = render_to_string("lobby/_challenges.html", {"challenges": rows})
        return html, {row["match"].public_id for row in rows}, viewer

    async def lobby_batch(self, message):
        parts = []
        for event in message["events"]:
            public_id = event["id"]
            if event["kind"] == "added":
                if public_id in self.shown or public_id in self.gone:
                    continue
                self.shown.add(public_id)
                own = self.viewer.made(event["owner"], event["owner_user"])
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

    async def _snapshot(self, since: int) -> str:
        html, versions = await snapshots.read("watch", since, self._read)
        self.versions = dict(versions)  # a copy: the read is shared
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
            elif event["kind"] == "watchers":  # "N watching" of a card this page shows
                if public_id in self.versions:
                    parts.append(event["html"])
            else:  # removed
                self.gone.add(public_id)
                if self.versions.pop(public_id, None) is not None:
                    parts.append(event["html"])
        if parts:
            await self.send(text_data="".join(parts))
