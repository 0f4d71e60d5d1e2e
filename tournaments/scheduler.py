"""The tournaments' clock: scheduled events made, events started, players paired on time.

Every daphne process runs one scheduler thread (started by bitsite/asgi.py as daphne
starts serving, like the games' own timers; ``manage.py tournaments`` runs the same loop
in a process of its own, for a deployment that prefers one). It does two things:

- **Soon** (``soon``): after a change of an event commits in this process (a game of an
  arena ended: its players wait), the thread asks the write path to advance that event
  within TOURNAMENT_GATHER seconds (gathering the players of the games that end meanwhile
  into one pairing). Any process may: ``director.advance`` locks the event's row, so two
  processes never pair a player twice; whoever comes second finds nothing to do.
- **Tick**, every TOURNAMENT_TICK seconds, only in the process that holds the lease (a
  row of ``Lease`` in the database, taken when it has expired, renewed by its holder:
  one process at a time across every server, on SQLite and PostgreSQL alike, with no
  other service): make the scheduled events of the coming hour (settings
  TOURNAMENT_SCHEDULE), and advance every event that may have something due (to start,
  a waiting pair, a Swiss round over, an arena's time up). If the holder dies, another
  process takes the lease once it expires (TOURNAMENT_LEASE seconds). After a restart
  the first tick resumes every event from the database: nothing lives only here.
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, close_old_connections
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from games import clock, play
from games.models import Match
from games.rules import GAMES
from tournaments import director
from tournaments.models import Lease, Pairing, Tournament

log = logging.getLogger(__name__)

LEASE_NAME = "tournaments"
HOLDER = f"{socket.gethostname()}:{os.getpid()}:{id(object())}"


# ---- the lease --------------------------------------------------------------------------


def take_lease(holder: str = HOLDER, now=None) -> bool:
    """Hold (or keep holding) the scheduler's lease: True if ``holder`` has it now."""
    now = now or timezone.now()
    until = now + timedelta(seconds=settings.TOURNAMENT_LEASE)
    held = Lease.objects.filter(name=LEASE_NAME).values_list("holder", "expires_at").first()
    if held is not None:
        holder_now, expires_at = held
        if holder_now != holder and expires_at > now:
            return False  # another process holds it: nothing written
        if holder_now == holder and (expires_at - now).total_seconds() > (
            settings.TOURNAMENT_LEASE / 2
        ):
            return True  # held, and far from expiring: renewed later

    def change() -> bool:
        lease = Lease.objects.select_for_update().filter(name=LEASE_NAME).first()
        if lease is None:
            try:
                Lease.objects.create(name=LEASE_NAME, holder=holder, expires_at=until)
            except IntegrityError:  # another process made it first
                return False
            return True
        if lease.holder != holder and lease.expires_at > now:
            return False
        Lease.objects.filter(name=LEASE_NAME).update(holder=holder, expires_at=until)
        return True

    try:
        return play.write(change)
    except IntegrityError:
        return False


# ---- the schedule -------------------------------------------------------------------------


def scheduled_slots(now) -> list[dict]:
    """The scheduled events of the hour to come (TOURNAMENT_SCHEDULE): "hourly", an arena
    of each game at the top of every hour; "" (or "off"), none."""
    if settings.TOURNAMENT_SCHEDULE != "hourly":
        return []
    start = (now + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
    slots = []
    for hour in (start - timedelta(hours=1), start):
        if hour + timedelta(minutes=settings.TOURNAMENT_HOURLY_MINUTES) <= now:
            continue  # already over
        for game in GAMES:
            slots.append(
                {
                    "schedule_key": f"hourly:{game.slug}:{hour:%Y-%m-%dT%H}",
                    "name": f"Hourly {game.title} arena",
                    "kind": Tournament.Kind.ARENA,
                    "game": game.slug,
                    "starts_at": hour,
                    "minutes": settings.TOURNAMENT_HOURLY_MINUTES,
                    "base": 180,
                    "increment": 2,
                }
            )
    return slots


def make_scheduled(now=None) -> int:
    now = now or timezone.now()
    made = 0
    for slot in scheduled_slots(now):
        if Tournament.objects.filter(schedule_key=slot["schedule_key"]).exists():
            continue
        if slot["starts_at"] < now - timedelta(minutes=5):
            continue  # missed (the server was down): not made late
        try:
            director.create(**slot)
        except IntegrityError:
            continue  # made meanwhile (by a process that held the lease before)
        made += 1
    return made


def due(now=None) -> list[str]:
    """The events that may have something to do now: read only, cheaply, so that a quiet
    site costs a query a tick, not a write."""
    now = now or timezone.now()
    unfinished = Pairing.objects.filter(
        tournament=OuterRef("pk"), round=OuterRef("round"), scored=False, match__isnull=False
    )
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    arenas = running.filter(kind=Tournament.Kind.ARENA).annotate(
        waiting=Count(
            "entries",
            filter=Q(
                entries__active=True,
                entries__playing__isnull=True,
                entries__waiting_since__isnull=False,
            ),
        )
    )
    ids = list(
        Tournament.objects.filter(
            status=Tournament.Status.UPCOMING, starts_at__lte=now
        ).values_list("public_id", flat=True)
    )
    for t in arenas.only("public_id", "starts_at", "minutes"):
        if t.waiting >= 2 or now >= t.ends_at:
            ids.append(t.public_id)
    ids += list(
        running.filter(kind=Tournament.Kind.SWISS)
        .filter(~Exists(unfinished))
        .values_list("public_id", flat=True)
    )
    return ids


def settle_overdue(now=None) -> int:
    """The games of running events whose real-time clock ran out (or whose first move
    never came) while nobody looks at them: finished through the write path, as a page
    would (``play.settle_time``), so that the event is scored and goes on. Without this a
    game both of whose players left would stay in play for ever: a Swiss round that
    never ends, an arena that never finishes. Cheap when nothing is due: one query of a
    few columns, each game's time read here; only the games out of time are read whole."""
    now = now or timezone.now()
    playing = Match.objects.filter(
        status=Match.Status.PLAYING,
        clock=Match.Clock.REALTIME,
        turn_started_at__isnull=False,
        tournament_pairing__tournament__status=Tournament.Status.RUNNING,
    ).values_list("pk", "ply", "turn_started_at", "seat1_ms", "seat2_ms")
    first_move_due = 2 * clock.abort_after()  # the server aborts it (games/timers.py)
    out_of_time = []
    for pk, ply, began, seat1_ms, seat2_ms in playing:
        spent = now - began
        if ply < 2 and spent >= first_move_due:
            out_of_time.append(pk)
        elif ply >= 2 and spent.total_seconds() * 1000 >= min(seat1_ms, seat2_ms):
            out_of_time.append(pk)  # perhaps the side to move's: settle_time decides
    settled = 0
    for match in Match.objects.filter(pk__in=out_of_time):
        try:
            settled += play.settle_time(match).status == Match.Status.FINISHED
        except Exception:
            log.exception("settling tournament game %s on time failed", match.public_id)
    return settled


def tick(now=None) -> list[str]:
    """One tick of the lease holder: the schedule, the games whose time is up, then every
    event with something due. Returns the events it advanced."""
    make_scheduled(now)
    settle_overdue()
    advanced = []
    for public_id in due(now):
        try:
            if director.advance(public_id):
                advanced.append(public_id)
        except Exception:
            log.exception("advancing tournament %s failed", public_id)
    return advanced


# ---- the thread ---------------------------------------------------------------------------


# For this long after a process's scheduler starts, who has a page open is not known yet:
# the pages of a server that restarted come back on their own time (their reconnection
# backs off to 8 s: static/site/site.js), and a process with the in-memory presence store
# starts with none. Meanwhile an arena's waiting players are paired, never paused for
# being away (director._present); one who is really gone is paused when their game is
# aborted for want of a first move.
SETTLING = 15.0


class Scheduler:
    began: float | None = None  # when this process's scheduler began (monotonic)

    def __init__(self):
        self.wake = threading.Event()
        self.lock = threading.Lock()
        self.nudged: set[str] = set()
        self.thread: threading.Thread | None = None
        self.stopping = False
        self.ticks = 0

    def soon(self, public_id: str) -> None:
        """From any thread: advance the event within TOURNAMENT_GATHER seconds."""
        if self.thread is None:
            return  # no scheduler in this process (a test calls director.advance itself)
        with self.lock:
            self.nudged.add(public_id)
        self.wake.set()

    def start(self) -> None:
        if self.thread is not None and self.thread.is_alive():
            return
        self.stopping = False
        self.thread = threading.Thread(target=self.run, name="bitsite-tournaments", daemon=True)
        self.thread.start()
        atexit.register(self.stop)  # the process is ending: no new tick

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()

    def settling(self) -> bool:
        """Whether this process began scheduling too recently to know who is here."""
        return self.began is not None and time.monotonic() - self.began < SETTLING

    def run(self) -> None:
        if self.began is None:
            self.began = time.monotonic()
        next_tick = 0.0
        while not self.stopping:
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + settings.TOURNAMENT_TICK
                self._safely(self._tick)
            self.wake.wait(timeout=max(0.0, next_tick - time.monotonic()))
            if self.wake.is_set():
                self.wake.clear()
                time.sleep(settings.TOURNAMENT_GATHER)  # the games ending meanwhile too
                with self.lock:
                    nudged, self.nudged = self.nudged, set()
                for public_id in nudged:
                    self._safely(director.advance, public_id)

    def _tick(self) -> None:
        if take_lease():
            tick()
        self.ticks += 1

    def _safely(self, fn, *args) -> None:
        try:
            fn(*args)
        except RuntimeError as error:
            if "after shutdown" not in str(error):  # the writer's pool: the process ends
                log.exception("the tournaments' scheduler failed; it goes on")
            else:
                self.stopping = True
        except Exception:
            log.exception("the tournaments' scheduler failed; it goes on")
        finally:
            close_old_connections()


scheduler = Scheduler()


def soon(public_id: str) -> None:
    scheduler.soon(public_id)


def start() -> None:
    """As daphne starts serving (bitsite/asgi.py), unless TOURNAMENT_SCHEDULER is off."""
    if settings.TOURNAMENT_SCHEDULER:
        scheduler.start()
