"""The clocks of a match: the server's own, never a page's.

Two time controls, chosen when a match is created:

- **Real time**: each player has ``base`` seconds, and gets ``increment`` seconds back
  after each move. The server stamps when each turn begins (``turn_started_at``) and, on a
  move, charges the mover the time since. As on lichess, a player's clock starts with their
  second move: the first moves are free, but a match whose player makes no first move within
  ``abort_after()`` (``BITSITE_ABORT_SECONDS``) may be aborted by either player, and at twice
  that the server aborts it itself, with no result (games/play.py, games/timers.py).
- **Correspondence**: each move must be made within ``days`` days of its turn beginning.

A clock that has run out is *flagged*: the side to move has lost on time (before both
players have moved: the match is aborted, with no result). Nothing runs in the background
to notice it: every request that reads or writes the match finishes it first
(games/play.py ``settle_time``), a page whose clock reaches zero asks for its board again,
and ``manage.py finish_overdue`` finishes the correspondence games nobody looks at. The one
moment the server acts on by itself is a first move that has not come (``aborted_at``):
games/timers.py.

No time a page reports is trusted, and there is no allowance for lag: the time between the
server's stamp and a move arriving is the mover's.

These functions take ``now`` (and the seat to move) as arguments, so that tests can give
them any clock they like.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

# Real time: (base minutes, increment seconds) presets, and the bounds of a custom choice.
PRESETS = ((1, 1), (3, 2), (5, 5), (10, 0))
BASE_MINUTES = (1, 180)
INCREMENT_SECONDS = (0, 60)
# Correspondence: days a move.
DAYS = (1, 3, 7)
LOW_TIME_MS = 20_000  # a real-time clock shows a warning under this


def _ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)


def running(match) -> bool:
    """Whether the side to move's clock is running now."""
    if match.status != "playing" or match.turn_started_at is None:
        return False
    if match.clock == "realtime":
        return match.ply >= 2  # each player's first move is free
    return match.clock == "correspondence"


def stored_ms(match, seat: int) -> int:
    return match.seat1_ms if seat == 1 else match.seat2_ms


def time_left_ms(match, seat: int, to_move_seat: int, now: datetime) -> int:
    """A real-time seat's time left now (its stored time, less the running turn's): the
    base time while the clocks have not started (a match waiting for its second player)."""
    if match.turn_started_at is None:
        return match.clock_base * 1000
    left = stored_ms(match, seat)
    if seat == to_move_seat and running(match):
        left -= _ms(now - match.turn_started_at)
    return left


def deadline(match) -> datetime | None:
    """When the side to move must have moved, in a correspondence game."""
    if match.clock != "correspondence" or match.turn_started_at is None:
        return None
    return match.turn_started_at + timedelta(days=match.clock_days)


def flagged_seat(match, to_move_seat: int, now: datetime) -> int | None:
    """The seat whose time has run out (the side to move), if any."""
    if not running(match):
        return None
    if match.clock == "realtime":
        return to_move_seat if time_left_ms(match, to_move_seat, to_move_seat, now) <= 0 else None
    return to_move_seat if now >= deadline(match) else None


def on_start(match, now: datetime) -> dict:
    """The fields that start a match's clocks (when it begins: created, joined)."""
    if not match.clock:
        return {}
    changes = {"turn_started_at": now}
    if match.clock == "realtime":
        changes.update(seat1_ms=match.clock_base * 1000, seat2_ms=match.clock_base * 1000)
    return changes


def on_move(match, mover_seat: int, now: datetime) -> tuple[dict, int | None]:
    """The clock's fields after ``mover_seat`` moves at ``now`` (not flagged), and the time
    the move took."""
    if match.turn_started_at is None:
        return {}, None
    used = max(0, _ms(now - match.turn_started_at))
    changes: dict = {"turn_started_at": now}
    if match.clock == "realtime" and running(match):
        left = stored_ms(match, mover_seat) - used + match.clock_increment * 1000
        changes[f"seat{mover_seat}_ms"] = left
    return changes, used


def abort_after() -> timedelta:
    """How long a first move may be awaited before a player may abort (the setting)."""
    return timedelta(seconds=settings.ABORT_AFTER)


def awaiting_first_move(match) -> bool:
    """A real-time match in play whose player to move has not made a first move yet."""
    return (
        match.clock == "realtime"
        and match.status == "playing"
        and match.ply < 2
        and match.turn_started_at is not None
    )


DAY_MS = 86_400_000
HOUR_MS = 3_600_000


def long_text(ms: int) -> str:
    """A correspondence clock's time left in words: "2 days 4 h", "5 h 12 min", "3 min",
    "40 s" (rounded down; site.js counts down with the same words)."""
    days, rest = divmod(max(0, ms), DAY_MS)
    hours, rest = divmod(rest, HOUR_MS)
    minutes, rest = divmod(rest, 60_000)
    if days:
        return f"{days} day{'s' if days != 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min" if minutes else f"{rest // 1000} s"


def abort_opens_at(match) -> datetime | None:
    """When a player may abort the match (its first move awaited for ``abort_after()``)."""
    return match.turn_started_at + abort_after() if awaiting_first_move(match) else None


def aborted_at(match) -> datetime | None:
    """When the server aborts the match itself: a first move awaited for twice as long."""
    return match.turn_started_at + 2 * abort_after() if awaiting_first_move(match) else None


def abortable(match, now: datetime) -> bool:
    """A real-time match in which a player has not made a first move for ``abort_after()``."""
    opens = abort_opens_at(match)
    return opens is not None and now >= opens


def abort_due(match, now: datetime) -> bool:
    """The server aborts this match now: its first move has not come in time."""
    due = aborted_at(match)
    return due is not None and now >= due


@dataclass(frozen=True)
class Face:
    """One seat's clock as a board shows it."""

    seat: int
    ms: int | None  # time left (never below zero)
    runs: bool  # counting down now
    low: bool  # under LOW_TIME_MS (real time only)
    long: bool = False  # correspondence: days and hours

    @property
    def text(self) -> str:
        if self.ms is None:
            return ""
        if self.long:
            return long_text(self.ms)
        seconds = self.ms / 1000
        if seconds < 10:  # tenths, rounded down as the page counts
            return f"0:0{int(seconds)}.{self.ms // 100 % 10}"
        minutes, rest = divmod(int(seconds), 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def faces(match, to_move_seat: int, now: datetime) -> list[Face]:
    """Both seats' clocks as they stand at ``now``: real time's (the base time before the
    match starts), or a correspondence game's time left to move until it ends (the side
    not to move has its whole days)."""
    out = []
    if match.clock == "realtime":
        for seat in (1, 2):
            ms = max(0, time_left_ms(match, seat, to_move_seat, now))
            runs = seat == to_move_seat and running(match)
            out.append(Face(seat, ms, runs, ms < LOW_TIME_MS))
    elif match.clock == "correspondence" and match.status != "finished":
        due = deadline(match)
        for seat in (1, 2):
            runs = seat == to_move_seat and running(match)
            ms = max(0, _ms(due - now)) if runs else match.clock_days * DAY_MS
            out.append(Face(seat, ms, runs, False, long=True))
    return out


def describe(match) -> str:
    """The time control in a few words: "3+2", "3 days a move", ""."""
    if match.clock == "realtime":
        return f"{match.clock_base // 60}+{match.clock_increment}"
    if match.clock == "correspondence":
        return f"{match.clock_days} day{'s' if match.clock_days != 1 else ''} a move"
    return ""
