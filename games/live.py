"""Pushes to the browsers watching a match: render each change once, send it once.

The write path calls ``match_changed`` from ``transaction.on_commit`` (nothing is
pushed for a change that rolls back). It renders the board once for each kind of
viewer with a socket open (spectator, seat 1, seat 2, both seats: games/rights.py)
and sends them all in one group message; each consumer forwards the one for its
kind without touching the database (games/consumers.py). So a change costs one
read and a few renders whether one page watches or a thousand.

Sending never holds up the request that made the change. The message is handed to
the server's event loop and the request goes on: no database connection is held
while the channel layer works, and a slow or missing Redis cannot make a move wait.
A send that fails or takes longer than ``SEND_TIMEOUT`` starts an *outage*: it is
logged once, the newest message of each match is kept (older ones are superseded:
every board carries the whole position), and they are sent again when the layer
answers. Pages that lost their socket meanwhile resync when they reconnect.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

from games import presence
from games.boards import presence_fragment, presence_seats, recent_moves, render_kinds
from games.models import Match
from games.rights import kinds

log = logging.getLogger(__name__)

SEND_TIMEOUT = 2.0  # seconds a group send may take before the layer counts as down
RETRY_EVERY = 1.0  # seconds between attempts to reach a layer that is down
MAX_KEPT = 10_000  # matches whose newest message is kept through an outage
PROBE = "bitsite.probe"  # a group nobody joins: sending to it tells whether the layer answers


def group_name(public_id: str) -> str:
    return f"match.{public_id}"


class Push:
    """One committed change on its way to the match's pages.

    ``prepare`` reads what the boards need (the last moves from the database, on the
    connection that wrote the change; who is connected and which kinds of viewer watch,
    from the cache). ``send`` renders the board once for each kind of viewer watching and
    sends them in one group message; each consumer forwards the one for its kind. The
    boards stay on ``match.pushed``: the answer to the request that made the change is
    its viewer's board. Neither ever raises: the change is saved, and a page that misses
    a push catches up on its next sync.

    ``players_only``: the change shows only on the players' boards (a hints toggle);
    spectators keep theirs, and get the next change as usual.
    """

    def __init__(self, match: Match, *, players_only: bool = False):
        self.match = match
        self.wanted = [
            viewer.key for viewer in kinds(match) if not (players_only and viewer.spectator)
        ]
        self.moves: list[dict] | None = None
        self.seen = presence.UNKNOWN

    def prepare(self) -> None:
        match = self.match
        try:
            self.moves = recent_moves(match)
        except Exception:
            log.exception("could not read the moves of match %s", match.public_id)
        friend = match.mode == Match.Mode.FRIEND
        self.seen = presence.snapshot(match.public_id, self.wanted, (1, 2) if friend else ())

    def send(self) -> None:
        match = self.match
        try:
            online = self.seen.online or frozenset()
            only = frozenset(self.wanted) if self.seen.kinds is None else self.seen.kinds
            boards = render_kinds(match, only=only, online=online, moves=self.moves)
            match.pushed = boards
        except Exception:
            log.exception("could not draw match %s version %s", match.public_id, match.version)
            return
        publisher.publish(
            group_name(match.public_id),
            {
                "type": "match.changed",
                "version": match.version,
                "changed": self.wanted,  # the kinds of viewer whose board this change changes
                "boards": boards,  # drawn for those with a socket open
                # the presence marks these boards draw, so each socket knows what it shows
                "marks": [[seat, seat in online] for seat in presence_seats(match)],
            },
        )


def match_changed(match: Match, *, players_only: bool = False) -> dict[str, str]:
    """Push this version of the match to its pages now (for code outside the write path's
    transactions, like tests and benchmarks). Returns the boards."""
    push = Push(match, players_only=players_only)
    push.prepare()
    push.send()
    return getattr(match, "pushed", {})


def presence_message(seat: int, online: bool) -> dict:
    """The small update one seat's presence change sends to every socket of the match."""
    return {
        "type": "presence.changed",
        "seat": seat,
        "online": online,
        "html": presence_fragment(seat, online),
    }


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the server (daphne's, or a test's) whose sync_to_async thread is
    running this code, if any: asgiref keeps it for async_to_sync to go back to."""
    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() and not loop.is_closed() else None


class Publisher:
    """Hands group messages to the channel layer without making the caller wait."""

    def __init__(self):
        self.tasks: set[asyncio.Task] = set()
        self.kept: dict[tuple, tuple[str, dict]] = {}
        self.down_since: float | None = None
        self.retrying: asyncio.Task | None = None
        self.failures = 0  # sends that failed, in this process's life (for tests and logs)

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def publish(self, group: str, message: dict) -> None:
        """Send ``message`` to ``group`` soon. Never raises, never waits for the layer,
        except where no server loop runs (a management command, a plain test): there the
        send is made at once, bounded by SEND_TIMEOUT."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            self._start(group, message)
            return
        loop = _server_loop()
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._start, group, message)
                return
            except RuntimeError:  # the loop closed in between
                pass
        try:
            async_to_sync(self._send)(group, message, background=False)
        except Exception:
            log.exception("could not push to %s", group)

    def _start(self, group: str, message: dict) -> None:
        if self.down:  # the retry loop is already probing the layer: wait with the rest
            self._keep(group, message)
            return
        task = asyncio.get_running_loop().create_task(self._send(group, message))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, group: str, message: dict, *, background: bool = True) -> bool:
        layer = get_channel_layer()
        if layer is None:
            return True
        try:
            await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)
        except Exception as error:  # including TimeoutError: a hung Redis
            self.failures += 1
            if background:
                self._keep(group, message)
                self._outage(error)
            else:
                log.error("could not push to %s: %r", group, error)
            return False
        self._recovered()
        return True

    def _keep(self, group: str, message: dict) -> None:
        key = (group, message.get("type"), message.get("seat"))
        self.kept.pop(key, None)  # the newest goes last
        self.kept[key] = (group, message)
        while len(self.kept) > MAX_KEPT:
            self.kept.pop(next(iter(self.kept)))

    def _outage(self, error: BaseException) -> None:
        if not self.down:
            self.down_since = time.monotonic()
            log.error(
                "The channel layer is not answering (%r): moves are saved as usual, and "
                "each match's newest board is kept and pushed when it answers again.",
                error,
            )
        if self.retrying is None:
            self.retrying = asyncio.get_running_loop().create_task(self._retry())

    def _recovered(self) -> None:
        if not self.down:
            return
        took = time.monotonic() - (self.down_since or time.monotonic())
        self.down_since = None
        log.warning(
            "The channel layer answers again after %.1f s: pushing the newest board of "
            "%d match(es).",
            took,
            len({group for group, _ in self.kept.values()}),
        )

    def lost(self, error: BaseException) -> None:
        """A socket could not join or leave its group, or read from the layer: the same
        outage as a failed send (logged once)."""
        self._outage(error)

    def answered(self) -> None:
        """A socket joined its group: the layer answers again (kept messages go next)."""
        self._recovered()

    async def _retry(self) -> None:
        """Probe the layer (with the oldest kept message, or a send to an empty group) until
        it answers, then send every kept message."""
        try:
            while self.down or self.kept:
                await asyncio.sleep(RETRY_EVERY)
                key = next(iter(self.kept), None)
                group, message = self.kept.pop(key) if key else (PROBE, {"type": "probe"})
                try:
                    layer = get_channel_layer()
                    await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)
                except Exception:
                    self.failures += 1
                    if key:
                        self.kept.setdefault(key, (group, message))  # unless a newer one came
                    continue
                self._recovered()
                kept, self.kept = self.kept, {}
                for group, message in kept.values():
                    self._start(group, message)
        finally:
            self.retrying = None


publisher = Publisher()
