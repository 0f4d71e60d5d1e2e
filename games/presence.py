"""Open sockets and who is connected, kept where it expires by itself: Django's cache.

Every match socket of a browser with a session holds a *slot*: a cache key with a
short lifetime that the socket refreshes while it is open. Slots are what

- caps the sockets one browser opens on one match (``SOCKETS_PER_MATCH`` slots, taken
  with ``cache.add``, so two processes never hand out the same one);
- tells who is connected: in a friend's match the slots of seat 1 and seat 2. The slots
  of a killed process are not refreshed and expire within two heartbeats, with no
  sweeper and no database row;

Beside them, a *kind* key per kind of viewer with an open socket tells the live layer
which boards to render for a change (games/live.py).

On one process the cache is in-process memory; with ``REDIS_URL`` it is Redis, shared
by every process. Nothing here ever raises into a socket: if the cache is unreachable,
sockets are let in, presence reads as unknown and every kind of board is rendered.

A second cap, per process, counts one browser's sockets on all matches
(``SOCKETS_PER_PROCESS`` per session), in this process's memory, before any database or
cache is touched. A browser without a session cookie holds no seat, so it can make no
presence change: its sockets are spectators' and are not counted here (the rate of
connects per address is limited like every other request).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache

log = logging.getLogger(__name__)

# A socket refreshes its slot every HEARTBEAT seconds and looks at its match's presence
# every CHECK seconds. A slot lives TTL seconds unless refreshed, so a socket that went
# away without a word (its process was killed) reads as gone after at most
# TTL + CHECK = 2 heartbeats.
HEARTBEAT = 20.0
CHECK = HEARTBEAT / 2
TTL = 30


@dataclass(frozen=True)
class Snapshot:
    """What the cache says about a match's sockets: the seats connected (``None``: unknown)
    and the kinds of viewer with a socket open (``None``: unknown, render them all)."""

    online: frozenset[int] | None
    kinds: frozenset[str] | None


UNKNOWN = Snapshot(None, None)

# After a cache error, the cache is left alone for this long: while Redis is down, sockets
# and moves do not each wait for its timeout. An outage is logged once, and its end once.
BACK_OFF = 2.0
_unreachable_until = 0.0
_down = False


def _reachable() -> bool:
    return time.monotonic() >= _unreachable_until


def _failed(what: str) -> None:
    global _unreachable_until, _down
    if not _down:
        log.warning("presence: the cache is unreachable (%s); sockets are let in meanwhile", what)
    _down = True
    _unreachable_until = time.monotonic() + BACK_OFF


def _answered() -> None:
    global _down
    if _down:
        _down = False
        log.warning("presence: the cache answers again")


def _version_key(public_id: str) -> str:
    return f"version:{public_id}"


VERSION_TTL = 24 * 3600


def set_version(public_id: str, version: int) -> None:
    """The newest version of a match that was pushed (before it is sent: a socket that
    opens meanwhile compares it with the board it read)."""
    if not _reachable():
        return
    try:
        cache.set(_version_key(public_id), version, VERSION_TTL)
    except Exception as error:
        _failed(f"recording a version: {error!r}")


def pushed_version(public_id: str) -> int | None:
    """The newest version pushed, if the cache knows it."""
    if not _reachable():
        return None
    try:
        return cache.get(_version_key(public_id))
    except Exception as error:
        _failed(f"reading a version: {error!r}")
        return None


def _slot_keys(public_id: str, owner: str) -> list[str]:
    return [f"sock:{public_id}:{owner}:{i}" for i in range(settings.SOCKETS_PER_MATCH)]


def _kind_key(public_id: str, kind: str) -> str:
    return f"kind:{public_id}:{kind}"


def seat_owner(seat: int) -> str:
    return f"seat{seat}"


def browser_owner(session_key: str) -> str:
    return "s" + hashlib.sha256(session_key.encode()).hexdigest()[:24]


# ---- in the cache (call from threads, or through ``call`` from async code) -----------------


def claim(public_id: str, owner: str | None, kind: str, channel: str) -> str | None:
    """Take a free slot of ``owner`` on this match and mark ``kind`` present.

    Returns the slot's key; ``""`` when there is no owner (a browser without a session)
    or the cache cannot be reached (the socket is let in); ``None`` when all the owner's
    slots are taken."""
    if not _reachable():
        return ""
    try:
        cache.set(_kind_key(public_id, kind), 1, TTL)
        _answered()
        if owner is None:
            return ""
        for key in _slot_keys(public_id, owner):
            if cache.add(key, channel, TTL):
                return key
        return None
    except Exception as error:
        _failed(f"letting a socket in: {error!r}")
        return ""


def refresh(public_id: str, owner: str | None, kind: str, key: str, channel: str) -> str:
    """Keep this socket's slot (and its kind) alive; take another if it was lost."""
    if not _reachable():
        return key
    try:
        cache.set(_kind_key(public_id, kind), 1, TTL)
        if owner is None:
            return key
        if key and cache.get(key) == channel:
            cache.touch(key, TTL)
            return key
        for other in _slot_keys(public_id, owner):
            if cache.add(other, channel, TTL):
                return other
        return key
    except Exception as error:
        _failed(f"refreshing a slot: {error!r}")
        return key


def release(key: str, channel: str) -> None:
    if not key or not _reachable():
        return
    try:
        if cache.get(key) == channel:
            cache.delete(key)
    except Exception as error:
        _failed(f"releasing a slot: {error!r}")


def snapshot(public_id: str, kinds: list[str], seats: tuple[int, ...] = ()) -> Snapshot:
    """One cache read: which of ``kinds`` have a socket open, and which of ``seats`` are
    connected."""
    seat_keys = {seat: _slot_keys(public_id, seat_owner(seat)) for seat in seats}
    kind_keys = {kind: _kind_key(public_id, kind) for kind in kinds}
    wanted = [key for keys in seat_keys.values() for key in keys] + list(kind_keys.values())
    if not _reachable():
        return UNKNOWN
    try:
        found = cache.get_many(wanted)
    except Exception as error:
        _failed(f"reading presence: {error!r}")
        return UNKNOWN
    _answered()
    online = frozenset(seat for seat, keys in seat_keys.items() if any(k in found for k in keys))
    present = frozenset(kind for kind, key in kind_keys.items() if key in found)
    return Snapshot(online, present)


def online_seats(public_id: str, seats: tuple[int, ...] = (1, 2)) -> frozenset[int] | None:
    return snapshot(public_id, [], seats).online


async def call(function, *args):
    """Run a cache function from async code: in place for the in-process cache (it never
    waits), on a worker thread for Redis (a slow Redis must not stall the event loop)."""
    if isinstance(caches["default"], LocMemCache):
        return function(*args)
    return await sync_to_async(function, thread_sensitive=False)(*args)


# ---- in this process's memory ----------------------------------------------------------------

_open: Counter[str] = Counter()


def admit(session_key: str) -> bool:
    """Count one more socket of this session in this process, unless it has its share open."""
    if _open[session_key] >= settings.SOCKETS_PER_PROCESS:
        return False
    _open[session_key] += 1
    return True


def leave(session_key: str) -> None:
    _open[session_key] -= 1
    if _open[session_key] <= 0:
        del _open[session_key]
