"""The one write path of the chats: say, mute, report, hide. Each change is pushed, after
it commits, to the pages that read its room (chat/live.py); nothing here waits for the
channel layer.

Refused, with a sentence and nothing changed: an empty message or one over
``MAX_LENGTH`` characters, a writer the room does not take (chat/rooms.py), an account
muted site-wide writing where only others would read it, a report of a message the
reporter cannot read or already reported. How often one browser and one address may
write is limited in the views (games/limits.py, action "chat").
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from chat import live, rooms
from chat.models import MAX_LENGTH, Message, Mute, Report, Room, Silence
from games.models import Match
from games.rights import Viewer

AROUND = 5  # messages kept on each side of a reported one


class Refused(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


_SPACES = re.compile(r"\s+")


def clean(text: str) -> str:
    """One line of text as it will be kept: no control or format characters (bidi
    overrides, zero-width joiners...), runs of spaces made one, trimmed."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    return _SPACES.sub(" ", kept).strip()


def say(match: Match, viewer: Viewer, user, room: str, text: str, address: str | None) -> Message:
    if room not in Room.values:
        raise Refused("There is no such chat.", 404)
    text = clean(text or "")
    if not text:
        raise Refused("Write something first.")
    if len(text) > MAX_LENGTH:
        raise Refused(f"A message holds at most {MAX_LENGTH} characters ({len(text)} written).")
    who, why_not = rooms.writer(match, viewer, user, room)
    if who is None:
        raise Refused(why_not, 403)
    silence = Silence.active_for(who.user.pk if who.user is not None else None)
    if silence is not None and room == Room.SPECTATORS:
        raise Refused(
            "Your account is muted in chat until "
            f"{silence.until.astimezone(UTC):%Y-%m-%d %H:%M} UTC.",
            403,
        )
    message = Message.objects.create(
        match=match,
        room=room,
        seat=who.seat,
        user=who.user,
        name=who.name[:80],
        text=text,
        address=address or None,
        shadowed=silence is not None,
    )
    live.room_changed(match, room)
    return message


def set_mute(match: Match, viewer: Viewer, muted: bool) -> None:
    """The player of this page stops (or starts again) reading the other player."""
    seat = rooms.players_seat(match, viewer)
    if seat is None:
        raise Refused("Only a player of this match can mute the other.", 403)
    if muted:
        try:
            with transaction.atomic():
                Mute.objects.create(match=match, seat=seat)
        except IntegrityError:
            return  # muted already
    elif not Mute.objects.filter(match=match, seat=seat).delete()[0]:
        return
    live.room_changed(match, Room.PLAYERS, kinds=[Viewer(frozenset({seat}))])


def report(match: Match, viewer: Viewer, user, pk: int, reason: str) -> Report:
    if reason not in Report.Reason.values:
        raise Refused("Choose why you report this message.")
    message = Message.objects.filter(pk=pk, match=match, hidden=False, shadowed=False).first()
    if message is None or message.room not in rooms.rooms_read(match, viewer):
        raise Refused("There is no such message here.", 404)
    if message.room == Room.PLAYERS:
        seat = rooms.players_seat(match, viewer)
        if message.seat == seat:
            raise Refused("That message is yours.", 400)
        by_name = match.seat_name(seat) or f"Player {match.player_of_seat(seat)}"
        by_user = user if user is not None and user.is_authenticated else None
    else:
        if user is None or not user.is_authenticated:
            raise Refused("Sign in to report a message of the spectators' chat.", 403)
        by_name, by_user = user.get_username(), user
    if by_user is not None:
        by_name = by_user.get_username()
    around = Message.objects.filter(match=match, room=message.room)
    before = list(around.filter(created_at__lte=message.created_at).order_by("-created_at", "-pk"))
    before = [m for m in before if m.pk != message.pk][:AROUND][::-1]
    after = list(around.filter(created_at__gte=message.created_at).exclude(pk=message.pk))
    context = [_kept(m, reported=m.pk == message.pk) for m in [*before, message, *after[:AROUND]]]
    try:
        with transaction.atomic():
            return Report.objects.create(
                message=message,
                match=match,
                reason=reason,
                by_user=by_user,
                by_name=by_name[:80],
                context=context,
            )
    except IntegrityError:
        raise Refused(
            "You reported this message already: the moderators will read it.", 409
        ) from None


def _kept(m: Message, *, reported: bool) -> dict:
    return {
        "id": m.pk,
        "at": m.created_at.isoformat(),
        "name": m.name,
        "account": m.user.get_username() if m.user_id else None,
        "seat": m.seat,
        "text": m.text,
        "hidden": m.hidden,
        "reported": reported,
    }


# ---- moderation (the admin) ------------------------------------------------------------------


def hide(messages, hidden: bool = True) -> int:
    """Hide (or show again) these messages; their rooms' pages are drawn again."""
    changed = 0
    for message in messages.select_related("match"):
        if message.hidden != hidden:
            Message.objects.filter(pk=message.pk).update(hidden=hidden)
            live.room_changed(message.match, message.room)
            changed += 1
    return changed


def silence(user, hours: float, reason: str, by) -> Silence:
    """Mute an account in every chat for ``hours``."""
    until = timezone.now() + timedelta(hours=hours)
    return Silence.objects.create(user=user, until=until, reason=reason[:200], by=by)
