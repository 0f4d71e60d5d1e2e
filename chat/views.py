"""The chats' three forms: say, mute the other player, report a message. With htmx each
answers with the room's panel (the message, or why not, on it); without JavaScript with
the match page (POST-redirect-GET, the message flashed)."""

from __future__ import annotations

from django.contrib import messages as flash
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from chat import rooms, talk
from chat.models import Room
from chat.panel import render_panel
from games import limits
from games.http import see_other
from games.limits import TOO_FAST
from games.models import Match
from games.rights import viewer_from_session


def _answer(request, match, viewer, room, *, notice="", level="info", status=200, **extra):
    if request.htmx:
        html = render_panel(
            match, viewer, request, room, notice=notice, notice_level=level, **extra
        )
        return HttpResponse(html, status=status)
    if notice:
        (flash.error if level == "error" else flash.info)(request, notice)
    return see_other(f"{match.get_absolute_url()}#chat-{room}")


def _limited(request) -> bool:
    return limits.over_limit(request, "chat")


@require_POST
def say(request, public_id, room):
    match = get_object_or_404(Match, public_id=public_id)
    viewer = viewer_from_session(request.session, match)
    shown = room if room in rooms.rooms_read(match, viewer) else None
    if _limited(request):
        return _answer(
            request,
            match,
            viewer,
            shown or Room.PLAYERS,
            notice=TOO_FAST,
            level="error",
            status=429,
            kept_text=request.POST.get("text", "")[:200],
        )
    try:
        talk.say(
            match,
            viewer,
            request.user,
            room,
            request.POST.get("text", ""),
            request.META.get("REMOTE_ADDR"),
        )
    except talk.Refused as refusal:
        if shown is None:
            return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain")
        return _answer(
            request,
            match,
            viewer,
            room,
            notice=refusal.message,
            level="error",
            status=refusal.status,
            kept_text=request.POST.get("text", "")[:200],
        )
    return _answer(request, match, viewer, room, sent=True)


@require_POST
def mute(request, public_id):
    match = get_object_or_404(Match, public_id=public_id)
    viewer = viewer_from_session(request.session, match)
    muted = request.POST.get("muted") == "1"
    try:
        talk.set_mute(match, viewer, muted)
    except talk.Refused as refusal:
        return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain")
    notice = (
        "You no longer read the other player's messages in this match."
        if muted
        else "You read the other player's messages again."
    )
    return _answer(request, match, viewer, Room.PLAYERS, notice=notice)


@require_POST
def report(request, public_id, pk):
    match = get_object_or_404(Match, public_id=public_id)
    viewer = viewer_from_session(request.session, match)
    read = rooms.rooms_read(match, viewer)
    if _limited(request):
        if not read:
            return HttpResponse(TOO_FAST, status=429, content_type="text/plain")
        return _answer(request, match, viewer, read[0], notice=TOO_FAST, level="error", status=429)
    try:
        made = talk.report(match, viewer, request.user, pk, request.POST.get("reason", ""))
    except talk.Refused as refusal:
        if not read:
            return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain")
        level = "info" if refusal.status == 409 else "error"
        return _answer(
            request,
            match,
            viewer,
            read[0],
            notice=refusal.message,
            level=level,
            status=refusal.status,
        )
    return _answer(
        request,
        match,
        viewer,
        made.message.room,
        notice="Thank you: the moderators will read this message and what was said around it.",
    )
