"""The lobby's live lists: each change drawn once, sent to one group, forwarded by every page.

``games.signals.match_changed`` comes after every committed change of a match, once, in
the process that made it. For a listed match this receiver draws what the lobby shows of
that change ONCE and hands it to the live layer's publisher (games/live.py: the send
never holds the request, and survives a Redis outage), to one group:

- ``lobby.challenges`` (the home page): a challenge opened (its row, drawn twice: as
  everyone sees it, with "Accept", and as its creator sees it, with "Withdraw"; each
  socket forwards the one for its viewer), or a challenge that left (taken, withdrawn,
  expired: a small removal);
- ``lobby.watch`` (the watch page): a listed match's card, its small picture, each time
  the match changes while it is played (one card, not the page: a move costs one card),
  its "N watching" when a spectator's page opens or closes (``spectators_counted``), and
  its removal when it ends. Nothing is drawn while no watch page is open.

A change to the lobby therefore costs the same whether 1 or 1,000 pages watch it: one
render and one group send; each consumer (lobby/consumers.py) forwards what it is sent.
The sends are batched per group (``Batches``): a change after a quiet moment goes at
once, a burst goes as one message every LOBBY_PUSH_EVERY seconds (a row added and taken
within it never travels), so a busy lobby costs each page a few frames a second.

The ``Sweeper`` closes due challenges (lobby/challenges.py): in each server process, a
small asyncio task that runs while that process has a lobby page open or has made a
challenge that is still open.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging

from channels.db import database_sync_to_async
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from games import boards, clock, presence
from games.live import Window, publisher, server_loop, spectator_counts
from games.models import Match
from games.rights import SPECTATOR
from lobby import challenges

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby.challenges"
WATCH_GROUP = "lobby.watch"
# The presence "pages" of the lobby and the watch page: their sockets join these sets, so
# that a change is drawn only while someone watches (games/presence.py).
LOBBY_PAGE = "~lobby"
WATCH_PAGE = "~watch"
OPEN = "open"  # the kind of every socket of those pages

_paths: dict[str, str] = {}


def _path(name: str, public_id: str) -> str:
    """A lobby action's path, reversed once per process."""
    if name not in _paths:
        _paths[name] = reverse(name, args=["__MATCH__ID__16_"])
    return _paths[name].replace("__MATCH__ID__16_", public_id)


# ---- what the pages show -------------------------------------------------------------


def challenge_context(match: Match, *, own: bool) -> dict:
    game = match.rules
    return {
        "match": match,
        "title": game.title,
        "by": match.seat1_name or "Anonymous",
        "options": match.options_summary(),
        "clock": clock.describe(match),
        "own": own,
        "accept_url": _path("lobby_accept", match.public_id),
        "withdraw_url": _path("lobby_withdraw", match.public_id),
    }


def render_challenge(match: Match, *, own: bool, request=None) -> str:
    return render_to_string(
        "lobby/_challenge.html", {"c": challenge_context(match, own=own)}, request=request
    )


def card_context(match: Match, *, spectators: int | None) -> dict:
    pos = match.current
    return {
        "match": match,
        "title": match.rules.title,
        "players": [match.player_name(1), match.player_name(2)],
        "state": boards.status_text(match, SPECTATOR, pos.to_move),
        "mini": boards.mini_picture(match),
        "spectators": spectators,
        "url": match.get_absolute_url(),
    }


def render_card(match: Match, *, spectators: int | None) -> str:
    return render_to_string("lobby/_card.html", {"w": card_context(match, spectators=spectators)})


def challenge_rows(viewer: challenges.Challenger) -> list[dict]:
    """The open challenges as ``viewer`` sees them (its own with "Withdraw")."""
    return [
        challenge_context(match, own=viewer.owns(match)) for match in challenges.open_challenges()
    ]


def watch_cards() -> list[dict]:
    """The cards of the watch page: the listed matches being played, newest first."""
    matches = challenges.being_played()
    counts = spectators_of(matches)
    return [
        card_context(match, spectators=count) for match, count in zip(matches, counts, strict=True)
    ]


def spectators_of(matches: list[Match]) -> list[int | None]:
    """How many spectator pages each match has open (None: unknown), in one round trip."""
    return spectator_counts([match.public_id for match in matches])


def watching(page: str) -> bool:
    """Whether any page of the lobby (or the watch page) is open anywhere (True when it
    cannot be known: better a render for nobody than a page left behind)."""
    found = presence.counts([presence.kind_set(page, OPEN)])
    return found is None or found[0] > 0


def removal(prefix: str, public_id: str) -> str:
    """A row or card to take away (htmx's out-of-band ``delete``)."""
    return f'<li id="{prefix}-{public_id}" hx-swap-oob="delete"></li>'


# ---- the receiver --------------------------------------------------------------------


def on_match_changed(sender, match: Match, **kwargs) -> None:
    """After a change committed: what the lobby and the watch page show of it, drawn
    once, sent once (nothing at all for a match that is not listed)."""
    if not match.listed:
        return
    if match.status == Match.Status.WAITING:
        challenge_opened(match)
        return
    if match.ply == 0:  # it has just left the lobby: taken, withdrawn or expired
        lobby_batches.add(
            {"kind": "removed", "id": match.public_id, "html": removal("c", match.public_id)}
        )
    if match.status == Match.Status.PLAYING:
        if watching(WATCH_PAGE):
            card_changed(match)
    elif match.started_at is not None:  # it was played, and is over
        watch_batches.add(
            {"kind": "removed", "id": match.public_id, "html": removal("w", match.public_id)}
        )


def on_spectators_counted(sender, public_id: str, count: int, **kwargs) -> None:
    """A listed match's spectator pages were counted again (one opened or closed): its
    card's "N watching", a small update (the card is not drawn again), while a watch page
    is open. Each socket forwards it only if its page shows that card."""
    if not watching(WATCH_PAGE):
        return
    html = render_to_string("lobby/_card.html#watchers", {"id": public_id, "count": count})
    watch_batches.add({"kind": "watchers", "id": public_id, "html": html})


def challenge_opened(match: Match) -> None:
    row = render_challenge(match, own=False)
    own = render_challenge(match, own=True)
    wrap = '<div hx-swap-oob="beforeend:#challenge-list">{}</div>'
    lobby_batches.add(
        {
            "kind": "added",
            "id": match.public_id,
            # Never sent to a page: each socket asks Challenger.made of its viewer.
            "owner": match.seat1_secret,
            "owner_user": match.seat1_user_id,
            "html": wrap.format(row),
            "own_html": wrap.format(own),
        }
    )
    sweeper.soon()


def card_changed(match: Match) -> None:
    (spectators,) = spectators_of([match])
    card = render_card(match, spectators=spectators)
    # The same card, to replace the one a page shows (drawn once: the attribute added).
    at = f'id="w-{match.public_id}"'
    replace = card.replace(at, f'{at} hx-swap-oob="true"', 1)
    watch_batches.add(
        {
            "kind": "card",
            "id": match.public_id,
            "version": match.version,
            "add": f'<div hx-swap-oob="afterbegin:#watch-list">{card}</div>',
            "replace": replace,
        }
    )


# ---- batches: at most a frame per page every LOBBY_PUSH_EVERY seconds --------------------


def coalesce(events: list[dict]) -> list[dict]:
    """One batch's events, each id's last word kept: a row added then removed within the
    batch is only removed (a page whose snapshot showed it still hears of it), a card
    drawn twice is sent once, the newest."""
    last: dict[tuple, dict] = {}
    for event in events:
        # A card's "N watching" is a word of its own: it never stands for the card.
        key = (event["id"], event["kind"] == "watchers")
        last.pop(key, None)  # the newest goes last, in order
        last[key] = event
    return list(last.values())


class Batches:
    """The changes of one group's list on their way, from any thread, in bursts
    (``games.live.Window``, every LOBBY_PUSH_EVERY seconds), coalesced: a burst of
    challenges costs each page one frame, not one per challenge. Sent by the live layer's
    publisher (games/live.py), from the server's event loop."""

    def __init__(self, group: str, kind: str):
        self.group = group
        self.type = kind  # the consumers' handler: lobby.batch, watch.batch
        self.pending: list[dict] = []
        self.window = Window(lambda: settings.LOBBY_PUSH_EVERY, lambda _: self.flush())

    def add(self, event: dict) -> None:
        self.window.add(self.group, lambda: self.pending.append(event))

    def flush(self) -> None:
        events = self.window.take(self.group, self._taken)
        if events:
            publisher.publish(self.group, {"type": self.type, "events": coalesce(events)})

    def _taken(self) -> list[dict]:
        events, self.pending = self.pending, []
        return events


lobby_batches = Batches(LOBBY_GROUP, "lobby.batch")
watch_batches = Batches(WATCH_GROUP, "watch.batch")


# ---- the sweeper ---------------------------------------------------------------------


class Sweeper:
    """Closes due challenges in this server process, every LOBBY_SWEEP_EVERY seconds,
    while the process has a lobby or watch page open or the last look found challenges
    still open. Every process may run one: closing is idempotent (games.play)."""

    def __init__(self):
        self.task: asyncio.Task | None = None
        self.pages = 0  # lobby and watch sockets open in this process
        self.ticks = 0  # sweeps done (for tests)

    def opened(self) -> None:
        self.pages += 1
        self.start()

    def closed(self) -> None:
        self.pages = max(0, self.pages - 1)

    def soon(self) -> None:
        """From any thread: make sure a sweep will look at a challenge just made."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            loop = server_loop()
            if loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed in between
                    loop.call_soon_threadsafe(self.start)
            return
        self.start()

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            # A context of its own: not the one of whatever request or socket started it
            # (asgiref's thread-sensitive calls would refuse to run from inside theirs).
            self.task = loop.create_task(self._run(), context=contextvars.Context())

    async def _run(self) -> None:
        left = 1
        while self.pages or left:
            await asyncio.sleep(settings.LOBBY_SWEEP_EVERY)
            try:
                left = await database_sync_to_async(sweep_once)()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("lobby sweep failed; trying again", exc_info=True)
            self.ticks += 1


def sweep_once() -> int:
    return challenges.sweep()


sweeper = Sweeper()
