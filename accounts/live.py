"""My games, live: each change of a match is drawn once for each account seated in it.

games.signals.match_changed comes after every committed change of a match (created,
joined, moved in, ended, its rematch made). For each account holding a seat in it (at
most two; one for a game on one device) that has a My games page open, the ongoing list
is read and drawn once, and sent to that account's group through games' live layer
(games.live.publisher: never holds up the request, keeps the newest message through a
Redis outage). Every socket of the account forwards it (accounts/consumers.py); the
page swaps it in by its id, as a match page swaps a pushed board. When the match ended,
the message also asks each page to read its finished list again, with its own filters.

Who has a My games page open is kept as games' presence is, in sets whose members expire
(games.presence.store): an account with no page open costs nothing per change. If the
store cannot be read, every seated account's list is drawn.
"""

from __future__ import annotations

import logging

from accounts import my_games
from bitsite import redis_guard
from games import presence
from games.live import publisher
from games.models import Match

log = logging.getLogger(__name__)


def group_name(user_id: int) -> str:
    """The group of an account's My games pages."""
    return f"mygames.{user_id}"


def watchers_set(user_id: int) -> str:
    """The expiring set of an account's open My games sockets."""
    return f"mygames:{user_id}"


def watched(user_ids: list[int]) -> list[int]:
    """Those of ``user_ids`` with a My games page open (all of them, if that cannot be
    known)."""
    if not redis_guard.available():
        return user_ids
    try:
        counts = presence.store().counts([watchers_set(uid) for uid in user_ids])
    except Exception as error:
        redis_guard.failed("my games, reading who watches", error)
        return user_ids
    redis_guard.answered()
    return [uid for uid, count in zip(user_ids, counts, strict=True) if count]


def match_changed(sender, match: Match, **kwargs) -> None:
    """games.signals.match_changed: draw the account's ongoing list once for each seated
    account watching, and send it to that account's pages."""
    user_ids = sorted({uid for uid in (match.seat1_user_id, match.seat2_user_id) if uid})
    if not user_ids:
        return
    ended = match.status == Match.Status.FINISHED
    for user_id in watched(user_ids):
        _push(user_id, finished_changed=ended)


def seats_claimed(user_id: int) -> None:
    """A sign-in took a browser's seats into the account: its pages open elsewhere list
    them (both lists: some of those matches may be over)."""
    if watched([user_id]):
        _push(user_id, finished_changed=True)


def _push(user_id: int, *, finished_changed: bool) -> None:
    try:
        html, read_at = my_games.render_ongoing(user_id, finished_changed=finished_changed)
    except Exception:  # the change stands; the page catches up on its next sync
        log.exception("could not draw the games of account %s", user_id)
        return
    publisher.publish(group_name(user_id), {"type": "games.changed", "at": read_at, "html": html})
