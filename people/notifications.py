"""Notifications: what happened for an account while it may have been away, in the
header's bell (the unread count, live on every page through the inbox socket) and on
/notifications/, and, for the kinds the player chose on the settings page, by Web Push
and by email (people/delivery.py).

A notification is made once, **after** the change that caused it has committed, never
inside the write: a correspondence move's "your turn" and a rated game's result from
games' ``match_changed`` (sent after each committed change), a challenge received or
answered from people/challenges.py's after-commit step, a tournament's start from
tournaments' ``tournament_started`` (sent after the start committed: every entrant at
once, ``notify_many``). One unread notice of a kind about one thing at a time: a second
"your turn" in a game replaces the unread first. The in-site notification is always
made; what goes away from the site is handed to background threads once it is made
(``delivery.send_away``), so that a slow push service or mail server holds nothing.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from games.models import Match
from people import delivery, live
from people.models import Notification

log = logging.getLogger(__name__)

SHOWN = 50  # on /notifications/, the newest first
KEPT = 200  # per account; older ones are dropped as new ones come


def notify(
    user_id: int, kind: str, text: str, url: str, about: str = "", *, tell: bool = True
) -> None:
    """Make one (call after the causing change committed), and tell the account's pages
    (``tell``: unless the caller tells them itself, with more)."""
    notify_many([user_id], kind, text, url, about, tell=tell)


def notify_many(
    user_ids, kind: str, text: str, url: str, about: str = "", *, tell: bool = True
) -> None:
    """The same notification for each of ``user_ids``, in one transaction (a tournament's
    entrants): then their pages are told, and what they chose sent away."""
    ids = sorted(set(user_ids))
    if not ids:
        return
    with transaction.atomic():
        if about:
            Notification.objects.filter(
                user_id__in=ids, kind=kind, about=about, read_at__isnull=True
            ).delete()
        notes = Notification.objects.bulk_create(
            Notification(user_id=i, kind=kind, text=text[:200], url=url[:200], about=about)
            for i in ids
        )
        over = (
            Notification.objects.filter(user_id__in=ids)
            .values("user_id")
            .annotate(n=Count("pk"))
            .filter(n__gt=KEPT)
            .values_list("user_id", flat=True)
        )
        for user_id in list(over):
            old = Notification.objects.filter(user_id=user_id).values_list("pk", flat=True)
            Notification.objects.filter(pk__in=list(old[KEPT:])).delete()
    if tell:
        live.tell(ids)
    try:
        delivery.send_away(notes)
    except Exception:  # the notifications stand; only their sending away failed
        log.exception("could not send notifications away")


def unread_count(user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def latest(user_id: int) -> list[Notification]:
    return list(Notification.objects.filter(user_id=user_id)[:SHOWN])


def mark_read(user_id: int, pk: int | None = None) -> Notification | None:
    """Mark one (``pk``) or all of the account's notifications read; the one, if any."""
    unread = Notification.objects.filter(user_id=user_id, read_at__isnull=True)
    found = None
    if pk is not None:
        found = Notification.objects.filter(user_id=user_id, pk=pk).first()
        unread = unread.filter(pk=pk)
    if unread.update(read_at=timezone.now()):
        live.tell([user_id])
    return found


# ---- from games -----------------------------------------------------------------------------


def match_changed(sender, match: Match, **kwargs) -> None:
    """games.signals.match_changed (after commit): a correspondence game's turn, a rated
    game's result, for the accounts seated in a match between two accounts."""
    users = {seat: match.seat_user_id(seat) for seat in (1, 2)}
    if match.mode != Match.Mode.FRIEND or None in users.values() or users[1] == users[2]:
        return
    try:
        if match.status == Match.Status.PLAYING and match.clock == Match.Clock.CORRESPONDENCE:
            _turn(match, users)
        elif match.status == Match.Status.FINISHED and match.rated:
            _result(match, users)
    except Exception:  # the change stands; a notification is not worth failing it
        log.exception("could not notify about match %s", match.public_id)


def _other_name(match: Match, seat: int) -> str:
    other = match.seat_user(3 - seat)
    return other.get_username() if other is not None else "your opponent"


def _turn(match: Match, users: dict[int, int]) -> None:
    if match.ply == 0:
        return  # nobody has moved yet: the players know whose turn it is
    seat = match.seat_of_player(match.current.to_move)
    told = Notification.objects.filter(
        user_id=users[seat], kind=Notification.Kind.TURN, about=match.public_id
    )
    if match.turn_started_at and told.filter(created_at__gte=match.turn_started_at).exists():
        return  # this turn was told (the change is another: a draw offer, a presence mark)
    text = f"Your turn in {match.rules.title} against {_other_name(match, seat)}."
    notify(users[seat], Notification.Kind.TURN, text, match.get_absolute_url(), match.public_id)


def _result(match: Match, users: dict[int, int]) -> None:
    if Notification.objects.filter(kind=Notification.Kind.RESULT, about=match.public_id).exists():
        return  # told once (a rematch made later changes the match again)
    for seat, user_id in users.items():
        words = match.headline({seat})  # the board's own words: "You win!", "A draw"...
        text = f"{match.rules.title} against {_other_name(match, seat)}, rated: {words}"
        notify(user_id, Notification.Kind.RESULT, text, match.get_absolute_url(), match.public_id)


# ---- from tournaments -----------------------------------------------------------------------


def tournament_started(sender, tournament, user_ids, **kwargs) -> None:
    """tournaments.signals.tournament_started (after commit): each entrant is told."""
    try:
        text = f"The {tournament.name} has started."
        url = tournament.get_absolute_url()
        notify_many(user_ids, Notification.Kind.TOURNAMENT, text, url, tournament.public_id)
    except Exception:  # the start stands
        log.exception("could not notify about tournament %s", tournament.public_id)
