"""Pushes to the browsers watching a match, through the channel layer.

The write path calls ``match_changed`` from ``transaction.on_commit``: a change
that rolls back pushes nothing. Each consumer in the match's group then renders
the board for its own viewer (see games/consumers.py).
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def group_name(public_id: str) -> str:
    return f"match.{public_id}"


def match_changed(public_id: str, version: int) -> None:
    """Tell every open page of this match that it changed. Never raises: the change is
    committed, and a page that misses a push resyncs when it reconnects."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            group_name(public_id), {"type": "match.changed", "version": version}
        )
    except Exception:
        log.exception("could not push match %s version %s", public_id, version)


def viewer_changed(public_id: str) -> None:
    """A viewer's preferences changed (hints): the match's sockets read their sessions again."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(public_id), {"type": "viewer.changed"})
    except Exception:
        log.exception("could not tell match %s that a viewer changed", public_id)
