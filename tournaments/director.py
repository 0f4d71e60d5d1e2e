"""The tournaments' write path: every change to an event, with what it changes locked.

Every function here that writes runs as one write of games' write path
(``games.play.write``: one transaction; on SQLite, on the writer thread, one write at a
time) and locks what it changes, so that two server processes never pair one player
twice, score one game twice or start one round twice: whoever comes second waits, then
reads what the first wrote. Games are made through games' own write path
(``games.play.pair_accounts``) inside that transaction, so a pairing and its matches
commit together or not at all, and a restart can lose neither.

The locks (on PostgreSQL; SQLite has one writer), always taken in this order, so that no
two writes wait for each other:

1. ``advance``'s own lock of the event (``_advancing``: a transaction-scoped advisory
   lock), one advance of an event at a time: its start, pairings, rounds and end;
2. the entries a write changes (``select_for_update``, in the order of their keys);
3. the event's row, which every change bumps (its ``version``).

In an arena every write takes them in that order, and takes the event's row last, for the
version: a pairing creates its games while game ends, joins and withdrawals go on (with
the row taken first, every game's end of a thousand-player arena queued behind each
pairing's dozens of statements: benchmarks/README.md, "Arena repair"). A Swiss event's
writes take the event's row first, then its entries (a Swiss event's game end and its
joins and withdrawals rank every entry, with the row held; its rounds are paired when no
game is in play).

- ``create``, ``join``, ``withdraw``: what players (and staff, and the scheduler) do.
- ``advance``: whatever is due for one event now: start it, pair the arena's waiting
  players (pausing those who are not there), pair the next Swiss round once every game of
  the round has ended, stop pairing when an arena's time is up, and finish the event
  once its last games are over. Idempotent: any process may call it at any time (after a
  game of the event ends, on the scheduler's tick, after a restart); it does only what
  is due.
- ``on_match_finished``: the receiver of ``games.signals.match_finished``, inside the
  transaction that ends a game of an event: the game's result scored on both entries
  (the pure cores: tournaments/arena.py, tournaments/swiss.py), with the same lock.

After each change commits, ``tournaments.live`` draws the standings once and pushes them
to every open page of the event (``changed``), and the scheduler is asked to look at the
event soon (a player who finished is paired again within a few seconds). After a start
commits, ``signals.tournament_started`` tells the apps built on tournaments (people
notifies the entrants).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from bitsite import locks
from games import play, presence
from games.models import Match
from games.play import Seat
from games.rules import get_game
from tournaments import arena, signals, swiss
from tournaments.models import SCORE_SCALE, Entry, Pairing, Tournament

log = logging.getLogger(__name__)

EVENT_PREFIX = "tournament:"
# An aborted game's loser (Swiss), or the player paused (arena): whoever did not make a
# first move.
LETTER = {arena.WIN: "W", arena.DRAW: "D", arena.LOSS: "L"}
RESULT = {v: k for k, v in LETTER.items()}


class Refused(Exception):
    """Something a player asked of an event that it cannot do now; nothing changed."""

    status = 409

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class NoSuchTournament(Refused):
    status = 404


class TooMany(Refused):
    status = 429


@dataclass(frozen=True)
class Limits:
    """What a player may create (staff and the scheduler are not limited)."""

    upcoming: int = 2  # events of theirs not started yet
    per_day: int = 5


LIMITS = Limits()


def event_label(tournament: Tournament) -> str:
    return EVENT_PREFIX + tournament.public_id


# ---- what changed: told after commit ---------------------------------------------------


def _changed(tournament: Tournament, *, look_again: bool = True, left=()) -> None:
    """After commit: the standings pushed (with the panels changed after the version this
    write began from, and those of the players in ``left``, whose entry went), and the
    event looked at again soon."""
    public_id = tournament.public_id
    since = getattr(tournament, "locked_version", tournament.version)

    def committed():
        from tournaments import live, scheduler

        live.changed(public_id, since, tuple(left))
        if look_again:
            scheduler.soon(public_id)

    transaction.on_commit(committed)


def _paired(tournament: Tournament, entries: list[Entry]) -> None:
    """After commit: the paired players' own panels ("Go to your game"), drawn from the
    rows in hand and pushed at once, each to its player's own group, ahead of the
    standings' batched draw (which draws them again: a page forwards only the newer). A
    player who has just finished a game waits for this one panel; behind a busy event's
    window and its standings it came seconds late."""
    if not entries:
        return

    def committed():
        from tournaments import live

        live.paired(tournament, entries)

    transaction.on_commit(committed)


def _bump(tournament: Tournament, **changes) -> None:
    changes["version"] = F("version") + 1
    Tournament.objects.filter(pk=tournament.pk).update(**changes)
    for field, value in changes.items():
        if field != "version":
            setattr(tournament, field, value)
    tournament.version += 1


def _finish(tournament: Tournament, now, **changes) -> None:
    """The event is over: the final ranks, and every player's panel changes (where they
    finished)."""
    _rank(tournament)
    Entry.objects.filter(tournament=tournament).update(panel_version=_panel(tournament))
    _bump_last(tournament, status=Tournament.Status.FINISHED, ended_at=now, **changes)


def _locked(public_id: str) -> Tournament:
    try:
        return _holding(Tournament.objects.select_for_update().get(public_id=public_id))
    except Tournament.DoesNotExist:
        raise NoSuchTournament("There is no such tournament.") from None


def _read(public_id: str) -> Tournament:
    """The event as it is now, its row not locked (the lock order: the module's docstring)."""
    try:
        return _holding(Tournament.objects.get(public_id=public_id))
    except Tournament.DoesNotExist:
        raise NoSuchTournament("There is no such tournament.") from None


def _key(public_id: str) -> tuple[int, str]:
    """The event's primary key and kind, what a write needs to know before it locks."""
    found = Tournament.objects.filter(public_id=public_id).values_list("pk", "kind").first()
    if found is None:
        raise NoSuchTournament("There is no such tournament.")
    return found


def _with_entry(public_id: str, user) -> tuple[Tournament, Entry | None]:
    """The event and ``user``'s entry, both locked in the event's order: an arena's entry
    first, a Swiss event's row first."""
    pk, kind = _key(public_id)
    if kind == Tournament.Kind.ARENA:
        entry = Entry.objects.select_for_update().filter(tournament_id=pk, user=user).first()
        return _locked(public_id), entry
    tournament = _locked(public_id)
    return tournament, Entry.objects.filter(tournament=tournament, user=user).first()


ADVANCING = 0x626974  # the first key of the advisory locks of ``_advancing``


def _advancing(tournament_pk: int) -> None:
    """Inside a write: wait for, then hold until it ends, the right to advance the event
    (one advance of an event at a time, across every process). PostgreSQL's
    transaction-scoped advisory lock; on SQLite, whose writes are one at a time, nothing."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [ADVANCING, tournament_pk])


def _bump_last(tournament: Tournament, **changes) -> None:
    """An arena's write bumps the event's version last, its row locked here (then held to
    the commit, a statement or two away): ``tournament.version`` is the version it
    committed (what a pairing's panels are pushed at)."""
    version = Tournament.objects.select_for_update().values_list("version", flat=True)
    tournament.version = version.get(pk=tournament.pk)
    _bump(tournament, **changes)


def _holding(tournament: Tournament) -> Tournament:
    """The event as this write read it (its row locked, or an arena's not yet): the
    version this write began from, which every panel it changes is drawn after."""
    tournament.locked_version = tournament.version
    return tournament


def _panel(tournament: Tournament) -> int:
    """The ``panel_version`` of a player whose panel this write changes: after the version
    it began from (what every draw of this change draws from)."""
    return tournament.locked_version + 1


# ---- creating, joining, withdrawing -------------------------------------------------------


def create(
    *,
    name: str,
    kind: str,
    game: str,
    starts_at,
    minutes: int = 0,
    rounds: int = 0,
    base: int = 180,
    increment: int = 2,
    options: dict | None = None,
    rated: bool = True,
    by=None,
    schedule_key: str | None = None,
) -> Tournament:
    """A new event (ValueError for options the game refuses). ``by``: the player who made
    it (limited: ``LIMITS``), None for staff and the scheduler."""
    rules = get_game(game)
    position = rules.start(**(options or {}))
    if kind not in Tournament.Kind.values:
        raise ValueError(f"A tournament is an arena or Swiss, not {kind!r}.")
    if kind == Tournament.Kind.ARENA and not 5 <= minutes <= 24 * 60:
        raise ValueError("An arena lasts from 5 minutes to a day.")
    if kind == Tournament.Kind.SWISS and not 1 <= rounds <= 20:
        raise ValueError("A Swiss event has from 1 to 20 rounds.")
    tournament = Tournament(
        name=name.strip()[:60] or f"{rules.title} {kind}",
        kind=kind,
        game=rules.slug,
        options=rules.options_of(position),
        clock_base=base,
        clock_increment=increment,
        rated=rated,
        starts_at=starts_at,
        minutes=minutes if kind == Tournament.Kind.ARENA else 0,
        rounds=rounds if kind == Tournament.Kind.SWISS else 0,
        created_by=by if by is not None and not by.is_staff else None,
        schedule_key=schedule_key,
    )

    def change() -> Tournament:
        if by is not None and not by.is_staff:
            locks.hold(f"tournaments-made-by:{by.pk}")  # count, then insert: one at a time
            mine = Tournament.objects.filter(created_by=by)
            if mine.filter(status=Tournament.Status.UPCOMING).count() >= LIMITS.upcoming:
                raise TooMany(
                    f"You have {LIMITS.upcoming} tournaments waiting to start: "
                    "wait for one to begin before you create another."
                )
            day = timezone.now() - timedelta(days=1)
            if mine.filter(created_at__gte=day).count() >= LIMITS.per_day:
                raise TooMany(f"You have created {LIMITS.per_day} tournaments today.")
        tournament.save()
        _changed(tournament)
        return tournament

    return play.write(change)


def _rating(user, game: str) -> float:
    from ratings.models import Rating

    found = Rating.objects.filter(user=user, game=game).values_list("rating", flat=True).first()
    if found is not None:
        return found
    return Rating._meta.get_field("rating").default


def join(public_id: str, user) -> Entry:
    """Join the event (or come back to it, after withdrawing from an arena)."""

    def change() -> Entry:
        tournament, entry = _with_entry(public_id, user)
        if entry is None and tournament.is_arena:
            # Entries are made with the event's row held, as here: one made meanwhile (by
            # this player's other join) is seen now, not locked.
            made = Entry.objects.filter(tournament=tournament, user=user).first()
            if made is not None:
                if made.active:
                    raise Refused("You have already joined this tournament.")
                raise Refused("Your entry changed meanwhile: try again.")
        if tournament.status == Tournament.Status.FINISHED:
            raise Refused("This tournament is over.")
        if not tournament.is_arena and tournament.status != Tournament.Status.UPCOMING:
            raise Refused("This Swiss tournament has started: players join before its first round.")
        if entry is not None and entry.active:
            raise Refused("You have already joined this tournament.")
        now = timezone.now()
        running = tournament.status == Tournament.Status.RUNNING
        if entry is None:
            entry = Entry.objects.create(
                tournament=tournament,
                user=user,
                name=user.get_username(),
                rating=_rating(user, tournament.game),
                waiting_since=now if running else None,
                panel_version=_panel(tournament),
            )
        else:
            entry.active = True
            entry.waiting_since = now if running and entry.playing_id is None else None
            entry.panel_version = _panel(tournament)
            entry.save(update_fields=["active", "waiting_since", "panel_version"])
        if not tournament.is_arena:
            _rank(tournament)
        _bump(tournament)
        _changed(tournament)
        return entry

    return play.write(change)


def withdraw(public_id: str, user) -> Entry | None:
    """Leave the event: before a Swiss event starts, the entry goes; else the player is
    paused (an arena: no more pairings until they join again; Swiss: no more rounds). A game
    in play goes on and counts."""

    def change() -> Entry | None:
        tournament, entry = _with_entry(public_id, user)
        if entry is None or not entry.active:
            raise Refused("You are not playing in this tournament.")
        if tournament.status == Tournament.Status.FINISHED:
            raise Refused("This tournament is over.")
        left = ()
        if tournament.status == Tournament.Status.UPCOMING:
            entry.delete()
            entry, left = None, (user.pk,)
        else:
            entry.active = False
            entry.waiting_since = None
            entry.panel_version = _panel(tournament)
            entry.save(update_fields=["active", "waiting_since", "panel_version"])
        if not tournament.is_arena:
            _rank(tournament)
        _bump(tournament)
        _changed(tournament, look_again=False, left=left)
        return entry

    return play.write(change)


def rename(public_id: str, name: str) -> Tournament:
    """Staff rename an event (the admin): a change like any other (its version moves on,
    its live part is drawn again); the page's title shows it on the next load."""

    def change() -> Tournament:
        tournament = _locked(public_id)
        _bump(tournament, name=name.strip()[:60] or tournament.name)
        _changed(tournament, look_again=False)
        return tournament

    return play.write(change)


# ---- scoring a game: inside the transaction that ends it -------------------------------------


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """games.signals.match_finished: a game of an event ended; score it (same transaction)."""
    if not match.event.startswith(EVENT_PREFIX):
        return
    pairing = Pairing.objects.filter(match=match, scored=False).select_related("tournament").first()
    if pairing is None:
        return
    # The pairing is scored before the event's row is locked (the match's row, locked by
    # the write that ends it, keeps any other from scoring it): every game end of an event
    # queues on that row (on PostgreSQL, from every process), and holds it until it commits.
    won_by = _won_by(pairing.tournament, match)  # its kind, which never changes
    Pairing.objects.filter(pk=pairing.pk).update(won_by=won_by, scored=True)
    pairing.won_by, pairing.scored = won_by, True
    ids = [pairing.first_id, pairing.second_id]
    if pairing.tournament.is_arena:
        # The two entries locked (a withdrawal waits), the event's row only for the version,
        # last (the module's docstring). The event read above cannot have ended: this game
        # was in play.
        tournament = _holding(pairing.tournament)
        entries = {
            e.pk: e for e in Entry.objects.select_for_update().filter(pk__in=ids).order_by("pk")
        }
    else:
        tournament = _holding(Tournament.objects.select_for_update().get(pk=pairing.tournament_id))
        entries = {e.pk: e for e in Entry.objects.filter(pk__in=ids)}
    now = timezone.now()
    arena_open = (
        tournament.is_arena
        and tournament.status == Tournament.Status.RUNNING
        and (now < tournament.ends_at)
    )
    for seat, entry_id in ((1, pairing.first_id), (2, pairing.second_id)):
        entry = entries[entry_id]
        entry.playing = None
        entry.last_game = match
        entry.panel_version = _panel(tournament)
        entry.last_opponent_id = pairing.second_id if seat == 1 else pairing.first_id
        if won_by is not None:
            result = arena.WIN if won_by == seat else arena.DRAW if won_by == 0 else arena.LOSS
            _score(tournament, entry, result)
        if tournament.is_arena:
            absent = match.ending == Match.Ending.ABORTED and _failed_seat(match) == seat
            if absent:
                entry.active = False  # did not play: paused until they come back
            entry.waiting_since = now if entry.active and arena_open else None
    # Both entries in one statement.
    Entry.objects.bulk_update(entries.values(), SCORED_FIELDS)
    # An arena's ranks are not written at a game's end: they are worked out where they are
    # read, outside the write (live.ranked, _plan), and written once, when the event ends.
    # Inside this write (SQLite's one writer, which every move and game end of the process
    # waits for) a re-rank read every entry at every game's end: the benchmark's arena of
    # 1,000 queued its writes for seconds. A Swiss event's ranks count every point as it is
    # scored: the page shows no rank that ignores a finished game (the cost is one read of
    # its entries and pairings at each of its games' ends).
    if not tournament.is_arena:
        _rank(tournament)
    _bump(tournament)
    _changed(tournament)


# What scoring a game changes on each of its two entries.
SCORED_FIELDS = [
    "playing",
    "last_game",
    "panel_version",
    "last_opponent",
    "games",
    "wins",
    "results",
    "score",
    "streak",
    "active",
    "waiting_since",
]


def _failed_seat(match: Match) -> int | None:
    """The seat that did not make its first move in an aborted game: the seat to move
    (a game is aborted only while a first move is awaited), whoever asked to abort it.
    The player who waited and aborted it is not the one who failed to play."""
    return match.seat_of_player(match.current.to_move)


def _won_by(tournament: Tournament, match: Match) -> int | None:
    """How the event scores a finished game: 1 or 2 (that seat won), 0 (drawn), or None
    (an arena's aborted game counts for nobody). In a Swiss event an aborted game is lost by
    the player who did not make a first move (the round needs a result)."""
    if match.ending == Match.Ending.ABORTED and not tournament.is_arena:
        failed = _failed_seat(match)
        return 3 - failed if failed in (1, 2) else None
    if match.ending in Match.NO_RESULT:
        return None
    winner = match.winner_seat
    return winner if winner is not None else 0


def _score(tournament: Tournament, entry: Entry, result: str) -> None:
    entry.games += 1
    entry.wins += result == arena.WIN
    if tournament.is_arena:
        entry.results += LETTER[result]
        scored = arena.score(RESULT[c] for c in entry.results)
        entry.score = scored.total
        entry.streak = 2 if scored.on_fire else (1 if result == arena.WIN else 0)
    else:
        entry.score += {arena.WIN: 2, arena.DRAW: 1, arena.LOSS: 0}[result]
        entry.results += LETTER[result]


def _rank(tournament: Tournament) -> None:
    """Everyone's rank (and a Swiss event's tie-breaks), written where they changed: a Swiss
    event's as players join or leave and as each round ends, an arena's when it ends."""
    if tournament.is_arena:
        # Written when the event ends (the page and the pairing work ranks out as they read:
        # arena_order); only the ranks that moved, in one statement per 500.
        rows = arena_order(Entry.objects.filter(tournament=tournament)).values_list("pk", "rank")
        moved = [Entry(pk=pk, rank=rank) for rank, (pk, was) in enumerate(rows, 1) if was != rank]
        Entry.objects.bulk_update(moved, ["rank"], batch_size=500)
        return
    entries = list(Entry.objects.filter(tournament=tournament))
    players = swiss_players(tournament, entries)
    by_id = {e.pk: e for e in entries}
    # The tie-breaks are the core's, over the rounds completed; the ranks count every point
    # scored so far, a bye's and those of the round in play's finished games too (once the
    # round is over the two orders are one).
    breaks = swiss.standings(players)
    ranked = sorted(
        breaks,
        key=lambda s: (-by_id[s.id].score, -s.buchholz, -s.sonneborn_berger, s.rank),
    )
    # Only the entries that changed, in one statement per 500 (as an arena's ranks).
    fields = ("rank", "buchholz", "sonneborn_berger")
    moved = []
    for rank, standing in enumerate(ranked, 1):
        entry = by_id[standing.id]
        now = (rank, standing.buchholz, standing.sonneborn_berger)
        if tuple(getattr(entry, k) for k in fields) != now:
            entry.rank, entry.buchholz, entry.sonneborn_berger = now
            moved.append(entry)
    Entry.objects.bulk_update(moved, fields, batch_size=500)


def swiss_players(tournament: Tournament, entries: list[Entry]) -> list[swiss.Player]:
    """The event as the Swiss core reads it: each entry's games of the rounds completed
    (a round still in play is left out, so that every history has the same length)."""
    done = tournament.round if _round_over(tournament) else tournament.round - 1
    history: dict[int, list[swiss.Game | None]] = {e.pk: [None] * max(done, 0) for e in entries}
    for p in Pairing.objects.filter(tournament=tournament, round__gte=1, round__lte=done):
        if p.second_id is None:
            history[p.first_id][p.round - 1] = swiss.BYE
            continue
        won = p.won_by if p.won_by is not None else 0
        for seat, me, them in ((1, p.first_id, p.second_id), (2, p.second_id, p.first_id)):
            score = 1.0 if won == seat else 0.5 if won == 0 else 0.0
            history[me][p.round - 1] = swiss.Game(them, seat, score)
    # A round without a game that was not a bye: the player had withdrawn (absent, 0).
    return [
        swiss.Player(e.pk, e.rating, tuple(g or swiss.ABSENT for g in history[e.pk]))
        for e in entries
    ]


def _round_over(tournament: Tournament) -> bool:
    return not Pairing.objects.filter(
        tournament=tournament, round=tournament.round, scored=False, match__isnull=False
    ).exists()


# ---- what is due ---------------------------------------------------------------------------


def due() -> list[str]:
    """The events that may have something due now (to start, pair, or finish)."""
    now = timezone.now()
    return list(
        Tournament.objects.filter(
            Q(status=Tournament.Status.UPCOMING, starts_at__lte=now)
            | Q(status=Tournament.Status.RUNNING)
        ).values_list("public_id", flat=True)
    )


def advance(public_id: str) -> bool:
    """Do what is due for the event now (the module's docstring). True if it changed."""
    # Who is here is read before the write, never inside it (a slow Redis must not hold
    # the write lock): the arena's waiting players' pages.
    here = _present(public_id)
    # So is an arena's pairing (a maximum-weight matching: seconds for a few hundred players
    # waiting, which inside the write held every other write of the process, every move
    # and every game's end, behind it); the write pairs whoever it matched that still waits.
    planned = _plan(public_id, here)

    def change() -> bool:
        pk, kind = _key(public_id)
        _advancing(pk)
        if kind == Tournament.Kind.ARENA:
            tournament = _read(public_id)  # as the last advance left it
        else:
            tournament = _locked(public_id)
        now = timezone.now()
        if tournament.status == Tournament.Status.UPCOMING:
            if now < tournament.starts_at:
                return False
            return _start(tournament, now, here, planned)
        if tournament.status != Tournament.Status.RUNNING:
            return False
        if tournament.is_arena:
            return _arena_step(tournament, now, here, planned)
        return _swiss_step(tournament, now)

    return play.write(change)


def _start(tournament: Tournament, now, here, planned) -> bool:
    entries = Entry.objects.filter(tournament=tournament, active=True)
    if not tournament.is_arena and entries.count() < 2:
        note = "Fewer than two players joined: the tournament did not take place."
        _finish(tournament, now, note=note)
        _changed(tournament, look_again=False)
        return True
    entries.update(waiting_since=now, panel_version=_panel(tournament))
    _bump_last(tournament, status=Tournament.Status.RUNNING, round_started_at=now)
    _started(tournament, list(entries.values_list("user_id", flat=True)))
    if tournament.is_arena:
        _arena_step(tournament, now, here, planned)
    else:
        _pair_round(tournament, now)
    _changed(tournament)
    return True


def _started(tournament: Tournament, user_ids: list[int]) -> None:
    """After the start commits: the apps built on tournaments are told (signals.py)."""

    def committed():
        sent = signals.tournament_started.send_robust(
            sender=Tournament, tournament=tournament, user_ids=user_ids
        )
        for receiver, result in sent:
            if isinstance(result, Exception):
                log.error("tournament_started receiver %r failed", receiver, exc_info=result)

    transaction.on_commit(committed)


def _present(public_id: str) -> dict[int, bool] | None:
    """For each waiting player of a running arena: is a page of theirs open (the event's
    page, or the page of their last game of it)? None: it cannot be known (everyone
    counts as here), as in the first moments of a server process (its pages are still
    coming back: scheduler.SETTLING). Read outside the write, in one round trip to the
    presence store."""
    from tournaments import scheduler

    if scheduler.scheduler.settling():
        return None
    waiting = list(
        Entry.objects.filter(
            tournament__public_id=public_id,
            tournament__kind=Tournament.Kind.ARENA,
            tournament__status=Tournament.Status.RUNNING,
            active=True,
            playing__isnull=True,
        ).values_list("pk", "user_id", "last_game__public_id", "last_game__seat1_user_id")
    )
    if not waiting:
        return {}
    from tournaments import live

    names = []
    for _, user_id, game, seat1_user in waiting:
        names.append(live.player_set(public_id, user_id))
        seat = 1 if seat1_user == user_id else 2
        names.append(presence.seat_set(game, seat) if game else live.player_set(public_id, 0))
    counts = presence.counts(names)
    if counts is None:
        return None
    return {pk: counts[2 * i] + counts[2 * i + 1] > 0 for i, (pk, *_) in enumerate(waiting)}


def _plan(public_id: str, here: dict[int, bool] | None) -> list[tuple[int, int]]:
    """An arena's pairing of the players waiting (or, of one due to start, of everyone who
    joined), read and matched outside the write: the pairs, the better-ranked first."""
    rows = list(
        Entry.objects.filter(
            tournament__public_id=public_id,
            tournament__kind=Tournament.Kind.ARENA,
            active=True,
            playing__isnull=True,
        )
        .filter(
            Q(waiting_since__isnull=False, tournament__status=Tournament.Status.RUNNING)
            | Q(tournament__status=Tournament.Status.UPCOMING)
        )
        .values_list("pk", "last_opponent_id", "score", "rank")
    )
    rows = [row for row in rows if here is None or here.get(row[0]) is not False]
    if len(rows) < 2:
        return []
    ranks = arena_ranks(public_id)
    unranked = len(ranks) + 1
    return list(
        arena.pair_waiting(
            [pk for pk, *_ in rows],
            {pk: last for pk, last, _, _ in rows if last},
            {pk: score for pk, _, score, _ in rows},
            {pk: ranks.get(pk, unranked) for pk, *_ in rows},
        ).pairs
    )


def arena_order(entries):
    """An arena's standings order, from a queryset of its entries: score, then the rating
    at joining (the one definition: the write's final ranks, the pairing and the page)."""
    return entries.order_by("-score", "-rating", "pk")


def arena_ranks(public_id: str) -> dict[int, int]:
    """Every entry's rank in an arena now (1 is the top), read outside any write."""
    order = arena_order(Entry.objects.filter(tournament__public_id=public_id))
    return {pk: rank for rank, pk in enumerate(order.values_list("pk", flat=True), 1)}


# Read with the entries a pairing writes: where each player finished their last game, to
# tell them of the next one there (tournaments/next_game.py), after the commit.
LAST_GAME = {
    "last_game_public_id": F("last_game__public_id"),
    "last_game_seat1": F("last_game__seat1_user_id"),
}


def _arena_step(tournament: Tournament, now, here, planned: list[tuple[int, int]]) -> bool:
    if now >= tournament.ends_at:
        return _arena_close(tournament, now)
    # Locked, in the order of their keys (the module's docstring): a withdrawal waits.
    waiting = list(
        Entry.objects.select_for_update(of=("self",))
        .filter(
            tournament=tournament, active=True, playing__isnull=True, waiting_since__isnull=False
        )
        .select_related("user__profile")
        .annotate(**LAST_GAME)
        .order_by("pk")
    )
    changed = False
    if here is not None:
        gone = [e for e in waiting if here.get(e.pk) is False]
        if gone:
            Entry.objects.filter(pk__in=[e.pk for e in gone]).update(
                active=False, waiting_since=None, panel_version=_panel(tournament)
            )
            waiting = [e for e in waiting if e not in gone]
            changed = True
    # The pairs matched before the write whose players both still wait, and were not each
    # other's last opponents since; whoever waits unmatched is paired by the next advance
    # (the end of each game asks for one).
    by_id = {e.pk: e for e in waiting}
    pairs = [
        (by_id[a], by_id[b])
        for a, b in planned
        if a in by_id
        and b in by_id
        and by_id[a].last_opponent_id != b
        and by_id[b].last_opponent_id != a
    ]
    firsts = _firsts([entry.pk for pair in pairs for entry in pair])
    for a, b in pairs:
        first, second = (b, a) if firsts.get(a.pk, 0) > firsts.get(b.pk, 0) else (a, b)
        _make_game(tournament, 0, first, second)
    _paired(tournament, [entry for pair in pairs for entry in pair])
    changed = changed or bool(pairs)
    if changed:
        _bump_last(tournament)
        _changed(tournament, look_again=False)
    return changed


def _firsts(entry_ids: list[int]) -> dict[int, int]:
    """How many of their arena games these entries have moved first in (one query for a
    whole pairing step): in a new game, the one who has moved first less often moves
    first."""
    if not entry_ids:
        return {}
    return dict(
        Pairing.objects.filter(first__in=entry_ids)
        .values("first")
        .annotate(n=Count("pk"))
        .values_list("first", "n")
    )


def _make_game(tournament: Tournament, round_number: int, first: Entry, second: Entry) -> Pairing:
    match = play.pair_accounts(
        tournament.game,
        first=Seat(first.user, first.user.profile.token),
        second=Seat(second.user, second.user.profile.token),
        options=tournament.options,
        time_control={
            "clock": Match.Clock.REALTIME,
            "base": tournament.clock_base,
            "increment": tournament.clock_increment,
        },
        rated=tournament.rated,
        event=event_label(tournament),
    )
    panel = _panel(tournament)
    for entry in (first, second):
        Entry.objects.filter(pk=entry.pk).update(
            playing=match, waiting_since=None, panel_version=panel
        )
        entry.playing, entry.waiting_since, entry.panel_version = match, None, panel
    return Pairing.objects.create(
        tournament=tournament, round=round_number, match=match, first=first, second=second
    )


def _arena_close(tournament: Tournament, now) -> bool:
    """Time is up: no more pairing; the event ends once its last games are over."""
    Entry.objects.filter(tournament=tournament, waiting_since__isnull=False).update(
        waiting_since=None, panel_version=_panel(tournament)
    )
    if Entry.objects.filter(tournament=tournament, playing__isnull=False).exists():
        return False  # the games in play finish first (each end looks again)
    _finish(tournament, now)
    _changed(tournament, look_again=False)
    return True


def _swiss_step(tournament: Tournament, now) -> bool:
    if not _round_over(tournament):
        return False
    if tournament.round >= tournament.rounds:
        _finish(tournament, now)
        _changed(tournament, look_again=False)
        return True
    _pair_round(tournament, now)
    _changed(tournament)
    return True


def _pair_round(tournament: Tournament, now) -> None:
    """The next Swiss round: everyone active paired by score (a bye for one if odd)."""
    number = tournament.round + 1
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .select_related("user__profile")
        .annotate(**LAST_GAME)
    )
    # _rank's histories count the rounds before this one: bump the round after reading.
    players = swiss_players(tournament, entries)
    by_id = {e.pk: e for e in entries}
    try:
        pairing = swiss.pair(players, number, absent=[e.pk for e in entries if not e.active])
    except swiss.NoPairing as error:
        _rank(tournament)
        _finish(tournament, now, note=str(error)[:200])
        return
    _bump(tournament, round=number, round_started_at=now)
    for a, b in pairing.pairs:
        _make_game(tournament, number, by_id[a], by_id[b])
    _paired(tournament, [by_id[n] for pair in pairing.pairs for n in pair])
    if pairing.bye is not None:
        bye = by_id[pairing.bye]
        Pairing.objects.create(
            tournament=tournament, round=number, first=bye, won_by=1, scored=True
        )
        bye.score += SCORE_SCALE
        bye.games += 1
        bye.results += "B"
        bye.panel_version = _panel(tournament)  # their panel says so
        bye.save(update_fields=["score", "games", "results", "panel_version"])
    _rank(tournament)
