"""The one write path: every change to a match goes through here.

Views, the computer player, tests and benchmarks all call these functions. Each
change runs in one transaction that:

1. guards the match row (``select_for_update`` on PostgreSQL; on SQLite the
   ``BEGIN IMMEDIATE`` transaction holds the write lock, taken in turn by this
   process's writers; a conditional update on the ply plus the unique
   (match, ply) constraint back both up);
2. checks the seat, the turn and the ply the player saw;
3. calls the rules;
4. writes the Move row and the new position;
5. schedules the broadcast with ``transaction.on_commit``: nothing is pushed
   for a change that rolls back.

A refusal raises a typed ``Refused`` (games/rights.py, which also tells the board what
to draw) and changes nothing; the views map each type to an HTTP status.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets as secrets_module
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TypeVar

from channels.db import database_sync_to_async
from django.db import DatabaseError, IntegrityError, connection, connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from bitsite import locks
from games import boards, clock, live, names, presence, rights, signals, timers
from games.models import Match, Move, hash_secret
from games.rights import (  # noqa: F401  (the write path's refusals, for its callers)
    GameOver,
    IllegalMove,
    NoSuchMatch,
    NotAPlayer,
    NotYourTurn,
    Refused,
    StaleBoard,
    TimeRanOut,
    Viewer,
)
from games.rules import GameOver as RulesGameOver
from games.rules import IllegalMove as RulesIllegalMove
from games.rules import get_game
from games.rules.computer import LEVELS, choose_move

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Actor:
    """Who is acting: the seats this browser (or the computer, or an account through the
    API) holds in the match.

    A browser is named by its session's secret (``token``), an account by its id
    (``user_id``): its seats are read from the match row the write path has locked, so a
    view need not read the match first."""

    seats: frozenset[int] = frozenset()
    computer: bool = False
    token: str | None = None
    # An account acting through the API: the seats it holds, by whatever secret.
    user_id: int | None = None

    def seats_in(self, match: Match) -> frozenset[int]:
        if self.user_id is not None:
            return frozenset(s for s in (1, 2) if match.seat_user_id(s) == self.user_id)
        if self.token is not None:
            return frozenset(match.seats_for([self.token]))
        return self.seats


def display_name(typed: str, user=None, *, rated: bool = False) -> str:
    """The name a seat goes by, the one rule for every seat written: on a rated match the
    account's user name, whatever was typed; else the name typed (cleaned), which may not
    pass for the user name of an account other than ``user``'s (games/names.py: case,
    spacing and look-alike letters aside), or NameTaken."""
    if rated and user is not None:
        return names.clean(user.get_username())
    name = names.clean(typed)
    if name and names.passes_for_an_account(name, user):
        raise rights.NameTaken(
            f"“{name}” reads as the user name of an account: choose another name"
            f"{'' if user is not None else ' (or sign in, if it is yours)'}."
        )
    return name


# ---- transactions ------------------------------------------------------------------
#
# SQLite takes one writer at a time. This process's writes run on one thread of their own,
# which keeps its connection (and SQLite's parsed schema and statements) from one write to
# the next: under ASGI every request runs in a new thread, and a connection opened for one
# move cost more than the move's own queries. Once a write commits, the writer hands its
# pushes to one pusher thread, in the order of the commits, and goes on to the next write
# while the pusher reads, draws and sends them; the request that asked waits for its pushes,
# then answers with its viewer's board. On PostgreSQL (a pool of connections, row locks)
# every write and its pushes run in the request's own thread.

_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bitsite-writer")
_pusher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bitsite-pusher")
_sqlite_writers = threading.RLock()  # a write that runs inline (see _write) queues here too
_current = threading.local()


class _Job:
    """The pushes a write schedules, prepared and sent once it commits."""

    def __init__(self):
        self.pushes: list[live.Push] = []
        self.changed: list[Match] = []  # for signals.match_changed, after the pushes
        self.open = True
        # A refusal to raise once the change has committed (a move that came after its
        # mover's time ran out: the loss on time is saved, the move is refused).
        self.refusal: Refused | None = None


def _write(change: Callable[[], Match]) -> Match:
    """Run ``change`` in one transaction, then push what it changed. Refusals propagate."""
    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        handed = getattr(_current, "handed", None)
        if handed is not None:
            # On the writer, for the event loop (``from_loop``): the pushes go to the pusher
            # like any write's, and the loop (not this thread) waits for them.
            result, job = _transact(change)
            handed.append(_pusher.submit(_on_pusher, job, live.server_loop()))
            return result
        if getattr(_current, "role", None) is not None:
            # Asked from the writer's or the pusher's own thread (an app's receiver of
            # signals.match_changed runs on the pusher): queued behind the thread that asks,
            # it would wait for itself, and every write of the process with it. It runs
            # here, inline: this thread's connection, the same write lock, its pushes sent
            # before the rest of the pushes this thread is delivering.
            return _run(change)
        # The pushes go to the event loop of the server that asked.
        result, delivered = _writer.submit(_on_writer, change, live.server_loop()).result()
        delivered.result()  # its pushes sent (and its refusal, if any, raised)
        return result
    return _run(change)  # PostgreSQL; or inside an outer transaction (tests): this thread


def _on_writer(change, loop):
    _current.role = "writer"
    try:
        with live.sending_to(loop):  # what a nested write pushes from within the transaction
            result, job = _transact(change)
    except DatabaseError:
        connection.close()  # the next write opens a fresh connection
        raise
    # Queued from here, the pushes leave in the order of the commits.
    return result, _pusher.submit(_on_pusher, job, loop)


async def from_loop(act: Callable[[], T]) -> T:
    """Run ``act`` (a function that calls the write path: games/actions.py) from the
    server's event loop, in one thread hop: on SQLite straight on the writer thread, whose
    pushes go to the pusher as every write's do; on PostgreSQL on a thread of the loop's
    pool (with a connection of its own: no queue behind one thread for every socket of the
    process). Returns once the pushes of what it changed were sent (their boards on
    ``match.pushed``); refusals propagate."""
    loop = asyncio.get_running_loop()
    if connections["default"].vendor != "sqlite":
        return await database_sync_to_async(_returning_connection(act), thread_sensitive=False)()
    result, handed = await asyncio.wrap_future(_writer.submit(_handed, act, loop))
    for delivered in handed:  # in the order of the commits (one refusal may be raised)
        await asyncio.wrap_future(delivered)
    return result


def _returning_connection(act: Callable[[], T]) -> Callable[[], T]:
    """``act``, giving its thread's connection back to the pool as it ends. A thread of the
    loop's pool lives as long as the loop: a connection it kept would be lost to the pool
    with it. ``database_sync_to_async`` closes it too, unless its cleanup is turned off, as
    Channels' test communicator does: each test's loop then took one connection with it,
    and a worker's pool ran dry twenty tests later."""

    def returning() -> T:
        try:
            return act()
        finally:
            connection.close()

    return returning


def _handed(act, loop):
    _current.role, _current.handed = "writer", []
    try:
        with live.sending_to(loop):
            return act(), _current.handed
    except DatabaseError:
        connection.close()  # the next write opens a fresh connection
        raise
    finally:
        _current.handed = None


def _on_pusher(job, loop):
    _current.role = "pusher"
    with live.sending_to(loop):
        _deliver(job)


def _run(change):
    result, job = _transact(change)
    _deliver(job)
    return result


def _transact(change):
    job, outer = _Job(), getattr(_current, "job", None)
    _current.job = job
    try:
        lock = _sqlite_writers if connection.vendor == "sqlite" else nullcontext()
        with lock, transaction.atomic():
            result = change()
    finally:
        job.open = False
        _current.job = outer
    return result, job


def _deliver(job: _Job) -> None:
    """After the commit: the pushes, then the apps' signals, then a refusal to raise."""
    for push in job.pushes:
        push.prepare()
        push.send()
        timers.watch(push.match)  # a first move now awaited: the server aborts it in time
    for match in job.changed:
        _send_changed(match)
    if job.refusal is not None:
        raise job.refusal


def _broadcast(
    match: Match,
    *,
    players_only: bool = False,
    by: Viewer | None = None,
    told: boards.DrawDeclined | None = None,
) -> None:
    """After commit, push this version of the match to its pages (``by``'s kind of viewer
    last). The boards drawn for the push stay on ``match.pushed`` for the answer to the
    request that made the change, and what it tells some viewers (``told``: a declined
    draw offer) on ``match.told``."""
    match.told = told
    push = live.Push(match, players_only=players_only, last=by.key if by else None, told=told)
    job = getattr(_current, "job", None)

    def committed():
        if job is not None and job.open:
            job.pushes.append(push)
        else:  # committed by an outer transaction, after its write returned
            push.prepare()
            push.send()
            timers.watch(match)

    transaction.on_commit(committed)
    _changed(match)


def _changed(match: Match) -> None:
    """After commit, tell the apps built on games that ``match`` changed (signals.py)."""
    job = getattr(_current, "job", None)

    def committed():
        if job is not None and job.open:
            job.changed.append(match)
        else:
            _send_changed(match)

    transaction.on_commit(committed)


def _send_changed(match: Match) -> None:
    # The change has committed: a receiver that fails is logged, and the change stands.
    for receiver, result in signals.match_changed.send_robust(sender=Match, match=match):
        if isinstance(result, Exception):
            log.error("match_changed receiver %r failed", receiver, exc_info=result)


def _ended(match: Match) -> None:
    """Inside the transaction that ends ``match`` (its final fields set on it): tell the
    apps built on games, whose writes commit or roll back with the ending."""
    signals.match_finished.send(sender=Match, match=match)


def write(change: Callable[[], Match]):
    """Run ``change`` as one write of the write path: one transaction (on SQLite, on the
    writer thread), whose pushes go out once it commits. For the apps built on games that
    combine the functions below into one step (the lobby: find a challenge and join it, or
    open one); refusals raised inside propagate and roll it all back."""
    return _write(change)


def lock_listings(game_slug: str) -> None:
    """Inside a write: wait for, then hold until commit, the right to list challenges of
    ``game_slug`` in the lobby (so "find an open challenge, else open one" is one step for
    two people pressing at once: bitsite/locks.py)."""
    locks.hold(f"lobby:{game_slug}")


def _locked(public_id: str) -> Match:
    try:
        return Match.objects.select_for_update().get(public_id=public_id)
    except Match.DoesNotExist:
        raise NoSuchMatch() from None


def _refuse(refusal: Refused | None) -> None:
    if refusal is not None:
        raise refusal


def _save(match: Match, changes: dict, **broadcast) -> Match:
    """Write ``changes`` (with a new version) to the locked match, and push it."""
    changes = {**changes, "version": match.version + 1}
    Match.objects.filter(pk=match.pk).update(**changes)
    for field, value in changes.items():
        setattr(match, field, value)
    if changes.get("status") == Match.Status.FINISHED:
        _ended(match)
    _broadcast(match, **broadcast)
    return match


def _finish(match: Match, ending: str, *, winner_seat: int | None, by: int | None, now) -> dict:
    """The fields of a match that ends, however it ends (the rules, a resignation, time,
    agreement, an abort, a claim, a cancellation): the one finishing step, written by
    ``_save`` (or with the move that ended it), which tells the apps (``_ended``)."""
    return {
        "status": Match.Status.FINISHED,
        "winner": match.player_of_seat(winner_seat) if winner_seat else None,
        "ending": ending,
        "ended_by": by,
        "finished_at": now,
        "draw_offer": None,
    }


def _seat_to_move(match: Match) -> int:
    return match.seat_of_player(match.current.to_move)


def _settled_on_time(match: Match, now) -> bool:
    """Inside a write: if the match is due to end by time, end it first (saved even if the
    write is then refused). True if it did.

    - A real-time match whose first move has not come in time (``clock.abort_due``) is
      aborted by the server, with no result.
    - If the side to move's clock has run out, it loses on time; before both players
      have moved, the match is aborted instead, with no result (a game in which a player
      has not moved counts for nothing, as on lichess)."""
    if match.status != Match.Status.PLAYING or not match.clock:
        return False
    flagged = clock.flagged_seat(match, _seat_to_move(match), now)
    if clock.abort_due(match, now) or (flagged is not None and match.ply < 2):
        _save(match, _finish(match, Match.Ending.ABORTED, winner_seat=None, by=None, now=now))
        _current.job.refusal = rights.TimeRanOut(
            "The game was aborted: a first move did not come in time."
        )
        return True
    if flagged is None:
        return False
    changes = _finish(match, Match.Ending.TIME, winner_seat=3 - flagged, by=None, now=now)
    if match.clock == Match.Clock.REALTIME:
        changes[f"seat{flagged}_ms"] = 0
    _save(match, changes)
    name = match.player_name(match.player_of_seat(flagged))
    _current.job.refusal = rights.TimeRanOut(f"Time ran out: {name} lost on time.")
    return True


# ---- creating and joining ------------------------------------------------------


def create_match(
    game_slug: str,
    *,
    token: str,
    options: dict | None = None,
    mode: str = Match.Mode.FRIEND,
    first: str = "me",
    level: str = "",
    name: str = "",
    opponent_name: str = "",
    time_control: dict | None = None,
    rng: random.Random | None = None,
    user=None,
    rated: bool = False,
    listed: bool = False,
    setup: list[str] | tuple[str, ...] = (),
) -> Match:
    """A new match, created by the browser holding ``token``; ValueError for bad options.

    ``setup``: the moves from the game's start to the position the match begins in (a
    practice from the analysis board): unrated and unlisted, and the game not over there.

    ``user``: the signed-in account of that browser (its seats are the account's).
    ``rated`` (a match between two accounts) and ``listed`` (an open challenge in the
    lobby) are for a match with a friend only.

    ``time_control``: ``{"clock": "realtime", "base": seconds, "increment": seconds}`` or
    ``{"clock": "correspondence", "days": n}`` (games/forms.py checks the bounds)."""
    game = get_game(game_slug)
    position = game.start(**(options or {}))
    options = game.options_of(position)
    setup = [str(text) for text in setup]
    if setup:
        if rated or listed:
            raise ValueError("A match set up from a position is neither rated nor listed.")
        canonical = []
        for text in setup:  # IllegalMove (a ValueError) says which does not play
            move = game.canonical(position, text)
            position = game.play(position, move)
            canonical.append(move)
        if position.over:
            raise ValueError(
                f"The game is over in that position: {game.describe_outcome(position)}"
            )
        setup = canonical
    if mode not in Match.Mode.values:
        raise ValueError(f"Unknown opponent {mode!r}.")
    if first not in Match.First.values:
        raise ValueError(f"Who moves first must be one of {', '.join(Match.First.values)}.")
    if mode == Match.Mode.COMPUTER and level not in LEVELS:
        raise ValueError(f"The computer's level must be one of {', '.join(LEVELS)}.")
    if rated and (mode != Match.Mode.FRIEND or user is None):
        raise ValueError("Only a match between two signed-in people can be rated.")
    if listed and mode != Match.Mode.FRIEND:
        raise ValueError("Only a match between people can be listed in the lobby.")
    rng = rng or random.SystemRandom()
    first_seat = {"me": 1, "opponent": 2}.get(first) or rng.choice((1, 2))
    now = timezone.now()
    seat_hash = hash_secret(token)
    match = Match(
        game=game.slug,
        options=options,
        setup=setup,
        position=game.to_json(position),
        mode=mode,
        first_seat=first_seat,
        seat1_secret=seat_hash,
        seat1_name=display_name(name, user, rated=rated),
        seat1_user=user,
        rated=rated,
        listed=listed,
        computer_level=level if mode == Match.Mode.COMPUTER else "",
        computer_seed=secrets_module.randbits(48),
    )
    control = time_control or {}
    if control.get("clock"):
        if mode == Match.Mode.COMPUTER:
            raise ValueError("A clock is for a match between people.")
        match.clock = control["clock"]
        match.clock_base = int(control.get("base", 0))
        match.clock_increment = int(control.get("increment", 0))
        match.clock_days = int(control.get("days", 0))
    if mode == Match.Mode.HOTSEAT:
        match.seat2_secret = seat_hash
        match.seat2_name = display_name(opponent_name, user)
        match.seat2_user = user
    if mode != Match.Mode.FRIEND:
        match.status = Match.Status.PLAYING
        match.started_at = now
        for field, value in clock.on_start(match, now).items():
            setattr(match, field, value)

    def change() -> Match:
        if listed:  # at most one open challenge of a game per browser: the new one replaces
            lock_listings(game.slug)
            for older in Match.objects.select_for_update().filter(
                game=game.slug, listed=True, status=Match.Status.WAITING, seat1_secret=seat_hash
            ):
                _save(
                    older, _finish(older, Match.Ending.CANCELLED, winner_seat=None, by=1, now=now)
                )
        match.save()
        _changed(match)
        transaction.on_commit(lambda: timers.watch(match))  # on one device, with a clock
        return match

    return _write(change)  # on SQLite, the writer thread's kept connection


@dataclass(frozen=True)
class Seat:
    """An account taking a seat of a match the server makes (a tournament's pairing): the
    account, and its secret (the one every device signed into it holds)."""

    user: object
    token: str


def pair_accounts(
    game_slug: str,
    *,
    first: Seat,
    second: Seat,
    options: dict | None = None,
    time_control: dict | None = None,
    rated: bool = False,
    event: str = "",
) -> Match:
    """A match between two accounts, made by the server and begun at once (``first``
    moves first): a friend's match whose seats are already taken, on the clock
    ``time_control`` (as ``create_match`` takes it). Inside a write of an app built on
    games (its pairing step), it joins that write's transaction, and its pushes go out
    once that commits."""
    if first.user.pk == second.user.pk:
        raise ValueError("A player cannot be paired with themselves.")
    game = get_game(game_slug)
    position = game.start(**(options or {}))
    now = timezone.now()
    match = Match(
        game=game.slug,
        options=game.options_of(position),
        position=game.to_json(position),
        mode=Match.Mode.FRIEND,
        first_seat=1,
        status=Match.Status.PLAYING,
        started_at=now,
        rated=rated,
        event=event,
        computer_seed=secrets_module.randbits(48),
    )
    for number, seat in ((1, first), (2, second)):
        setattr(match, f"seat{number}_secret", hash_secret(seat.token))
        setattr(match, f"seat{number}_user", seat.user)
        setattr(match, f"seat{number}_name", names.clean(seat.user.get_username()))
    control = time_control or {}
    if control.get("clock"):
        match.clock = control["clock"]
        match.clock_base = int(control.get("base", 0))
        match.clock_increment = int(control.get("increment", 0))
        match.clock_days = int(control.get("days", 0))
    for field, value in clock.on_start(match, now).items():
        setattr(match, field, value)

    def change() -> Match:
        match.save()
        _changed(match)
        transaction.on_commit(lambda: timers.watch(match))  # its first move is awaited
        return match

    return _write(change)


def join(public_id: str, *, token: str, name: str = "", user=None) -> Match:
    """Take seat 2 of a match waiting for its second player (for ``user``'s account, if
    the browser is signed in)."""
    seat_hash = hash_secret(token)
    user_id = user.pk if user is not None else None

    def change() -> Match:
        match = _locked(public_id)
        seats = rights.viewer_of(match, token).seats
        _refuse(rights.join_refusal(match, seats, user_id=user_id))
        named = display_name(name, user, rated=match.rated)
        now = timezone.now()
        updated = Match.objects.filter(pk=match.pk, seat2_secret="").update(
            seat2_secret=seat_hash,
            seat2_name=named,
            seat2_user_id=user_id,
            status=Match.Status.PLAYING,
            started_at=now,
            version=F("version") + 1,
            **clock.on_start(match, now),
        )
        if updated != 1:
            raise rights.SeatsTaken()
        match.refresh_from_db()
        _broadcast(match)
        return match

    return _write(change)


def withdraw_challenge(public_id: str, *, by: Actor) -> Match:
    """The creator withdraws a match still waiting for its second player (an open challenge
    of the lobby): it is cancelled. Unlike ``resign``, never touches a match that has
    started meanwhile (``rights.Started``)."""

    def change() -> Match:
        match = _locked(public_id)
        seats = by.seats_in(match)
        if 1 not in seats:
            raise NotAPlayer("Only the player who made this challenge can withdraw it.")
        if match.status != Match.Status.WAITING:
            raise rights.Started()
        now = timezone.now()
        return _save(match, _finish(match, Match.Ending.CANCELLED, winner_seat=None, by=1, now=now))

    return _write(change)


def expire_challenge(public_id: str, *, due: Callable[[Match], bool]) -> Match | None:
    """Close an open challenge of the lobby (listed, still waiting) that is due, as the lobby
    decides (``due(match)``, asked again here with the row locked, so it reads nothing but
    the row: what it knows of presence was read before the write): it is cancelled, so its
    pages say so and the lobby drops it. None when there is nothing to do (taken, withdrawn,
    closed already by another server process, or not due after all): safe to call from
    every process at once."""

    def change() -> Match | None:
        match = _locked(public_id)
        if not match.listed or match.status != Match.Status.WAITING or not due(match):
            return None
        now = timezone.now()
        return _save(
            match, _finish(match, Match.Ending.CANCELLED, winner_seat=None, by=None, now=now)
        )

    return _write(change)


@dataclass(frozen=True)
class Claimed:
    """What signing in took: how many seats became the account's, and the matches whose
    seat it left where it was (the account holds the other seat: ``claim_seats``)."""

    seats: int = 0
    left: tuple[Match, ...] = ()


def claim_seats(token: str, *, account_token: str, user) -> Claimed:
    """Signing in: the seats this browser holds by its anonymous secret ``token`` become
    ``user``'s, held from now on by the account's secret (on every device it signs in on).
    A seat that already belongs to an account is never taken over.

    One account never holds both seats of a friend's match: a seat of one whose other
    seat the account already holds (this browser joined the account's own match, or the
    account joined this browser's) is left as it is, held by the anonymous secret, which
    the browser gives up for the account's: nobody holds it any more, and the account's
    seat plays on (resign, or claim the game once that side has been away). Those matches
    are in ``Claimed.left``, for the page to say so. On one device the two seats are one
    player's: both are claimed."""
    old, new = hash_secret(token), hash_secret(account_token)
    if old == new:
        return Claimed()

    def change() -> Claimed:
        held = Match.objects.select_for_update().filter(
            Q(seat1_secret=old, seat1_user__isnull=True)
            | Q(seat2_secret=old, seat2_user__isnull=True)
        )
        claimed, left = 0, []
        for match in held.order_by("pk"):  # locked, and read as they are now
            seats = [
                seat
                for seat in (1, 2)
                if match.seat_secret_hash(seat) == old and match.seat_user_id(seat) is None
            ]
            if match.mode == Match.Mode.FRIEND and any(
                match.seat_user_id(3 - seat) == user.pk or match.seat_secret_hash(3 - seat) == new
                for seat in seats
            ):
                left.append(match)  # the account holds the other seat
                continue
            changes = {
                f"seat{seat}_{part}": value
                for seat in seats
                for part, value in (("secret", new), ("user", user))
            }
            Match.objects.filter(pk=match.pk).update(**changes, version=F("version") + 1)
            claimed += len(seats)
        return Claimed(claimed, tuple(left))

    return _write(change)


# ---- moves ---------------------------------------------------------------------


def submit_move(public_id: str, *, by: Actor, text: str, ply: int | None) -> Match:
    """Apply a move for the player to move, if ``by`` holds that seat and saw this ply."""

    def change() -> Match:
        match = _locked(public_id)
        now = timezone.now()
        if _settled_on_time(match, now):  # a move after the flag fell loses on time
            return match
        game = match.rules
        position = game.from_json(match.position)
        player = position.to_move
        seats = by.seats_in(match)
        refusal = rights.move_refusal(match, seats, to_move=player, computer=by.computer)
        if isinstance(refusal, (GameOver, rights.NotStarted)):
            raise refusal
        if ply is None or ply != match.ply:
            raise StaleBoard()
        _refuse(refusal)
        seat = match.seat_of_player(player)
        try:
            new = game.play(position, text)
        except RulesGameOver as error:
            raise GameOver(str(error)) from None
        except RulesIllegalMove as error:
            raise IllegalMove(str(error)) from None
        move_text = game.canonical(position, text)
        clock_changes, used = clock.on_move(match, seat, now)
        try:  # the unique (match, ply) constraint: a failed insert rolls the whole change back
            Move.objects.create(
                match=match,
                ply=match.ply + 1,
                seat=seat,
                player=player,
                text=move_text,
                time_ms=used,
            )
        except IntegrityError:
            raise StaleBoard() from None
        changes = {
            "position": game.to_json(new),
            "ply": match.ply + 1,
            "version": match.version + 1,
            **clock_changes,
        }
        told = None
        if match.draw_offer is not None and match.draw_offer != seat:
            changes["draw_offer"] = None  # a move by the offerer's opponent declines it
            if new.result is None:  # told to the offerer (a move that ends the game says it)
                told = boards.DrawDeclined(match.draw_offer, by_move=True)
        if new.result is not None:
            winner = new.result.winner
            changes.update(
                _finish(
                    match,
                    new.result.ending,
                    winner_seat=match.seat_of_player(winner) if winner else None,
                    by=None,
                    now=now,
                )
            )
        updated = Match.objects.filter(pk=match.pk, ply=match.ply).update(**changes)
        if updated != 1:  # only without a row lock: another move got in first
            raise StaleBoard()
        for field, value in changes.items():
            setattr(match, field, value)
        match.recorded = (match.ply, player, move_text)  # for the push's move list
        if new.result is not None:
            _ended(match)
        _broadcast(match, by=Viewer(seats), told=told)
        return match

    return _write(change)


def computer_move(public_id: str) -> Match | None:
    """Let the computer play if it is its turn. Thinks outside the transaction.

    Returns the match after the move, or None if there was nothing to do (not
    its turn, or the move was already made by an earlier request).
    """
    match = Match.objects.filter(public_id=public_id).first()
    if match is None or not match.computer_to_move:
        return None
    rng = random.Random(f"{match.computer_seed}:{match.ply}")
    move = choose_move(match.rules, match.current, match.computer_level, rng)
    try:
        return submit_move(
            public_id,
            by=Actor(frozenset({match.computer_seat}), computer=True),
            text=move,
            ply=match.ply,
        )
    except Refused:
        return None


# ---- resign and rematch ----------------------------------------------------------


def resign(public_id: str, *, by: Actor) -> Match:
    """The acting player resigns (on one device: the player to move); the other wins.

    Before anyone has joined, this cancels the match instead, with no winner; in a friend's
    match in which a player has not moved yet, it aborts it, with no result
    (``rights.resigning_aborts``).
    """

    def change() -> Match:
        match = _locked(public_id)
        if _settled_on_time(match, timezone.now()):
            return match
        _refuse(rights.resign_refusal(match, by.seats_in(match)))
        seats = rights.human_seats(match, by.seats_in(match))
        game = match.rules
        position = game.from_json(match.position)
        now = timezone.now()
        if match.status == Match.Status.WAITING:  # nobody joined: the match is cancelled
            ending = Match.Ending.CANCELLED
            return _save(match, _finish(match, ending, winner_seat=None, by=1, now=now))
        if len(seats) == 2:  # same device: the player to move resigns
            player = position.to_move
        else:
            player = match.player_of_seat(seats.pop())
        by_seat = match.seat_of_player(player)
        if rights.resigning_aborts(match):  # a player has not moved: no result
            ending = Match.Ending.ABORTED
            return _save(match, _finish(match, ending, winner_seat=None, by=by_seat, now=now))
        new = game.resign(position, player)
        changes = _finish(
            match, Match.Ending.RESIGNED, winner_seat=3 - by_seat, by=by_seat, now=now
        )
        return _save(match, {"position": game.to_json(new), **changes})

    return _write(change)


def rematch(public_id: str, *, by: Actor) -> Match:
    """A new match with the same players and options and the first move swapped.

    Asking twice (or both players asking) gives the same rematch.
    """

    def change() -> Match:
        match = _locked(public_id)
        _refuse(rights.rematch_refusal(match, by.seats_in(match)))
        if match.rematch_id is not None:
            return match.rematch
        game = match.rules
        new = Match.objects.create(
            game=match.game,
            options=match.options,
            setup=match.setup,
            position=game.to_json(match.initial_position),
            mode=match.mode,
            first_seat=3 - match.first_seat,
            seat1_secret=match.seat1_secret,
            seat2_secret=match.seat2_secret,
            seat1_name=match.seat1_name,
            seat2_name=match.seat2_name,
            seat1_user_id=match.seat1_user_id,
            seat2_user_id=match.seat2_user_id,
            rated=match.rated,
            computer_level=match.computer_level,
            computer_seed=secrets_module.randbits(48),
            hints=match.hints,
            clock=match.clock,
            clock_base=match.clock_base,
            clock_increment=match.clock_increment,
            clock_days=match.clock_days,
            status=Match.Status.PLAYING,
            started_at=timezone.now(),
        )
        started = clock.on_start(new, new.started_at)
        if started:
            Match.objects.filter(pk=new.pk).update(**started)
            for field, value in started.items():
                setattr(new, field, value)
            transaction.on_commit(lambda: timers.watch(new))
        Match.objects.filter(pk=match.pk).update(rematch=new, version=match.version + 1)
        match.rematch = new
        match.version += 1
        _broadcast(match)
        _changed(new)
        return new

    return _write(change)


# ---- hints -----------------------------------------------------------------------


def toggle_hints(public_id: str, *, by: Actor) -> Match:
    """Show or hide the winning moves for the player of a game on one device or against
    the computer. A change of the board like any other: every page of that player gets it."""

    def change() -> Match:
        match = _locked(public_id)
        _refuse(rights.hints_refusal(match, by.seats_in(match)))
        changes = {"hints": not match.hints, "version": match.version + 1}
        Match.objects.filter(pk=match.pk).update(**changes)
        for field, value in changes.items():
            setattr(match, field, value)
        _broadcast(match, players_only=True)
        return match

    return _write(change)


# ---- time, draws, aborts and claims ------------------------------------------------


def settle_time(match: Match) -> Match:
    """For a read: if ``match``'s clock has run out, or its first move has not come in
    time, finish it first (a write; the match as it is then). Cheap when nothing is due:
    no lock, no write; a first move still awaited gets this process's timer
    (games/timers.py), so the server aborts it in time even if nobody reads it again."""
    now = timezone.now()
    if (
        match.status != Match.Status.PLAYING
        or not match.clock
        or (
            clock.flagged_seat(match, _seat_to_move(match), now) is None
            and not clock.abort_due(match, now)
        )
    ):
        timers.watch(match)
        return match

    def change() -> Match:
        locked = _locked(match.public_id)
        _settled_on_time(locked, timezone.now())
        return locked

    try:
        return _write(change)
    except rights.TimeRanOut:
        return Match.objects.get(pk=match.pk)


def offer_draw(public_id: str, *, by: Actor) -> Match:
    """Offer a draw; if the opponent's offer stands, that accepts it."""

    def change() -> Match:
        match = _locked(public_id)
        now = timezone.now()
        if _settled_on_time(match, now):
            return match
        seats = by.seats_in(match)
        _refuse(rights.draw_refusal(match, seats))
        seat = min(rights.human_seats(match, seats))
        if match.draw_offer is not None:  # the opponent offered first: agreed
            ending = Match.Ending.AGREEMENT
            return _save(match, _finish(match, ending, winner_seat=None, by=seat, now=now))
        return _save(match, {"draw_offer": seat})

    return _write(change)


def answer_draw(public_id: str, *, by: Actor, accept: bool) -> Match:
    """Accept (a draw by agreement) or decline the opponent's standing offer."""

    def change() -> Match:
        match = _locked(public_id)
        now = timezone.now()
        if _settled_on_time(match, now):
            return match
        seats = by.seats_in(match)
        _refuse(rights.answer_refusal(match, seats))
        seat = min(rights.human_seats(match, seats))
        if accept:
            ending = Match.Ending.AGREEMENT
            return _save(match, _finish(match, ending, winner_seat=None, by=seat, now=now))
        declined = boards.DrawDeclined(match.draw_offer)  # told to the offerer
        return _save(match, {"draw_offer": None}, told=declined)

    return _write(change)


def withdraw_draw(public_id: str, *, by: Actor) -> Match:
    def change() -> Match:
        match = _locked(public_id)
        if _settled_on_time(match, timezone.now()):
            return match
        _refuse(rights.withdraw_refusal(match, by.seats_in(match)))
        return _save(match, {"draw_offer": None})

    return _write(change)


def computer_answers_draw(public_id: str) -> Match | None:
    """The computer answers a draw offer made to it: it accepts exactly when the exact
    analysis says that neither side can force a win from here. Thinks outside the write."""
    match = Match.objects.filter(public_id=public_id).first()
    if (
        match is None
        or match.computer_seat is None
        or match.status != Match.Status.PLAYING
        or match.draw_offer is None
    ):
        return None
    accept = match.rules.analyse(match.current).winner is None
    version = match.version
    computer = Actor(frozenset({match.computer_seat}), computer=True)

    def change() -> Match:
        locked = _locked(public_id)
        if locked.version != version or locked.draw_offer is None:
            return locked  # something happened meanwhile: nothing to answer
        seat = computer.seats_in(locked)
        if accept:
            ending = Match.Ending.AGREEMENT
            changes = _finish(locked, ending, winner_seat=None, by=min(seat), now=timezone.now())
            return _save(locked, changes)
        declined = boards.DrawDeclined(locked.draw_offer)  # told to the offerer
        return _save(locked, {"draw_offer": None}, told=declined)

    return _write(change)


def abort(public_id: str, *, by: Actor) -> Match:
    """End a real-time match with no result, when a first move has not come in 30 s."""

    def change() -> Match:
        match = _locked(public_id)
        now = timezone.now()
        if _settled_on_time(match, now):
            return match
        seats = by.seats_in(match)
        _refuse(rights.abort_refusal(match, seats, now))
        by_seat = min(rights.human_seats(match, seats))
        ending = Match.Ending.ABORTED
        return _save(match, _finish(match, ending, winner_seat=None, by=by_seat, now=now))

    return _write(change)


def claim(public_id: str, *, by: Actor, win: bool) -> Match:
    """In a friend's match without a clock whose opponent has had no page open for
    ABANDON_AFTER seconds: claim the win, or call it a draw."""
    from django.conf import settings

    # Who has a page open is read before the write: never a Redis round trip while the
    # write lock is held.
    seen = presence.seats_seen(public_id)

    def change() -> Match:
        match = _locked(public_id)
        now = timezone.now()
        seats = by.seats_in(match)
        humans = rights.human_seats(match, seats)
        gone_for = None
        if len(humans) == 1:
            since = match.started_at.timestamp() if match.started_at else None
            gone_for = seen.away_for(3 - min(humans), since)
        _refuse(rights.claim_refusal(match, seats, gone_for, settings.ABANDON_AFTER))
        seat = min(humans)
        ending = Match.Ending.ABANDONED
        winner = seat if win else None
        return _save(match, _finish(match, ending, winner_seat=winner, by=seat, now=now))

    return _write(change)
