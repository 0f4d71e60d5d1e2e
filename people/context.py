"""The header's challenge badge on every page of a signed-in player: one count query,
made only when a template shows it (the value is a callable, which the template
language calls when it reads it: a partial answer, a pushed board, costs nothing). The
page's inbox socket keeps it current (people/live.py)."""

from __future__ import annotations

from functools import partial


def inbox(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from people.challenges import waiting_count
    from people.notifications import unread_count

    return {
        "challenges_waiting": partial(waiting_count, user.pk),
        "notifications_unread": partial(unread_count, user.pk),
    }
