"""The chats under a match's board (registered with games.extras): on the page, each room
this viewer reads, with its form; in a socket's first frame, the rooms' logs as its kind
reads them; under the replay, the rooms kept, read-only."""

from __future__ import annotations

from django.template.loader import render_to_string

from chat import live, rooms
from chat.models import MAX_LENGTH, Room
from games.models import Match
from games.rights import Viewer


def panel_context(match: Match, viewer: Viewer, request, room: str, **extra) -> dict:
    user = getattr(request, "user", None)
    who, why_not = rooms.writer(match, viewer, user, room)
    seat = rooms.players_seat(match, viewer) if room == Room.PLAYERS else None
    other_joined = seat is not None and bool(match.seat_secret_hash(3 - seat))
    mute = live.muted(match, seat)  # read once: the log drawn below and the mute button
    return {
        "match": match,
        "room": room,
        "title": rooms.TITLES[room],
        "messages": live.messages_for(match, room, viewer, mute=mute),
        "seat": seat,
        "may_write": who is not None,
        "why_not": why_not,
        "max_length": MAX_LENGTH,
        "may_mute": other_joined,
        "muted": mute,
        "may_report": seat is not None or (user is not None and user.is_authenticated),
        **extra,
    }


def render_panel(match: Match, viewer: Viewer, request, room: str, **extra) -> str:
    context = panel_context(match, viewer, request, room, **extra)
    return render_to_string("chat/_panel.html", context, request=request)


class ChatPanel:
    def page(self, match: Match, viewer: Viewer, request) -> str:
        return "".join(
            render_panel(match, viewer, request, room) for room in rooms.rooms_read(match, viewer)
        )

    def socket(self, match: Match, viewer: Viewer) -> str:
        return "".join(
            live.log_html(match, room, viewer, oob=True) for room in rooms.rooms_read(match, viewer)
        )

    def replay(self, match: Match, viewer: Viewer, request) -> str:
        parts = []
        for room in rooms.rooms_replayed(match, viewer):
            messages = live.messages_for(match, room, viewer)
            if messages:
                parts.append(
                    render_to_string(
                        "chat/_replayed.html",
                        {
                            "match": match,
                            "room": room,
                            "title": rooms.TITLES[room],
                            "messages": messages,
                        },
                        request=request,
                    )
                )
        return "".join(parts)
