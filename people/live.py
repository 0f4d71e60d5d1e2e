"""A player's inbox, live: the header's challenge badge on every page, and the
challenges page's lists, drawn once per change for each account concerned.

Every page of a signed-in player holds one small socket (``/ws/me/``; the challenges
page ``/ws/me/challenges/``: people/consumers.py), a member of the account's expiring
set of open inbox pages (games.presence.store, as My games keeps its pages). After a
change of a challenge commits (people/challenges.py), ``tell`` draws, for each account
concerned with an inbox page open, its badge and its lists, once, and sends them to the
account's group through games' live layer; each socket forwards them (the lists only to
a challenges page). An account with no page open costs nothing.
"""

from __future__ import annotations

import logging

from django.template.loader import render_to_string

from games import presence
from games.live import publisher
from games.sockets import Shared

log = logging.getLogger(__name__)


def group_name(user_id: int) -> str:
    return f"inbox.{user_id}"


def pages_set(user_id: int) -> str:
    return f"inbox:{user_id}"


def lists_set(user_id: int) -> str:
    """The account's open challenges pages (a subset of its inbox pages)."""
    return f"inbox-lists:{user_id}"


def watching(user_ids: list[int]) -> list[tuple[int, bool]]:
    """Those of ``user_ids`` with an inbox page open, each with whether one of them is a
    challenges page (which shows the lists), in one round trip (all, both, if unknown)."""
    counts = presence.counts(
        [pages_set(uid) for uid in user_ids] + [lists_set(uid) for uid in user_ids]
    )
    if counts is None:
        return [(uid, True) for uid in user_ids]
    pages, lists = counts[: len(user_ids)], counts[len(user_ids) :]
    return [
        (uid, bool(listed))
        for uid, open_, listed in zip(user_ids, pages, lists, strict=True)
        if open_
    ]


def render_badge(user_id: int) -> str:
    """The header's two marks: the challenges waiting, the notifications unread."""
    from people.challenges import waiting_count
    from people.notifications import unread_count

    return render_to_string("people/_badge.html", {"waiting": waiting_count(user_id)}) + (
        render_to_string("people/_bell.html", {"unread": unread_count(user_id)})
    )


def render_lists(user_id: int) -> str:
    from people.challenges import lists

    return render_to_string("people/_lists.html", {**lists(user_id), "viewer_id": user_id})


def snapshot(user_id: int, *, with_lists: bool) -> tuple[str, int]:
    """What an inbox page shows now (its badge; a challenges page, its lists too), and
    when it was read (``Shared.step``)."""
    at = Shared.step()
    html = render_badge(user_id)
    if with_lists:
        html += render_lists(user_id)
    return html, at


def tell(user_ids: list[int]) -> None:
    """After a change of a challenge commits: each concerned account's open pages."""
    for user_id, listed in watching(user_ids):
        try:
            at = Shared.step()
            # The lists only for an account with a challenges page open.
            badge, lists = render_badge(user_id), render_lists(user_id) if listed else ""
        except Exception:  # the change stands; the page catches up on its next sync
            log.exception("could not draw the inbox of account %s", user_id)
            continue
        publisher.publish(
            group_name(user_id), {"type": "inbox.changed", "at": at, "badge": badge, "lists": lists}
        )
