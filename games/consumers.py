"""The match websocket: a thin relay from the write path to each open page.

Admitted like every socket of the site (games/sockets.py: caps, rate limit, groups,
heartbeat, close codes). What is its own: on connect (and on a ``{"type": "sync"}``
frame) it reads the match and draws the whole board for its kind of viewer, once for
every socket of the process that asks at the same time (``games.sockets.Shared``: a
storm of sockets on one match costs one read and one render at a time), so a page that
slept, reconnected or missed a push is right again; a clock that ran out meanwhile is
settled first, through the write path (``play.settle_time``), as any read of the match
does. After that it only forwards: every committed change arrives from the live layer
(games/live.py) with the board already rendered for each kind of viewer, and the socket
sends the one for its kind, without touching the database. It holds no rules and
decides nothing the write path decided.

Presence lives where it expires by itself (games/presence.py): a socket is a member of
its browser's, its kind's and (a player's) its seat's sets while it is open, and
refreshes them every heartbeat; a seat's first socket to open sends one small update to
every page of the match, and its last to close one too, once ``presence.GRACE`` has passed
without a page of that seat coming back (a player who reloads is never shown away). A
spectator's page opening or closing has the match's spectators counted again ("N
watching", games/live.py ``Spectators``): one small update too, forwarded only to pages
that show another number; the first board a socket sends carries the count as it was
read. Every CHECK seconds a socket also looks at who is connected (read at most once a
second per match and process, however many sockets look), so a player whose server
process died reads as gone within two heartbeats, and a spectator's page too.
"""

from __future__ import annotations

from dataclasses import dataclass

from channels.db import database_sync_to_async

from games import actions, boards, extras, limits, play, presence
from games.live import (
    group_name,
    presence_changed,
    presence_gone_later,
    spectator_counts,
    spectators,
)
from games.models import Match
from games.rights import SPECTATOR, Refused, Viewer, viewer_of
from games.sockets import CLOSE_TOO_MANY, CLOSE_UNKNOWN, Shared, Socket

snapshots = Shared()  # the boards sockets read as they open or sync, by match and kind

# Before the board that answers a page's action (a comment: htmx swaps nothing for it):
# the page knows its action was answered (static/site/site.js).
ANSWER = "<!--answer-->"


@dataclass
class Opened:
    """What a socket learns as it is admitted: its viewer, and the seat whose presence it
    makes (one player's socket in a friend's match)."""

    viewer: Viewer
    mode: str
    seat: int | None
    was_online: bool
    listed: bool = False  # in the lobby: the watch page shows its spectators too
    token: str | None = None  # the browser's secret, which names its seats (play.Actor)


@dataclass
class Snapshot:
    html: str
    version: int
    marks: dict[int, bool]  # the presence marks drawn on this page: seat -> connected
    spectators: int | None  # the "N watching" sent with it (None: unknown, none sent)


class MatchConsumer(Socket):
    membership: presence.Membership | None = None
    seen: Opened | None = None  # what the socket learnt as it opened
    # The version whose pushed board this page shows as the push drew it (-1: none, or a
    # board drawn otherwise): a push that carries what changed since it is sent as that.
    base = -1

    @property
    def heartbeat_every(self) -> float:
        return presence.CHECK

    async def admit(self) -> int | None:
        self.public_id = self.scope["url_route"]["kwargs"]["public_id"]
        self.version = -1
        self.marks: dict[int, bool] = {}
        self.spectators: int | None = None  # the "N watching" this page shows (None: unknown)
        # The browser's sockets on this match are capped before the database is read.
        self.membership = await presence.call(
            presence.enter, self.public_id, self.channel_name, self.session_key
        )
        if self.membership is None:
            return CLOSE_TOO_MANY
        self.seen = await self._open()
        if self.seen is None:
            return CLOSE_UNKNOWN
        return None

    def groups_to_join(self) -> list[str]:
        # The group of this socket's kind of viewer: what it is sent is its board.
        return [group_name(self.public_id, self.seen.viewer.key)]

    async def opened(self) -> None:
        # Read after the group is joined: a change committed after this read began comes
        # as a push; one committed before is in it.
        await self._send_snapshot(await self._shared_snapshot(self.joined_at))
        seen = self.seen
        if seen.seat is not None and not seen.was_online:
            presence_changed(self.public_id, seen.mode, seen.seat, True)
        if seen.viewer.spectator:  # counted again, for every page (this one has it already)
            spectators.changed(self.public_id, seen.mode, seen.listed)

    async def left(self) -> None:
        if self.membership is not None:
            await presence.call(presence.depart, self.membership)
        seen = self.seen
        if seen is not None and seen.viewer.spectator:
            spectators.changed(self.public_id, seen.mode, seen.listed)
        if seen is not None and seen.seat is not None:
            # The opponent learns that this player went away once presence.GRACE has
            # passed without a page of theirs coming back (a reload says nothing).
            presence_gone_later(self.public_id, seen.mode, seen.seat)

    async def sync(self) -> None:
        await self._send_snapshot(await self._shared_snapshot(Shared.step()))

    # ---- a player's action, sent as a frame (games/actions.py; its POST does the same) ----

    acts = frozenset(actions.ACTIONS)

    async def act(self, frame: dict) -> None:
        """Run the page's action through the write path in one thread hop (play.from_loop),
        and answer this page with its board: the one the push drew for its kind, or the
        current board with the refusal's sentence. The opponent's pages get the push."""
        answer = await self._answer(frame)
        if answer is None:  # the match was deleted
            await self.close(code=CLOSE_UNKNOWN)
            return
        html, version, pushed = answer
        if version < self.version:
            html = ""  # a newer board is already shown: only the word that it was answered
        else:
            self.version = version  # its push, when it comes, is not sent again
            self.base = version if pushed else -1
        await self.send(text_data=ANSWER + html)

    async def _answer(self, frame: dict) -> tuple[str, int, bool] | None:
        """The board that answers the frame, its version, and whether it is the board its
        push drew for this page's kind."""
        if await presence.call(limits.socket_over_limit, self.scope, self.session_key, "move"):
            return await database_sync_to_async(self._refused)(limits.TOO_FAST)
        by = play.Actor(token=self.seen.token)
        try:
            match = await play.from_loop(
                lambda: actions.perform(frame["type"], self.public_id, by, frame)
            )
        except Refused as refusal:
            return await database_sync_to_async(self._refused)(refusal.message)
        viewer = viewer_of(match, self.seen.token)
        html = (getattr(match, "pushed", None) or {}).get(viewer.key)
        if html is not None:
            return html, match.version, True
        # No push drew this kind's board (the presence store was away).
        told = getattr(match, "told", None)
        html = await database_sync_to_async(boards.render_board)(match, viewer, told=told)
        return html, match.version, False

    def _refused(self, message: str) -> tuple[str, int, bool] | None:
        """The current board, for this page's viewer, with the refusal's sentence."""
        match = Match.objects.filter(public_id=self.public_id).select_related("rematch").first()
        if match is None:
            return None
        viewer = viewer_of(match, self.seen.token)
        return boards.render_board(match, viewer, message=message), match.version, False

    # ---- pushes from the channel layer: forwarded, never rendered again -------------

    async def match_changed(self, event):
        if event["version"] <= self.version:
            return  # this page already shows this version or a newer one
        self.version = event["version"]
        # What changed, when this page shows the board the change was drawn against.
        small = event.get("delta") if event.get("base", -2) == self.base else None
        self.base = event["version"]
        await self.send(text_data=small or event["html"])
        self._marks_drawn(event["marks"])

    async def spectators_changed(self, event):
        if self.version < 0:
            return  # before its first board, which carries the count as read after joining
        if event["count"] != self.spectators:
            self.spectators = event["count"]
            await self.send(text_data=event["html"])

    async def presence_changed(self, event):
        seat, online = event["seat"], event["online"]
        if seat in self.marks and self.marks[seat] != online:
            self.marks[seat] = online
            await self.send(text_data=event["html"])

    async def page_fragment(self, event):
        """A part of the page an app above games drew (the chat: games.live.send_fragment)."""
        await self.send(text_data=event["html"])

    # ---- helpers ---------------------------------------------------------------------

    def _marks_drawn(self, marks):
        """The presence marks the last board drew: ``[[seat, connected], ...]``."""
        if marks is None:
            return
        own = self.seen.viewer.seats if self.seen else frozenset()
        self.marks = {seat: online for seat, online in marks if seat not in own}

    async def _shared_snapshot(self, since: int) -> Snapshot | None:
        """This kind's board, read once for every socket that asks at the same time."""
        key = (self.public_id, self.seen.viewer.key)
        return await snapshots.read(key, since, self._read_snapshot)

    async def _send_snapshot(self, snapshot: Snapshot | None):
        if snapshot is None:  # the match was deleted
            await self.close(code=CLOSE_UNKNOWN)
            return
        self.version = snapshot.version
        self.base = -1  # drawn for this socket, not by a push
        self.marks = dict(snapshot.marks)  # a copy: the snapshot is shared
        if snapshot.spectators is not None:
            self.spectators = snapshot.spectators
        await self.send(text_data=snapshot.html)

    @database_sync_to_async
    def _open(self) -> Opened | None:
        """Read the match and this viewer, and join the kind's (and seat's) sets."""
        match = Match.objects.filter(public_id=self.public_id).select_related("rematch").first()
        if match is None:
            return None
        match = play.settle_time(match)  # a clock that ran out ends the match first
        session = self.scope.get("session")
        token = session.get("token") if session is not None else None
        viewer = viewer_of(match, token)
        humans = viewer.seats - {match.computer_seat}
        seat = min(humans) if match.mode == Match.Mode.FRIEND and len(humans) == 1 else None
        was_online = seat is not None and seat in (presence.online_seats(self.public_id) or ())
        presence.settle(self.membership, self.public_id, kind=viewer.key, seat=seat)
        return Opened(viewer, match.mode, seat, was_online, match.listed, token)

    @database_sync_to_async
    def _read_snapshot(self) -> Snapshot | None:
        match = Match.objects.filter(public_id=self.public_id).select_related("rematch").first()
        if match is None:
            return None
        # A page whose clock reached zero asks for its board: the server's clock decides.
        return self._snapshot(play.settle_time(match), self.seen.viewer)

    @staticmethod
    def _snapshot(match: Match, viewer: Viewer) -> Snapshot:
        shared = boards.scene(match)
        html = boards.render_board(match, viewer, shared=shared)
        marks = {
            seat: seat in shared.online
            for seat in boards.presence_seats(match)
            if seat not in viewer.seats
        }
        # The page's "N watching" too, in the same frame: right from the start.
        (count,) = spectator_counts([match.public_id])
        if count is not None:
            html += boards.spectators_fragment(count)
        html += extras.socket_panels(match, viewer)  # the chat's log, as this kind reads it
        return Snapshot(html, match.version, marks, count)

    ticks = 0

    async def _show_spectators(self, count: int | None) -> None:
        """Send the page its "N watching" if it shows another number (``count``: as just
        read, at most once a second per match and process)."""
        if count is not None and count != self.spectators:
            self.spectators = count
            await self.send(text_data=boards.spectators_fragment(count))

    async def beat(self) -> None:
        """Every CHECK seconds: keep this socket's memberships alive (every HEARTBEAT), and
        correct the presence marks this page shows (a player whose process died sends no
        goodbye)."""
        self.ticks += 1
        if self.ticks * presence.CHECK >= presence.HEARTBEAT:
            self.ticks = 0
            await presence.call(presence.refresh, self.membership)
        # One read for both (at most once a second per match and process): the marks, and
        # the spectators' pages (one whose server process died sends no goodbye).
        online, count = await presence.call(
            presence.watched_lately, self.public_id, tuple(self.marks), SPECTATOR.key
        )
        await self._show_spectators(count)
        if online is None or not self.marks:
            return
        for seat, shown in list(self.marks.items()):
            if (seat in online) != shown:
                self.marks[seat] = seat in online
                await self.send(text_data=boards.presence_fragment(seat, seat in online))
