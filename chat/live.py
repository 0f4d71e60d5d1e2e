"""The chats, live: after a change of a room commits, its log is drawn once for each kind
of viewer that reads it (the two seats each get their own: a mute, a muted account's own
words) and sent to that kind's group of the match (games.live.send_fragment); every
match socket forwards it as it is. Each push carries the room's whole recent log, so a
page that missed one is right again with the next, and a socket that opens gets the same
log with its board (chat/panel.py)."""

from __future__ import annotations

import logging

from django.db import transaction
from django.template.loader import render_to_string

from chat import rooms
from chat.models import Message, Mute, Room
from games.live import send_fragment
from games.models import Match
from games.rights import Viewer

SHOWN = 100  # the newest messages of a room a page shows

log = logging.getLogger(__name__)


def muted(match: Match, seat: int | None) -> bool:
    """Whether the player in ``seat`` has muted the other (None: not a player)."""
    return seat is not None and Mute.objects.filter(match=match, seat=seat).exists()


def messages_for(
    match: Match, room: str, viewer: Viewer, *, mute: bool | None = None
) -> list[Message]:
    """The newest messages of ``room`` as this kind of viewer reads them, oldest first
    (``mute``: whether this viewer's seat muted the other, if the caller has read it)."""
    seen = Message.objects.filter(match=match, room=room, hidden=False)
    seat = rooms.players_seat(match, viewer) if room == Room.PLAYERS else None
    if seat is None:
        seen = seen.filter(shadowed=False)
    else:
        # A muted account's words reach its author only; a player who muted the other
        # reads only their own.
        seen = seen.exclude(shadowed=True, seat=3 - seat)
        if muted(match, seat) if mute is None else mute:
            seen = seen.exclude(seat=3 - seat)
    return list(seen.order_by("-created_at", "-pk")[:SHOWN])[::-1]


def log_html(match: Match, room: str, viewer: Viewer, *, oob: bool = False) -> str:
    return render_to_string(
        "chat/_log.html",
        {
            "match": match,
            "room": room,
            "messages": messages_for(match, room, viewer),
            "oob": oob,
            "seat": rooms.players_seat(match, viewer) if room == Room.PLAYERS else None,
        },
    )


def room_changed(match: Match, room: str, kinds: list[Viewer] | None = None) -> None:
    """After the change commits: draw the room's log for each kind reading it, and send."""

    def committed():
        for viewer in kinds if kinds is not None else rooms.kinds_reading(match, room):
            try:
                html = log_html(match, room, viewer, oob=True)
            except Exception:
                log.exception("could not draw the %s chat of %s", room, match.public_id)
                continue
            send_fragment(match.public_id, viewer.key, f"chat-{room}", html)

    transaction.on_commit(committed)
