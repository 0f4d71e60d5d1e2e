"""Direct challenges between accounts, and blocks (people/challenges.py writes them).

A challenge is an invitation, not a match: the match is made when it is accepted (by
``games.play.pair_accounts``, as a tournament's pairing is), so a challenge declined,
withdrawn or left to expire leaves no match behind.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Match, new_public_id
from games.rules import get_game

JUST_NOW = timedelta(seconds=60)


class Challenge(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for an answer"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        CANCELLED = "cancelled", "Withdrawn"
        EXPIRED = "expired", "Expired"

    class Reason(models.TextChoices):
        """Why a challenge is declined, as the challenger reads it (lichess's set)."""

        GENERIC = "generic", "Not now, thank you."
        LATER = "later", "Not now: please ask again later."
        TOO_FAST = "too_fast", "That clock is too fast for me."
        TOO_SLOW = "too_slow", "That clock is too slow for me."
        RATED = "rated", "Please send me a rated challenge instead."
        CASUAL = "casual", "Please send me a casual (unrated) challenge instead."
        GAME = "game", "I would rather play another game."

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    game = models.CharField(max_length=40)
    options = models.JSONField(default=dict, blank=True)
    time_control = models.JSONField(default=dict, blank=True)  # as create_match takes it
    rated = models.BooleanField(default=False)
    first = models.CharField(max_length=10, choices=Match.First.choices, default=Match.First.ME)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    reason = models.CharField(max_length=10, choices=Reason.choices, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["challenged", "status"]),
            models.Index(fields=["challenger", "status"]),
        ]

    def __str__(self) -> str:
        return f"{self.challenger} challenges {self.challenged} ({self.game}, {self.status})"

    @property
    def rules(self):
        return get_game(self.game)

    def is_open(self, now=None) -> bool:
        """Waiting for an answer and not expired (an open row past its time reads as expired:
        nothing has to sweep it)."""
        return self.status == self.Status.OPEN and (now or timezone.now()) < self.expires_at

    @property
    def shown_status(self) -> str:
        if self.status == self.Status.OPEN and not self.is_open():
            return self.Status.EXPIRED
        return self.status

    @property
    def just_accepted(self) -> bool:
        """Accepted moments ago (a bot answers at once: the challenger, reaching the
        challenges page after the answer, is still taken to the game, once: site.js)."""
        return (
            self.status == self.Status.ACCEPTED
            and self.answered_at is not None
            and timezone.now() - self.answered_at < JUST_NOW
        )

    @property
    def clock_text(self) -> str:
        control = self.time_control or {}
        if control.get("clock") == Match.Clock.CORRESPONDENCE:
            days = control.get("days", 0)
            return f"correspondence, {days} day{'s' if days != 1 else ''} a move"
        if control.get("clock") == Match.Clock.REALTIME:
            return f"{control.get('base', 0) // 60}+{control.get('increment', 0)}"
        return "no clock"

    @property
    def terms(self) -> str:
        """What is offered, in words: the game, its clock, rated or not."""
        kind = "rated" if self.rated else "casual"
        return f"{self.rules.title}, {self.clock_text}, {kind}"

    @classmethod
    def lifetime(cls) -> timedelta:
        return timedelta(seconds=settings.CHALLENGE_TTL)


class Block(models.Model):
    """``blocker`` takes no challenges from ``blocked`` (and, later, no messages)."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="one_block_a_pair")
        ]

    def __str__(self) -> str:
        return f"{self.blocker} blocks {self.blocked}"


class Follow(models.Model):
    """``follower`` follows ``followed``: listed among the follower's friends, with whether
    they are online and what they are playing (people/friends.py)."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="one_follow_a_pair")
        ]

    def __str__(self) -> str:
        return f"{self.follower} follows {self.followed}"


class Notification(models.Model):
    """Something that happened for an account while it may have been away: made after the
    change that caused it has committed (people/notifications.py), shown in the header's
    bell and on /notifications/."""

    class Kind(models.TextChoices):
        TURN = "turn", "Your turn"
        CHALLENGE = "challenge", "A challenge"
        ANSWER = "answer", "A challenge answered"
        RESULT = "result", "A rated game's result"
        TOURNAMENT = "tournament", "A tournament you joined starts"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    text = models.CharField(max_length=200)
    url = models.CharField(max_length=200)
    # What it is about (a match's or a challenge's public id): one unread notice of a kind
    # about one thing at a time (a second "your turn" in one game replaces the first).
    about = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"to {self.user}: {self.text}"


class NotificationPreference(models.Model):
    """Which kinds of notification also reach the account away from the site: by Web Push
    (``push``: to every device it turned push on for) and by email (``email``: only when
    the site can send email and the account has an address). Kinds are
    ``Notification.Kind`` values; an account without a row gets neither (people/delivery.py).
    The first device turned on while no kind is chosen for push chooses them all."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="notification_preference",
    )
    push = models.JSONField(default=list, blank=True)
    email = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user}: push {self.push}, email {self.email}"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (its ``PushSubscription.toJSON()``), owned by
    the account last signed in there that turned push on (people/push.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.CharField(max_length=1024, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's P-256 public key, base64url
    auth = models.CharField(max_length=40)  # its 16-byte authentication secret, base64url
    user_agent = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    last_success_at = models.DateTimeField(null=True, blank=True)
    # Failed sends since the last success (a timeout, a refused connection, a 5xx...);
    # a push service's 404 or 410 (gone) deletes the row instead.
    failures = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"push to {self.user} ({self.user_agent[:40] or 'a browser'})"


class VapidKey(models.Model):
    """The site's VAPID key pair when BITSITE_VAPID_PRIVATE_KEY is not set: made once, on
    first need, and kept here so that it survives a restart and every process of the site
    shares it (every subscription is made for its public key). One row, pk 1."""

    private_key = models.CharField(max_length=100)  # the raw 32-byte key, base64url
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return "the site's VAPID key"
