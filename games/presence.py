"""Open sockets and who is connected, kept where it expires by itself.

Every match socket is a member of a few *sets whose members expire*: a member lives
``TTL`` seconds unless its socket refreshes it (every ``HEARTBEAT``), and leaves at once
when its socket closes. A socket of a server process that was killed is never refreshed,
so it is gone within two heartbeats, with no sweeper and no database row. The sets of
one match:

- ``browser:<match>:<session>``: the sockets of one browser on the match. At most
  ``SOCKETS_PER_MATCH`` may join; past that a socket is refused (4409). The session
  comes from the cookie, so this is decided before the database is read.
- ``seat:<match>:<n>``: the sockets of the player holding seat n. Not empty: connected.
- ``kind:<match>:<kind>``: the sockets of one kind of viewer; the live layer renders a
  change only for kinds with a socket open (games/live.py).

With ``REDIS_URL`` the sets are Redis sorted sets (member: the socket's channel, score:
when it expires), shared by every process; otherwise dicts in this process's memory.
Either way a join is one atomic step (drop the expired, check the cap, add), and reading
a match's presence is one round trip, however many sockets are open.

Nothing here ever raises into a socket or a move: if Redis is unreachable, sockets are
let in, presence reads as unknown, every kind of board is rendered, and Redis is left
alone for a while (bitsite/redis_guard.py: the outage is logged once).

Before any of this, each process counts a client's sockets in its own memory
(games/admission.py: a browser by its session, a cookie-less socket by its address). A
browser without a session cookie holds no seat, so it can make no presence change: its
sockets are spectators' and join no browser's set.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.conf import settings

from bitsite import redis_guard

log = logging.getLogger(__name__)

# A socket refreshes its memberships every HEARTBEAT seconds and looks at its match's
# presence every CHECK seconds. A member lives TTL seconds unless refreshed, so a socket
# that went away without a word (its process was killed) reads as gone after at most
# TTL + CHECK = 2 heartbeats.
HEARTBEAT = 20.0
CHECK = HEARTBEAT / 2
TTL = 30.0
STAMP_TTL = 7 * 24 * 3600  # "last seen" of a seat: how long it is remembered
# A seat whose last page closed less than GRACE seconds ago still reads as connected on the
# boards: a player who only reloads is never shown away (their page comes back sooner).
GRACE = 4.0


@dataclass(frozen=True)
class Snapshot:
    """What the sets say about a match: the seats connected (``None``: unknown) and the
    kinds of viewer with a socket open (``None``: unknown, render them all)."""

    online: frozenset[int] | None
    kinds: frozenset[str] | None
    # The seats asked of that are away: how long since each was last seen (seconds).
    away: dict[int, float] = field(default_factory=dict)


UNKNOWN = Snapshot(None, None)


def browser_set(public_id: str, session_key: str) -> str:
    return f"browser:{public_id}:{hashlib.sha256(session_key.encode()).hexdigest()[:24]}"


def seat_set(public_id: str, seat: int) -> str:
    return f"seat:{public_id}:{seat}"


def kind_set(public_id: str, kind: str) -> str:
    return f"kind:{public_id}:{kind}"


def seen_stamp(seat_set_name: str) -> str:
    """Where a seat's "last seen" time is kept, beside its set."""
    return "seen:" + seat_set_name.removeprefix("seat:")


# ---- the stores ------------------------------------------------------------------------


class LocalStore:
    """Expiring sets in this process's memory (the embedded default: one process)."""

    def __init__(self):
        self.sets: dict[str, dict[str, float]] = {}
        self.stamps: dict[str, float] = {}
        self.lock = threading.Lock()

    def stamp(self, name: str, when: float) -> None:
        with self.lock:
            self.stamps[name] = when

    def stamped(self, name: str) -> float | None:
        with self.lock:
            return self.stamps.get(name)

    def stamped_many(self, names: list[str]) -> list[float | None]:
        with self.lock:
            return [self.stamps.get(name) for name in names]

    def _live(self, name: str, now: float) -> dict[str, float]:
        members = self.sets.get(name)
        if members is None:
            return {}
        for member in [m for m, expires in members.items() if expires <= now]:
            del members[member]
        if not members:
            del self.sets[name]
        return members

    def join(self, member: str, sets: list[str], cap: tuple[str, int] | None = None) -> bool:
        """Add ``member`` to every set, unless the capped set is full (then to none)."""
        now = time.monotonic()
        with self.lock:
            if cap is not None:
                name, limit = cap
                if member not in self._live(name, now) and len(self._live(name, now)) >= limit:
                    return False
            for name in sets:
                self.sets.setdefault(name, {})[member] = now + TTL
            return True

    def refresh(self, member: str, sets: list[str]) -> None:
        self.join(member, sets)

    def leave(self, member: str, sets: list[str]) -> None:
        with self.lock:
            for name in sets:
                members = self.sets.get(name)
                if members is not None:
                    members.pop(member, None)
                    if not members:
                        del self.sets[name]

    def counts(self, sets: list[str]) -> list[int]:
        now = time.monotonic()
        with self.lock:
            return [len(self._live(name, now)) for name in sets]


class RedisStore:
    """Expiring sets in Redis: sorted sets scored by expiry time, which expire as keys too."""

    # Drop the expired members of the capped set; if it is full, add nothing; else add the
    # member to every set, with its expiry as score, and keep each set one TTL longer.
    JOIN = """
local now, expires, ttl, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
    tonumber(ARGV[5])
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= limit then
    return 0
  end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], expires, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 1
"""

    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(
            url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=30
        )
        self.join_script = self.client.register_script(self.JOIN)
        self.prefix = "bitsite:presence:"

    def join(self, member: str, sets: list[str], cap: tuple[str, int] | None = None) -> bool:
        now = time.time()
        keys = [self.prefix + name for name in sets]
        limit = -1
        if cap is not None:
            name, limit = cap
            keys.remove(self.prefix + name)
            keys.insert(0, self.prefix + name)
        args = [member, now, now + TTL, int(TTL * 2000), limit]
        return bool(self.join_script(keys=keys, args=args))

    def refresh(self, member: str, sets: list[str]) -> None:
        self.join(member, sets)

    def stamp(self, name: str, when: float) -> None:
        self.client.set(self.prefix + name, when, ex=STAMP_TTL)

    def stamped(self, name: str) -> float | None:
        found = self.client.get(self.prefix + name)
        return float(found) if found is not None else None

    def stamped_many(self, names: list[str]) -> list[float | None]:
        if not names:
            return []
        found = self.client.mget([self.prefix + name for name in names])
        return [float(value) if value is not None else None for value in found]

    def leave(self, member: str, sets: list[str]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for name in sets:
            pipe.zrem(self.prefix + name, member)
        pipe.execute()

    def counts(self, sets: list[str]) -> list[int]:
        now = time.time()
        pipe = self.client.pipeline(transaction=False)
        for name in sets:
            pipe.zcount(self.prefix + name, f"({now}", "+inf")
        return [int(count) for count in pipe.execute()]


_store: LocalStore | RedisStore | None = None
_store_lock = threading.Lock()


def store() -> LocalStore | RedisStore:
    global _store
    if _store is None:
        with _store_lock:
            if _store is None:
                url = settings.REDIS_URL
                _store = RedisStore(url) if url else LocalStore()
    return _store


# ---- an unreachable store --------------------------------------------------------------


def _reachable() -> bool:
    return redis_guard.available()


def _failed(what: str, error: Exception) -> None:
    redis_guard.failed(f"presence, {what}", error)


def _answered() -> None:
    redis_guard.answered()


# ---- what sockets and pushes ask (from threads, or through ``call`` from async code) ------


@dataclass
class Membership:
    """The sets one socket belongs to."""

    channel: str
    sets: list[str]
    capped: str | None  # the browser's set, if it has a session


def enter(public_id: str, channel: str, session_key: str | None) -> Membership | None:
    """A socket opens: it joins its browser's set, unless that browser already has
    SOCKETS_PER_MATCH sockets open on this match (``None``: refuse it). Decided from the
    session cookie, before anything is read. If Redis is unreachable the socket is let
    in, with nothing to keep."""
    if not session_key:
        return Membership(channel, [], None)
    capped = browser_set(public_id, session_key)
    if not _reachable():
        return Membership(channel, [], None)
    try:
        joined = store().join(channel, [capped], (capped, settings.SOCKETS_PER_MATCH))
    except Exception as error:
        _failed("letting a socket in", error)
        return Membership(channel, [], None)
    _answered()
    return Membership(channel, [capped], capped) if joined else None


def settle(membership: Membership, public_id: str, *, kind: str, seat: int | None) -> None:
    """Once the socket knows its viewer: join its kind's set, and its seat's if it makes
    presence (one player's socket in a friend's match)."""
    sets = [kind_set(public_id, kind)]
    if seat is not None:
        sets.append(seat_set(public_id, seat))
    if not _reachable():
        return
    try:
        store().join(membership.channel, sets)
        _stamp_seats(sets)
    except Exception as error:
        _failed("letting a socket in", error)
        return
    _answered()
    membership.sets.extend(sets)


def attend(public_id: str, channel: str, seat: int) -> Membership:
    """A player connected otherwise than by a page of the match (an API stream of its own
    game, api/live.py): a member of its seat's set, as a player's socket is, kept alive by
    ``refresh`` and ended by ``depart``. No kind of viewer: no board is drawn for it."""
    membership = Membership(channel, [], None)
    settle_sets = [seat_set(public_id, seat)]
    if not _reachable():
        return membership
    try:
        store().join(channel, settle_sets)
        _stamp_seats(settle_sets)
    except Exception as error:
        _failed("letting a stream in", error)
        return membership
    _answered()
    membership.sets.extend(settle_sets)
    return membership


def _stamp_seats(sets: list[str]) -> None:
    """A seat's socket is here now: its "last seen" time."""
    now = time.time()
    for name in sets:
        if name.startswith("seat:"):
            store().stamp(seen_stamp(name), now)


def refresh(membership: Membership) -> None:
    """Keep this socket's memberships alive (or join again, if they expired meanwhile:
    the browser's cap is not asked again, this socket was let in)."""
    if not membership.sets or not _reachable():
        return
    try:
        store().refresh(membership.channel, membership.sets)
        _stamp_seats(membership.sets)
    except Exception as error:
        _failed("refreshing a socket", error)
        return
    _answered()


def depart(membership: Membership) -> None:
    """A socket closes: it leaves its sets at once."""
    if not membership.sets or not _reachable():
        return
    try:
        # The "last seen" first: whoever reads the seat empty then reads it fresh (in the
        # other order a reader between the two steps took an old stamp for the departure).
        _stamp_seats(membership.sets)
        store().leave(membership.channel, membership.sets)
    except Exception as error:
        _failed("letting a socket go", error)


def snapshot(public_id: str, kinds: list[str], seats: tuple[int, ...] = ()) -> Snapshot:
    """One read: which of ``kinds`` have a socket open, and which of ``seats`` are
    connected, as the boards show them: a seat whose last page closed less than GRACE
    seconds ago still counts (one more round trip, only while a seat has no page open)."""
    names = [seat_set(public_id, seat) for seat in seats] + [
        kind_set(public_id, kind) for kind in kinds
    ]
    if not _reachable():
        return UNKNOWN
    try:
        counts = store().counts(names)
        closed = [seat for seat, n in zip(seats, counts, strict=False) if not n]
        stamps = store().stamped_many([seen_stamp(seat_set(public_id, s)) for s in closed])
    except Exception as error:
        _failed("reading presence", error)
        return UNKNOWN
    _answered()
    now = time.time()
    away = {
        seat: max(0.0, now - seen)
        for seat, seen in zip(closed, stamps, strict=True)
        if seen is not None
    }
    online = frozenset(
        seat for seat in seats if seat not in closed or (seat in away and away[seat] < GRACE)
    )
    present = frozenset(kind for kind, n in zip(kinds, counts[len(seats) :], strict=True) if n)
    gone = {seat: seconds for seat, seconds in away.items() if seat not in online}
    return Snapshot(online, present, gone)


def online_seats(public_id: str, seats: tuple[int, ...] = (1, 2)) -> frozenset[int] | None:
    """The seats shown connected (``snapshot``: a page closed within GRACE counts)."""
    return snapshot(public_id, [], seats).online


def marks(public_id: str, seats: tuple[int, ...]) -> Snapshot:
    """The seats shown connected, and how long the others have been away."""
    return snapshot(public_id, [], seats)


LATELY = 1.0  # seconds: how old a reading of ``online_seats_lately`` may be
_lately: dict[tuple[str, tuple[int, ...]], tuple[float, frozenset[int] | None]] = {}


def online_seats_lately(public_id: str, seats: tuple[int, ...]) -> frozenset[int] | None:
    """``online_seats``, read at most once every LATELY seconds in this process for one
    match, however many of its sockets ask (the heartbeats of its spectators' pages)."""
    key = (public_id, seats)
    now = time.monotonic()
    known = _lately.get(key)
    if known is not None and now - known[0] < LATELY:
        return known[1]
    online = online_seats(public_id, seats)
    if len(_lately) > 10_000:
        _lately.clear()  # old matches' readings: forgotten all at once, rarely
    _lately[key] = (now, online)
    return online


_watched: dict[tuple, tuple[float, tuple]] = {}


def watched_lately(
    public_id: str, seats: tuple[int, ...], kind: str
) -> tuple[frozenset[int] | None, int | None]:
    """Which of ``seats`` are connected and how many sockets of ``kind`` (the spectators)
    are open, in one round trip read at most once every LATELY seconds in this process
    for one match, however many of its sockets ask (``None``: unknown)."""
    key = (public_id, seats, kind)
    now = time.monotonic()
    known = _watched.get(key)
    if known is not None and now - known[0] < LATELY:
        return known[1]
    found = counts([seat_set(public_id, seat) for seat in seats] + [kind_set(public_id, kind)])
    if found is None:
        answer = (None, None)
    else:
        answer = (frozenset(s for s, n in zip(seats, found, strict=False) if n), found[-1])
    if len(_watched) > 10_000:
        _watched.clear()  # old matches' readings: forgotten all at once, rarely
    _watched[key] = (now, answer)
    return answer


@dataclass(frozen=True)
class SeatsSeen:
    """What the sets said of a match's two seats at one moment (``seats_seen``): which had
    a page open, and when each was last seen (None: never, or unknown)."""

    online: frozenset[int] | None  # None: unknown
    last_seen: dict[int, float | None]

    def away_for(self, seat: int, since: float | None = None) -> float | None:
        """Seconds since ``seat`` last had a page open (as of now); ``None`` while it had
        one, or when that cannot be known. A seat never seen counts from ``since``."""
        if self.online is None or seat in self.online:
            return None
        seen = self.last_seen.get(seat)
        seen = seen if seen is not None else since
        return None if seen is None else max(0.0, time.time() - seen)


def seats_seen(public_id: str) -> SeatsSeen:
    """Both seats of a match, in two round trips: read it before a write that needs it
    (the write path holds no lock while Redis answers). A seat counts as here only while
    it has a page open (no GRACE: a claim counts from when its last page closed)."""
    counted = counts([seat_set(public_id, seat) for seat in (1, 2)])
    if counted is None:
        return SeatsSeen(None, {})
    online = frozenset(seat for seat, n in zip((1, 2), counted, strict=True) if n)
    if online == {1, 2}:
        return SeatsSeen(online, {})
    try:
        stamps = store().stamped_many([seen_stamp(seat_set(public_id, s)) for s in (1, 2)])
    except Exception as error:
        _failed("reading when a seat was last seen", error)
        return SeatsSeen(None, {})
    return SeatsSeen(online, dict(zip((1, 2), stamps, strict=True)))


def away_for(public_id: str, seat: int, since: float | None = None) -> float | None:
    """Seconds since ``seat`` last had a page of the match open; ``None`` while it has one
    (or when that cannot be known). A seat never seen counts from ``since``."""
    return seats_seen(public_id).away_for(seat, since)


def away_for_many(seats: list[tuple[str, int, float | None]]) -> list[float | None]:
    """``away_for`` of several (public_id, seat, since) at once, in two round trips
    however many (the lobby asks it of every open challenge's creator)."""
    if not seats:
        return []
    names = [seat_set(public_id, seat) for public_id, seat, _ in seats]
    if not _reachable():
        return [None] * len(seats)
    try:
        counts = store().counts(names)
        stamps = store().stamped_many([seen_stamp(name) for name in names])
    except Exception as error:
        _failed("reading when seats were last seen", error)
        return [None] * len(seats)
    _answered()
    now = time.time()
    away = []
    for (_, _, since), count, seen in zip(seats, counts, stamps, strict=True):
        seen = seen if seen is not None else since
        away.append(None if count or seen is None else max(0.0, now - seen))
    return away


def counts(names: list[str]) -> list[int] | None:
    """How many live members each of these sets has (``None``: unknown), in one round trip."""
    if not names:
        return []
    if not _reachable():
        return None
    try:
        found = store().counts(names)
    except Exception as error:
        _failed("counting sockets", error)
        return None
    _answered()
    return found


def join_sets(channel: str, names: list[str]) -> None:
    """Make ``channel`` (a socket) a member of these sets (again: a heartbeat refreshes it),
    for the apps' own sets of open pages (My games', the inbox's). Nothing if the store is
    unreachable: the socket is let be."""
    if not _reachable():
        return
    try:
        store().join(channel, names)
    except Exception as error:
        _failed("a page joining its sets", error)
        return
    _answered()


def join_capped(member: str, name: str, limit: int) -> bool | None:
    """``member`` joins the set ``name`` unless it already has ``limit`` live members
    (False), in one atomic step however many ask at once (an API token's open streams,
    api/live.py); ``None``: the store is unreachable, nothing joined (let it be)."""
    if not _reachable():
        return None
    try:
        joined = store().join(member, [name], (name, limit))
    except Exception as error:
        _failed("counting a capped set", error)
        return None
    _answered()
    return joined


def leave_sets(channel: str, names: list[str]) -> None:
    """``channel`` leaves these sets at once (its socket closed)."""
    if not _reachable():
        return
    try:
        store().leave(channel, names)
    except Exception as error:
        _failed("a page leaving its sets", error)


async def call(function, *args, **kwargs):
    """Run one of these from async code: in place for the in-process store (it never
    waits), on a worker thread for Redis (a slow Redis must not stall the event loop)."""
    if isinstance(store(), LocalStore):
        return function(*args, **kwargs)
    return await sync_to_async(function, thread_sensitive=False)(*args, **kwargs)
