"""Pushes to the browsers watching a match: render each change once, send it once.

Every socket of a match belongs to the group of its *kind of viewer* (spectator,
seat 1, seat 2, both seats on one device: games/rights.py). When a change commits,
the write path (games/play.py) hands it to a ``Push``: it reads what the boards
share once, renders the board once for each kind with a socket open, and sends each
to its kind's group; every consumer forwards what it is sent, without touching the
database (games/consumers.py), as the Channels tutorial's ``chat_message`` does. So a
change costs one read and a render per kind whether one page watches or a thousand.
The mover's own kind is drawn last: the opponent's board goes out first, and the
mover's answer is the board drawn for its kind.

Sending never holds up the request that made the change. The message is handed to
the server's event loop and the request goes on: no database connection is held
while the channel layer works, and a slow or missing Redis cannot make a move wait.
A send that fails or takes longer than ``SEND_TIMEOUT`` starts an *outage*: it is
logged once, the newest message of each group is kept (older ones are superseded:
every board carries the whole position), and they are sent again when the layer
answers. Pages that lost their socket meanwhile resync when they reconnect.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from contextlib import contextmanager
from typing import TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from bitsite.loop import serving_loop
from games import boards, presence
from games.models import Match
from games.rights import SPECTATOR, kinds, kinds_of_mode
from games.signals import spectators_counted

T = TypeVar("T")

log = logging.getLogger(__name__)

SEND_TIMEOUT = 2.0  # seconds a group send may take before the layer counts as down
RETRY_EVERY = 1.0  # seconds between attempts to reach a layer that is down
MAX_KEPT = 10_000  # groups whose newest message is kept through an outage
CONNECT_ATTEMPTS = 4  # tries of a send that fails with a connection error
# Group sends in flight at once in a process. A burst (a thousand players' panels as an
# arena starts) waits its turn here: sent all at once over Redis, it took every connection
# of the layer's pool (MaxConnectionsError) and held each send past SEND_TIMEOUT, which
# counted as an outage.
SEND_SLOTS = 64
PROBE = "bitsite.probe"  # a group nobody joins: sending to it tells whether the layer answers


def group_name(public_id: str, kind: str) -> str:
    """The group of one kind of viewer of one match."""
    return f"match.{public_id}.{kind}"


class Push:
    """One committed change on its way to the match's pages.

    ``prepare`` reads what the boards need: the last moves from the database (on the
    connection that wrote the change), and from the presence sets (games/presence.py) who
    is connected and which kinds of viewer have a socket open. ``send`` records the new
    version in Django's cache
    (a socket that opens meanwhile checks it), then renders the board once for each
    kind watching and sends it to that kind's group, the mover's kind (``last``) last.
    The boards stay on ``match.pushed``: the answer to the request that made the change
    is its viewer's board. Neither ever raises: the change is saved, and a page that
    misses a push catches up on its next sync.

    ``players_only``: the change shows only on the players' boards (a hints toggle);
    spectators keep theirs, and get the next change as usual. ``told``: what the change
    tells some of its viewers (a declined draw offer, told to the offerer's pages with
    their board: ``boards.told_notice``).
    """

    def __init__(
        self,
        match: Match,
        *,
        players_only: bool = False,
        last: str | None = None,
        told: boards.DrawDeclined | None = None,
    ):
        self.match = match
        self.told = told
        # The opponent first, then the spectators, the mover (``last``) last.
        self.wanted = sorted(
            (viewer for viewer in kinds(match) if not (players_only and viewer.spectator)),
            key=lambda viewer: (viewer.key == last, viewer.spectator),
        )
        self.moves: list[dict] | None = None
        self.seen = presence.UNKNOWN

    def prepare(self) -> None:
        match = self.match
        try:
            # The move the write path just recorded (games/play.py): no query for the list.
            self.moves = boards.recent_moves(match, getattr(match, "recorded", None))
        except Exception:
            log.exception("could not read the moves of match %s", match.public_id)
        friend = match.mode == Match.Mode.FRIEND
        self.seen = presence.snapshot(
            match.public_id, [viewer.key for viewer in self.wanted], (1, 2) if friend else ()
        )

    def send(self) -> None:
        match = self.match
        match.pushed = {}
        try:
            online = self.seen.online or frozenset()
            marks = [[seat, seat in online] for seat in boards.presence_seats(match)]
            shared = None
            for viewer in self.wanted:
                if self.seen.kinds is not None and viewer.key not in self.seen.kinds:
                    continue  # nobody of this kind watches: nothing to draw
                shared = shared or boards.scene(
                    match, online=online, moves=self.moves, away=self.seen.away
                )
                html = boards.render_board(match, viewer, shared=shared, told=self.told)
                match.pushed[viewer.key] = html
                message = {
                    "type": "match.changed",
                    "version": match.version,
                    "html": html,
                    "marks": marks,  # the presence marks this board draws
                }
                # What changed since this process's last push to this kind (the consumer
                # sends it to a page that shows that push, the whole board to any other).
                now = boards.drawing(html)
                # A finished match's board is kept no longer: no move follows it.
                kept = now if match.status != Match.Status.FINISHED else None
                before = drawn.swap((match.public_id, viewer.key), (match.version, kept))
                if before is not None and before[0] < match.version and now is not None:
                    changed = boards.delta(before[1], now, before[0])
                    if changed is not None:
                        message["base"], message["delta"] = before[0], changed
                publisher.publish(group_name(match.public_id, viewer.key), message)
        except Exception:
            log.exception("could not draw match %s version %s", match.public_id, match.version)


class Drawn:
    """The last board this process pushed to each kind of viewer of each match, with its
    version (a bounded map, least recently used dropped first): a push carries what changed
    since it (``boards.delta``)."""

    def __init__(self, size: int):
        self.boards = boards.Kept(size)
        self.lock = threading.Lock()

    def swap(self, key: tuple[str, str], board: tuple[int, object]) -> tuple[int, object] | None:
        """Keep ``board`` (version, its drawing; None: keep nothing more of ``key``) as
        the last of ``key``; return the one before."""
        with self.lock:
            before = self.boards.pop(key, None)
            if before is not None and before[0] > board[0]:
                board = before  # a newer board was pushed meanwhile: it stays the last
            elif before is not None and before[0] == board[0] and before[1] != board[1]:
                return None  # the same version drawn again (pages keep the first): none kept
            if board[1] is not None:
                self.boards.keep(key, board)
        return before


BOARDS_KEPT = 4_000  # boards kept for the next push's delta (about 5 KiB each)
drawn = Drawn(BOARDS_KEPT)


def match_changed(match: Match, *, players_only: bool = False) -> dict[str, str]:
    """Push this version of the match to its pages now (for code outside the write path's
    transactions, like tests and benchmarks). Returns the boards."""
    push = Push(match, players_only=players_only)
    push.prepare()
    push.send()
    return match.pushed


def presence_changed(
    public_id: str, mode: str, seat: int, online: bool, away: float | None = None
) -> None:
    """One seat's "connected" mark, sent to the group of every kind of viewer of the match
    (``away``: seconds since that seat's last page closed)."""
    message = {
        "type": "presence.changed",
        "seat": seat,
        "online": online,
        "html": boards.presence_fragment(seat, online, away),
    }
    for viewer in kinds_of_mode(mode):
        publisher.publish(group_name(public_id, viewer.key), message)


def send_fragment(public_id: str, kind: str, part: str, html: str) -> None:
    """Send a part of the page drawn by an app above games (games/extras.py's panels: the
    chat) to the sockets of one kind of viewer of a match, which forward it as it is. Each
    carries the whole part (``part`` names it): a newer one supersedes an older one, through
    an outage of the layer too."""
    message = {"type": "page.fragment", "part": part, "html": html}
    publisher.publish(group_name(public_id, kind), message)


# ---- "N watching": the spectators of a match, counted in the presence sets ----------------

SPECTATORS_EVERY = 1.0  # seconds: at most one count of a match's spectators per process


def spectator_counts(public_ids: list[str]) -> list[int | None]:
    """How many spectator pages each match has open (None: unknown), in one round trip:
    the match page's "N watching" and the watch page's cards."""
    names = [presence.kind_set(public_id, SPECTATOR.key) for public_id in public_ids]
    found = presence.counts(names)
    return found if found is not None else [None] * len(public_ids)


class Spectators:
    """A spectator's page opened or closed: the match's count, sent to its pages.

    Counted in the presence sets after the change (the page's socket has joined or left
    its kind's set), at most once every SPECTATORS_EVERY seconds per match in this
    process (a burst of pages opening is one count), and sent to every kind of viewer's
    group as one small fragment: no board is drawn again. Each socket forwards it only if
    its page shows another number. A listed match's count also goes to the watch page
    (``spectators_counted``: lobby/live.py). Runs in the server's event loop."""

    def __init__(self):
        self.due: dict[str, tuple[str, bool]] = {}  # match -> (mode, listed)
        self.last: dict[str, float] = {}  # match -> when it was last counted
        self.tasks: set[asyncio.Task] = set()

    def changed(self, public_id: str, mode: str, listed: bool) -> None:
        if public_id in self.due:
            return  # a count is on its way, and will see this change
        self.due[public_id] = (mode, listed)
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.last.get(public_id, 0.0) + SPECTATORS_EVERY - time.monotonic())
        loop.call_later(delay, self._start, loop, public_id)

    def _start(self, loop: asyncio.AbstractEventLoop, public_id: str) -> None:
        task = loop.create_task(self.count(public_id))
        self.tasks.add(task)  # held until done (a task nobody holds may be collected)
        task.add_done_callback(self.tasks.discard)

    async def count(self, public_id: str) -> None:
        mode, listed = self.due.pop(public_id, (None, False))
        if mode is None:
            return
        if len(self.last) > 10_000:
            self.last.clear()  # old matches: forgotten all at once, rarely
        self.last[public_id] = time.monotonic()
        try:
            # Off the event loop when the sets are in Redis (presence.call).
            count = await presence.call(_counted, public_id, listed)
            if count is None:
                return  # unknown (Redis is away): the pages' own checks catch up later
            message = {"type": "spectators.changed", "count": count}
            message["html"] = boards.spectators_fragment(count)
            for viewer in kinds_of_mode(mode):
                publisher.publish(group_name(public_id, viewer.key), message)
        except Exception:
            log.exception("could not count the spectators of match %s", public_id)


def _counted(public_id: str, listed: bool) -> int | None:
    """A match's spectators, counted; a listed match's count told to the watch page."""
    (count,) = spectator_counts([public_id])
    if count is not None and listed:
        spectators_counted.send(sender=Match, public_id=public_id, count=count)
    return count


spectators = Spectators()


def presence_gone_later(public_id: str, mode: str, seat: int) -> None:
    """On the loop, as a seat's page closes: once ``presence.GRACE`` has passed, if the seat
    still has no page open, its "not connected" mark goes to every page of the match. A
    player who only reloads is back sooner: nothing is sent."""
    loop = asyncio.get_running_loop()

    def look() -> None:
        task = loop.create_task(
            _gone_if_still(public_id, mode, seat), context=contextvars.Context()
        )
        _looks.add(task)  # kept until done (the loop keeps only a weak reference)
        task.add_done_callback(_looks.discard)

    loop.call_later(presence.GRACE + 0.1, look, context=contextvars.Context())


_looks: set[asyncio.Task] = set()


async def _gone_if_still(public_id: str, mode: str, seat: int) -> None:
    try:
        seen = await presence.call(presence.marks, public_id, (seat,))
    except Exception:
        log.warning("could not read the presence of match %s", public_id, exc_info=True)
        return
    if seen.online is not None and seat not in seen.online:
        presence_changed(public_id, mode, seat, False, seen.away.get(seat))


_sending = threading.local()


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop to publish to from this thread: the one the SQLite writer was told
    (``sending_to``), else the server's (bitsite/loop.py), if one is running."""
    loop = getattr(_sending, "loop", None)
    if loop is not None and loop.is_running() and not loop.is_closed():
        return loop
    return serving_loop()


class Window:
    """Bursts of changes, per key, on their way to a page's groups: the first change after
    a quiet ``every()`` seconds fires at once, the ones that follow sooner fire together at
    the end of that window. One definition for every live list (the lobby's, the watch
    page's, a tournament's): a burst costs each page a few frames a second, however many
    changes it holds.

    ``add(key, note)`` is called from any thread after a change committed; ``note()``
    records the change in the caller's own state, under the window's lock. ``fire(key)``
    runs in the server's event loop (in the caller's loop when there is one, at once when
    there is no server: a management command, a plain test), and takes what was noted with
    ``take(key, what)``, which opens the next window."""

    def __init__(self, every: Callable[[], float], fire: Callable[[Hashable], None]):
        self.every = every
        self.fire = fire
        self.lock = threading.Lock()
        self.scheduled: dict[Hashable, asyncio.AbstractEventLoop | None] = {}
        self.last: dict[Hashable, float] = {}  # key -> when it last fired (monotonic)

    def add(self, key: Hashable, note: Callable[[], None]) -> None:
        running = _running_loop()
        loop = running or server_loop()
        with self.lock:
            note()
            waiting = self.scheduled.get(key, False)
            if waiting is loop and loop is not None and not loop.is_closed():
                return  # a fire is on its way in this loop
            self.scheduled[key] = loop
            delay = max(0.0, self.last.get(key, 0.0) + self.every() - time.monotonic())
        if loop is None:
            self.fire(key)
            return
        try:
            if loop is running:
                loop.call_later(delay, self.fire, key)
            else:
                loop.call_soon_threadsafe(loop.call_later, delay, self.fire, key)
        except RuntimeError:  # the loop closed in between
            self.fire(key)

    def take(self, key: Hashable, what: Callable[[], T]) -> T:
        """What was noted for ``key`` (``what()``, under the lock); the next change opens
        a new window."""
        with self.lock:
            self.scheduled.pop(key, None)
            self.last[key] = time.monotonic()
            return what()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@contextmanager
def sending_to(loop: asyncio.AbstractEventLoop | None):
    """Publish from this thread to ``loop`` (the server's) while the block runs."""
    _sending.loop = loop
    try:
        yield
    finally:
        _sending.loop = None


class Publisher:
    """Hands group messages to the channel layer without making the caller wait."""

    def __init__(self):
        self.tasks: set[asyncio.Task] = set()
        self.kept: dict[tuple, tuple[str, dict]] = {}
        self.down_since: float | None = None
        self.retrying: asyncio.Task | None = None
        self.probing: asyncio.Task | None = None
        self.failures = 0  # sends that failed, in this process's life (for tests and logs)
        self.slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop -> slots

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
        loop = server_loop()
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

    def _slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        slots = self.slots.get(loop)
        if slots is None:
            slots = self.slots[loop] = asyncio.Semaphore(SEND_SLOTS)
        return slots

    async def _send(self, group: str, message: dict, *, background: bool = True) -> bool:
        layer = get_channel_layer()
        if layer is None:
            return True
        try:
            async with self._slots():
                if background and self.down:  # it failed while this one waited its turn
                    self._keep(group, message)
                    return False
                await self._group_send(layer, group, message)
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

    @staticmethod
    async def _group_send(layer, group: str, message: dict) -> None:
        """One group send, bounded by SEND_TIMEOUT. A connection error is tried again at
        once, a few times: each connection pooled before Redis restarted fails once (and
        is dropped from the pool), then a new one works. The message names its group: a
        process's relay of a shared group hands it to that group's sockets
        (games/fanout.py)."""
        message = {**message, "group": group}
        for attempt in range(CONNECT_ATTEMPTS):
            try:
                await asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT)
                return
            except (TimeoutError, asyncio.CancelledError):
                raise
            except Exception:
                if attempt == CONNECT_ATTEMPTS - 1:
                    raise

    def _keep(self, group: str, message: dict) -> None:
        key = (group, message.get("type"), message.get("seat"), message.get("part"))
        self.kept.pop(key, None)  # the newest goes last
        self.kept[key] = (group, message)
        while len(self.kept) > MAX_KEPT:
            self.kept.pop(next(iter(self.kept)))

    def _outage(self, error: BaseException) -> None:
        if not self.down:
            self.down_since = time.monotonic()
            log.error(
                "The channel layer is not answering (%r): moves are saved as usual, and "
                "each group's newest message is kept and pushed when it answers again.",
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
            "The channel layer answers again after %.1f s: pushing the newest message of "
            "%d group(s).",
            took,
            len({group for group, _ in self.kept.values()}),
        )

    def lost(self, error: BaseException) -> None:
        """A socket could not join or leave its group, or read from the layer. If a probe
        fails too, that is the outage a failed send would start (logged once); a socket's
        own broken connection is not."""
        if self.down or self.probing is not None:
            return
        self.probing = asyncio.get_running_loop().create_task(self._probe(error))

    async def _probe(self, error: BaseException) -> None:
        try:
            await self._group_send(get_channel_layer(), PROBE, {"type": "probe"})
        except Exception:
            self._outage(error)
        finally:
            self.probing = None

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
                    await self._group_send(get_channel_layer(), group, message)
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
