"""Direct challenges between accounts, and blocks: the one write path of both.

A signed-in player challenges another by name (from the other's player page, or from
My games): the game, its options, the clock, rated or not, who moves first. The
challenged player accepts (the match is made then, ``games.play.pair_accounts``, and
both land in it), or declines with a reason the challenger reads; the challenger may
withdraw it; after ``CHALLENGE_TTL`` seconds unanswered it reads as expired (nothing
sweeps it: an open row past its time is refused and listed as expired).

Refused, with a message and nothing changed: challenging oneself or an unknown or
inactive account, a player who blocked you (or whom you blocked), a second open
challenge to the same player, more than ``MAX_OPEN`` open challenges sent, answering a
challenge that is not yours or no longer open, a rated challenge between a bot and a
human who has not let bots challenge them to rated games (``rated_with_bots``: for every
transport, the site's pages and the API alike; bot against bot may be rated, and a casual
challenge is always possible).

Each change is told, after it commits, to both accounts' open pages (people/live.py).
"""

from __future__ import annotations

import logging
import secrets

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import bots
from bitsite import locks
from games import play
from games.models import Match
from games.play import Seat
from people import live, signals
from people.models import Block, Challenge, Follow

MAX_OPEN = 5  # open challenges one player may have sent at once
CHALLENGES_URL = "/challenges/"

log = logging.getLogger(__name__)


class Refused(Exception):
    """A challenge or block refused: ``message`` says why; ``status`` is the HTTP answer."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.message = message
        self.status = status


def _told(*users, notices=(), challenge: Challenge | None = None) -> None:
    """After the change commits: the notifications it makes (``notices``: the arguments of
    people.notifications.notify), then both accounts' open pages are told, then the apps
    built on people (signals.challenge_changed, for a change of ``challenge``)."""
    ids = sorted({u.pk if hasattr(u, "pk") else u for u in users})

    def committed():
        from people import notifications

        for args in notices:
            try:
                notifications.notify(*args, tell=False)
            except Exception:  # the change stands
                log.exception("could not make a notification")
        live.tell(ids)
        if challenge is not None:
            for receiver, result in signals.challenge_changed.send_robust(
                sender=Challenge, challenge=challenge, user_ids=ids
            ):
                if isinstance(result, Exception):
                    log.error("challenge_changed receiver %r failed", receiver, exc_info=result)

    transaction.on_commit(committed)


# ---- blocks ---------------------------------------------------------------------------------


def blocked_by(user, other) -> bool:
    return Block.objects.filter(blocker=user, blocked=other).exists()


def blocked_between(user, other) -> bool:
    """Has either of the two blocked the other? (No challenge, follow or chat between them.)"""
    return Block.objects.filter(
        Q(blocker=other, blocked=user) | Q(blocker=user, blocked=other)
    ).exists()


def block(user, other) -> None:
    """``user`` blocks ``other``: no challenge from them; their open ones are withdrawn."""
    if user.pk == other.pk:
        raise Refused("You cannot block yourself.", 400)
    with transaction.atomic():
        try:
            with transaction.atomic():
                Block.objects.create(blocker=user, blocked=other)
        except IntegrityError:
            return  # already blocked: nothing changes
        now = timezone.now()
        Challenge.objects.filter(
            Q(challenger=other, challenged=user) | Q(challenger=user, challenged=other),
            status=Challenge.Status.OPEN,
        ).update(status=Challenge.Status.CANCELLED, answered_at=now)
        # Nor do they follow each other any more.
        Follow.objects.filter(
            Q(follower=other, followed=user) | Q(follower=user, followed=other)
        ).delete()
        _told(user, other)


def unblock(user, other) -> None:
    Block.objects.filter(blocker=user, blocked=other).delete()


# ---- challenges -----------------------------------------------------------------------------


def rated_with_bots(acting, challenger, challenged) -> None:
    """Refuse a rated game between a bot and a human who has not said yes to them
    (their settings: Profile.rated_against_bots). ``acting``: who sends or accepts."""
    challenger_bot, challenged_bot = bots.is_bot(challenger), bots.is_bot(challenged)
    if challenger_bot == challenged_bot:
        return
    human = challenged if challenger_bot else challenger
    if bots.rates_against_bots(human):
        return
    if human.pk == acting.pk:
        raise Refused(
            "You do not play rated games against bots (you can say yes in your settings): "
            "make it a casual challenge.",
            403,
        )
    raise Refused(
        f"{human.get_username()} does not play rated games against bots; send a casual challenge.",
        403,
    )


def send(
    challenger,
    challenged,
    *,
    game: str,
    options: dict,
    time_control: dict,
    rated: bool,
    first: str = Match.First.ME,
) -> Challenge:
    if challenger.pk == challenged.pk:
        raise Refused("You cannot challenge yourself.", 400)
    if not challenged.is_active:
        raise Refused("That account is closed.", 404)
    name = challenged.get_username()
    with transaction.atomic():
        locks.hold(f"challenges-sent-by:{challenger.pk}")  # count, then insert: one at a time
        if blocked_by(challenged, challenger):
            raise Refused(f"{name} does not take challenges from you.", 403)
        if blocked_by(challenger, challenged):
            raise Refused(f"You blocked {name}: unblock them to challenge them.", 403)
        if rated:
            rated_with_bots(challenger, challenger, challenged)
        now = timezone.now()
        open_sent = Challenge.objects.filter(
            challenger=challenger, status=Challenge.Status.OPEN, expires_at__gt=now
        )
        if open_sent.filter(challenged=challenged).exists():
            raise Refused(
                f"You have already challenged {name}: wait for the answer, or withdraw it.",
            )
        if open_sent.count() >= MAX_OPEN:
            raise Refused(
                f"You have {MAX_OPEN} challenges waiting for an answer: withdraw one first.",
                429,
            )
        challenge = Challenge.objects.create(
            challenger=challenger,
            challenged=challenged,
            game=game,
            options=options,
            time_control=time_control,
            rated=rated,
            first=first,
            created_at=now,
            expires_at=now + Challenge.lifetime(),
        )
        text = f"{challenger.get_username()} challenges you: {challenge.terms}."
        _told(
            challenger,
            challenged,
            notices=[(challenged.pk, "challenge", text, CHALLENGES_URL, challenge.public_id)],
            challenge=challenge,
        )
    return challenge


def _open_one(public_id: str) -> Challenge:
    """The challenge, its row locked (inside a write)."""
    challenge = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenger__profile", "challenged__profile")
        .filter(public_id=public_id)
        .first()
    )
    if challenge is None:
        raise Refused("There is no such challenge.", 404)
    if not challenge.is_open():
        said = {
            Challenge.Status.ACCEPTED: "It has already been accepted.",
            Challenge.Status.DECLINED: "It has already been declined.",
            Challenge.Status.CANCELLED: "It was withdrawn.",
        }.get(challenge.status, "It has expired.")
        raise Refused(f"That challenge is no longer open. {said}")
    return challenge


def accept(public_id: str, user) -> Challenge:
    """The challenged player accepts: the match is made, both are seated, it begins."""

    def change() -> Challenge:
        challenge = _open_one(public_id)
        if challenge.challenged_id != user.pk:
            raise Refused("Only the player challenged can accept it.", 403)
        challenger, challenged = challenge.challenger, challenge.challenged
        if challenge.rated:
            rated_with_bots(user, challenger, challenged)
        first = challenge.first
        if first == Match.First.RANDOM:
            first = secrets.choice([Match.First.ME, Match.First.OPPONENT])
        seats = [
            Seat(challenger, challenger.profile.token),
            Seat(challenged, challenged.profile.token),
        ]
        if first == Match.First.OPPONENT:
            seats.reverse()
        match = play.pair_accounts(
            challenge.game,
            first=seats[0],
            second=seats[1],
            options=challenge.options,
            time_control=challenge.time_control,
            rated=challenge.rated,
        )
        challenge.status = Challenge.Status.ACCEPTED
        challenge.answered_at = timezone.now()
        challenge.match = match
        challenge.save(update_fields=["status", "answered_at", "match"])
        text = f"{challenged.get_username()} accepted your challenge: {challenge.terms}."
        notice = (challenger.pk, "answer", text, match.get_absolute_url(), challenge.public_id)
        _told(challenger, challenged, notices=[notice], challenge=challenge)
        return challenge

    return play.write(change)


def decline(public_id: str, user, reason: str) -> Challenge:
    if reason not in Challenge.Reason.values:
        raise Refused("Choose why you decline it.", 400)
    with transaction.atomic():
        challenge = _open_one(public_id)
        if challenge.challenged_id != user.pk:
            raise Refused("Only the player challenged can decline it.", 403)
        challenge.status = Challenge.Status.DECLINED
        challenge.reason = reason
        challenge.answered_at = timezone.now()
        challenge.save(update_fields=["status", "reason", "answered_at"])
        text = f"{user.get_username()} declined your challenge: “{challenge.get_reason_display()}”"
        notice = (challenge.challenger_id, "answer", text, CHALLENGES_URL, challenge.public_id)
        _told(
            challenge.challenger_id, challenge.challenged_id, notices=[notice], challenge=challenge
        )
    return challenge


def cancel(public_id: str, user) -> Challenge:
    """The challenger withdraws it."""
    with transaction.atomic():
        challenge = _open_one(public_id)
        if challenge.challenger_id != user.pk:
            raise Refused("Only the player who sent it can withdraw it.", 403)
        challenge.status = Challenge.Status.CANCELLED
        challenge.answered_at = timezone.now()
        challenge.save(update_fields=["status", "answered_at"])
        _told(challenge.challenger_id, challenge.challenged_id, challenge=challenge)
    return challenge


# ---- reading --------------------------------------------------------------------------------


def received_open(user_id: int):
    return Challenge.objects.filter(
        challenged_id=user_id, status=Challenge.Status.OPEN, expires_at__gt=timezone.now()
    )


def waiting_count(user_id: int) -> int:
    """The challenges waiting for this account's answer (the header's badge)."""
    return received_open(user_id).count()


RECENT = 10


def lists(user_id: int) -> dict:
    """What the challenges page shows the account: received and sent, open first, then the
    latest answered (the newest RECENT of each)."""
    related = ("challenger__profile", "challenged__profile", "match")  # profiles: the BOT mark
    received = list(
        Challenge.objects.filter(challenged_id=user_id).select_related(*related)[:RECENT]
    )
    sent = list(Challenge.objects.filter(challenger_id=user_id).select_related(*related)[:RECENT])
    return {"received": received, "sent": sent, "reasons": Challenge.Reason.choices}
