"""The server's own timers: a match that ends by itself when nobody acts.

A real-time match whose first move has not come in time is aborted by the server, with
no result (``clock.aborted_at``), at that moment, with no request to start it. The
moment lives in the database (when the turn began), never only here: each server
process keeps, in its event loop, one timer for each match it knows to have such a
moment to come, and when the timer fires it asks the write path to settle the match
(``play.settle_time``: it decides by the database and the server's clock, writes only
if the moment has come, and pushes the abort to every page like any change, once,
after commit). Several processes may hold a timer for one match: it is aborted once.

A process learns of a moment from every write of the match (the write path's pushes),
from every read (``play.settle_time``: a page, a socket opening), and, after a restart,
from the database: as daphne starts serving, ``recover`` looks for every match with a
moment to come. Nothing is lost with the process: a timer is only a reminder.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading

from channels.db import database_sync_to_async
from django.utils import timezone

from games import clock

log = logging.getLogger(__name__)

MARGIN = 0.05  # seconds after the moment: the write path's clock has passed it

_timers: dict[str, tuple[float, asyncio.TimerHandle]] = {}  # match id -> (when, timer)
_lock = threading.Lock()
_tasks: set[asyncio.Task] = set()
fired = 0  # timers fired in this process (for tests)


def watch(match) -> None:
    """From any thread: make sure this process settles ``match`` when the server is due to
    abort it (if it is: nothing otherwise). Without a server loop (a management command, a
    plain test), nothing: the next read of the match settles it."""
    due = clock.aborted_at(match)
    if due is None:
        return
    from games.live import server_loop

    loop = _running_loop()
    delay = max(0.0, (due - timezone.now()).total_seconds()) + MARGIN
    if loop is not None:
        _arm(match.public_id, delay)
        return
    loop = server_loop()
    if loop is None:
        return
    with contextlib.suppress(RuntimeError):  # the loop closed in between
        loop.call_soon_threadsafe(_arm, match.public_id, delay)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _arm(public_id: str, delay: float) -> None:
    """On the loop: a timer for ``public_id`` in ``delay`` seconds, unless an earlier one is
    set (when it fires, the settle sets the next one if the moment moved on)."""
    loop = asyncio.get_running_loop()
    when = loop.time() + delay
    with _lock:
        known = _timers.get(public_id)
        if known is not None and known[0] <= when and not known[1].cancelled():
            return
        if known is not None:
            known[1].cancel()
        handle = loop.call_at(when, _fire, public_id, context=contextvars.Context())
        _timers[public_id] = (when, handle)


def _fire(public_id: str) -> None:
    global fired
    with _lock:
        _timers.pop(public_id, None)
        fired += 1
    loop = asyncio.get_running_loop()
    # A context of its own: not the one of whatever request or socket armed it.
    task = loop.create_task(_settle(public_id), context=contextvars.Context())
    _tasks.add(task)  # kept until done (the loop keeps only a weak reference)
    task.add_done_callback(_tasks.discard)


async def _settle(public_id: str) -> None:
    try:
        await database_sync_to_async(settle)(public_id)
    except Exception:
        log.warning("could not settle match %s on time", public_id, exc_info=True)


def settle(public_id: str) -> None:
    """Settle the match through the write path (it sets the next timer, if any)."""
    from games import play
    from games.models import Match

    match = Match.objects.filter(public_id=public_id).first()
    if match is not None:
        play.settle_time(match)


def pending() -> list:
    """The matches with a moment to come: real-time, in play, a first move awaited."""
    from games.models import Match

    return list(
        Match.objects.filter(
            status=Match.Status.PLAYING, clock=Match.Clock.REALTIME, ply__lt=2
        ).only("public_id", "clock", "status", "ply", "turn_started_at")
    )


def recover() -> None:
    """On the serving loop, as the process starts: the timers of every match with a moment
    to come, from the database."""
    task = asyncio.get_running_loop().create_task(_recover(), context=contextvars.Context())
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _recover() -> None:
    try:
        for match in await database_sync_to_async(pending)():
            watch(match)
    except Exception:
        log.warning("could not read the matches awaiting a first move", exc_info=True)


def forget() -> None:
    """Cancel every timer of this process (tests)."""
    with _lock:
        for _, handle in _timers.values():
            handle.cancel()
        _timers.clear()
