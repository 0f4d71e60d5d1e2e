"""A tournament's live page: each change drawn once, sent to one group, forwarded by every page.

After a change of an event commits (tournaments/director.py calls ``changed``), what its
page shows live is drawn ONCE, in the process that made the change, and handed to the
live layer's publisher (games/live.py) in two parts:

- the part every viewer shares (the state line, the standings, the games in play);
- the players' own panels (their game with its "Go to your game" button, paused or
  waiting, Join or Withdraw), drawn only for the players whose panel changed since this
  process's last push, keyed by player.

Both go in one message to the event's one group, ``tournament.<id>``, however many pages
are open: each server process's relay reads it once (games/fanout.py), and each page
forwards the shared part and its own viewer's panel, no one else's. (A message per panel
cost a channel-layer send for every one: with several processes on Redis, those sends
were most of what the publisher sent, and every push queued behind them;
benchmarks/README.md, "Arena repair".)

One panel does not wait for that: a pairing's "Go to your game", pushed as the pairing
commits (``paired``) to each paired player's own group, ``tournament.<id>.u<user id>``,
which their pages join directly. Through the event's group it would queue in each
process's relay behind the standings' fan-out to every page (the players waited five
times longer on one process).

Bursts are batched per event (``Drawer``): the first change after a quiet moment is drawn
at once, the changes that follow within TOURNAMENT_PUSH_EVERY seconds are drawn together
at the end of that window (a 1,000-player arena whose games end every few milliseconds
costs each page a few frames a second, each one render for all). The consumer
(tournaments/consumers.py) forwards a frame newer than what its page shows, reads no
database and draws nothing on a push.
"""

from __future__ import annotations

import asyncio
import contextlib

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone

from games import presence
from games.live import Window, publisher, server_loop
from games.models import Match
from tournaments import director
from tournaments.models import Entry, Pairing, Tournament

SHOWN = 50  # standings rows drawn live (the page links the full table)
TOP_GAMES = 10  # games in play listed: those of the best-placed players
PAGE = "~t:"  # presence "page" prefix of an event's sockets
OPEN = "open"  # the kind of an anonymous socket of an event's page


def group(public_id: str) -> str:
    return f"tournament.{public_id}"


def player_group(public_id: str, user_id: int) -> str:
    return f"tournament.{public_id}.u{user_id}"


def page(public_id: str) -> str:
    return PAGE + public_id


def player_kind(user_id: int) -> str:
    return f"u{user_id}"


def player_set(public_id: str, user_id: int) -> str:
    """The presence set of one player's open pages of the event."""
    return presence.kind_set(page(public_id), player_kind(user_id))


# ---- what the page shows -----------------------------------------------------------------


def shared_context(tournament: Tournament, *, limit: int | None = SHOWN) -> dict:
    """The part of the page every viewer sees: state, standings, games in play."""
    # Through the event's own manager: each row knows its event (no query a row).
    entries = tournament.entries.select_related("playing", "user__profile")  # the BOT mark
    count = entries.count()
    if tournament.is_arena:  # ranks worked out as they are read (director.arena_order)
        ordered = director.arena_order(entries)
    else:
        ordered = entries.order_by("rank", "pk")
    rows = list(ordered[:limit] if limit else ordered)
    if tournament.is_arena and tournament.status != Tournament.Status.FINISHED:
        for rank, row in enumerate(rows, 1):
            row.rank = rank
    for row in rows:  # each row's points read the event: the one in hand, not a query a row
        row.tournament = tournament
    # The games in play of the best-placed players, as lichess's "top games" (each row of
    # the standings links its own player's game): a 1,000-player arena's page was half
    # games in play, and every page gets it a few times a second.
    top: list[int] = []
    for row in rows:
        if row.playing_id and row.playing.status == Match.Status.PLAYING:
            if row.playing_id not in top:
                top.append(row.playing_id)
            if len(top) == TOP_GAMES:
                break
    by_match = {
        p.match_id: p
        for p in Pairing.objects.filter(tournament=tournament, match_id__in=top).select_related(
            "match", "first", "second"
        )
    }
    playing = [by_match[match] for match in top if match in by_match]
    podium = rows[:3] if tournament.status == Tournament.Status.FINISHED else []
    now = timezone.now()
    ends_at = tournament.ends_at
    return {
        "starts_in_ms": max(0, int((tournament.starts_at - now).total_seconds() * 1000)),
        "ends_in_ms": max(0, int((ends_at - now).total_seconds() * 1000)) if ends_at else 0,
        "t": tournament,
        "rows": rows,
        "count": count,
        "more": count - len(rows),
        "playing": playing,
        "podium": podium,
    }


def render_shared(tournament: Tournament, *, limit: int | None = SHOWN) -> str:
    return render_to_string("tournaments/_live.html", shared_context(tournament, limit=limit))


def panel_context(tournament: Tournament, entry: Entry | None, *, signed_in: bool) -> dict:
    return {"t": tournament, "entry": entry, "signed_in": signed_in}


def render_panel(tournament: Tournament, entry: Entry | None, *, signed_in: bool) -> str:
    return render_to_string(
        "tournaments/_panel.html", panel_context(tournament, entry, signed_in=signed_in)
    )


def snapshot(public_id: str, user_id: int | None) -> tuple[str, int, str, bool] | None:
    """What a page's socket sends first: the shared part and the viewer's panel, the
    version they show, the event's status, and whether the viewer has an entry (None: no
    such event)."""
    tournament = Tournament.objects.filter(public_id=public_id).first()
    if tournament is None:
        return None
    html = oob(render_shared(tournament))
    entry = None
    if user_id is not None:
        entry = (
            Entry.objects.filter(tournament=tournament, user_id=user_id)
            .select_related("playing")
            .first()
        )
        if entry is not None:
            entry.tournament = tournament
        html += oob(render_panel(tournament, entry, signed_in=True))
    return html, tournament.version, tournament.status, entry is not None


def visitors_panels(tournament: Tournament) -> dict[str, str]:
    """The panel of a viewer without an entry, signed in and not: what it offers changes
    with the event's status (Join, then "has started", then "is over")."""
    return {
        "visitor": oob(render_panel(tournament, None, signed_in=True)),
        "anonymous": oob(render_panel(tournament, None, signed_in=False)),
    }


def oob(html: str) -> str:
    """A part of the page, swapped by its id (its root carries it) when pushed."""
    return html.replace(" data-live-part", ' hx-swap-oob="true" data-live-part', 1)


# ---- drawing and sending, once per change (batched) ----------------------------------------


def paired(tournament: Tournament, entries) -> None:
    """Just after a pairing committed: each paired player's panel, drawn from the rows the
    write holds (no query), at the version it committed (``tournament`` as the write left
    it), to the player's own group. The batched draw of the same change (``Drawer``) draws
    these panels again at that version or a later one; a page forwards a panel only if
    newer than the one it shows. A player who waited on the page of the game they last
    finished is told there too (tournaments/next_game.py)."""
    from tournaments import next_game

    for entry in entries:
        entry.tournament = tournament
        next_game.sent_after(tournament, entry)
        publisher.publish(
            player_group(tournament.public_id, entry.user_id),
            {
                "type": "tournament.panel",
                "version": tournament.version,
                **panel(oob(render_panel(tournament, entry, signed_in=True)), entry=True),
            },
        )


def panel_key(user_id: int) -> str:
    """A player's key in a message's ``panels`` (a string: the layer's messages are msgpack)."""
    return str(user_id)


def panel(html: str, *, entry: bool) -> dict:
    """One player's panel in a message (``entry``: they have one in the event)."""
    return {"html": html, "entry": entry}


class Drawer:
    """The changes of one process's events on their way, in bursts per event
    (``games.live.Window``, every TOURNAMENT_PUSH_EVERY seconds). Each change names the
    version of the event it began from; a draw draws the panels of every player whose
    ``panel_version`` is after the oldest of the changes it draws (each change's own,
    exactly: however long its write took to commit, and whichever process drew before)."""

    def __init__(self):
        self.since: dict[str, int | None] = {}  # event -> the panels to draw: after this
        # event -> the players who left it before its start (their entry is gone: their
        # panels are drawn without one, so that their other pages offer Join again)
        self.left: dict[str, set[int]] = {}
        self.window = Window(lambda: settings.TOURNAMENT_PUSH_EVERY, self._soon)
        self.frames = 0  # pushes drawn in this process (tests, the benchmark)

    def changed(self, public_id: str, since: int | None = None, left: tuple[int, ...] = ()) -> None:
        """From any thread, after a change of the event committed; ``since``: the event's
        version before it (None: no player's panel changed); ``left``: the players whose
        entry it deleted."""

        def note() -> None:
            if left:
                self.left.setdefault(public_id, set()).update(left)
            was = self.since.get(public_id)
            if public_id not in self.since or was is None:
                self.since[public_id] = since
            elif since is not None:
                self.since[public_id] = min(was, since)

        self.window.add(public_id, note)

    def _soon(self, public_id: str) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no server here (a management command, a plain test)
            self.draw(public_id)
            return
        # Drawn in a thread: it reads the database (never the event loop's own thread).
        try:
            task = loop.run_in_executor(None, self.draw, public_id)
        except RuntimeError:  # the server is stopping: its pages reconnect and read afresh
            return
        task.add_done_callback(_retrieved)

    def draw(self, public_id: str) -> None:
        from django.db import close_old_connections

        since, left = self.window.take(
            public_id,
            lambda: (self.since.pop(public_id, None), self.left.pop(public_id, set())),
        )
        try:
            self._draw(public_id, since, left)
        finally:
            if server_loop() is not None:
                close_old_connections()

    def _draw(self, public_id: str, since: int | None, left: set[int] = frozenset()) -> None:
        tournament = Tournament.objects.filter(public_id=public_id).first()
        if tournament is None:
            return
        version = tournament.version
        # The players' own panels go in the same message as the standings: each page
        # forwards its viewer's panel first, in the same frame.
        panels = {}
        if since is not None:
            # A change committed after ``version`` was read is drawn here too (its panels
            # are read below) and again by its own draw: twice, never missed.
            entries = Entry.objects.filter(tournament=tournament, panel_version__gt=since)
            for entry in entries.select_related("playing"):
                entry.tournament = tournament
                html = oob(render_panel(tournament, entry, signed_in=True))
                panels[panel_key(entry.user_id)] = panel(html, entry=True)
        if left:
            html = oob(render_panel(tournament, None, signed_in=True))
            joined = set(tournament.entries.values_list("user_id", flat=True))
            for user_id in left - joined:
                panels[panel_key(user_id)] = panel(html, entry=False)
        publisher.publish(
            group(public_id),
            {
                "type": "tournament.changed",
                "version": version,
                "status": tournament.status,
                "html": oob(render_shared(tournament)),
                "panels": panels,
                # Forwarded by the pages of viewers without an entry when the status moves.
                **visitors_panels(tournament),
            },
        )
        self.frames += 1


def _retrieved(future) -> None:
    with contextlib.suppress(BaseException):
        future.exception()


drawer = Drawer()


def changed(public_id: str, since: int | None = None, left: tuple[int, ...] = ()) -> None:
    """After a change of the event committed (``since``: its version before the change;
    ``left``: the players whose entry it deleted)."""
    drawer.changed(public_id, since, left)
