"""A match's two chats, kept with the match: the players' (both seats, anonymous seats
included) and the spectators' (accounts only). chat/rooms.py says who may read and write
each; chat/talk.py is the one write path."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Match

MAX_LENGTH = 140  # characters in a message, as lichess has it


class Room(models.TextChoices):
    PLAYERS = "players", "Players"
    SPECTATORS = "spectators", "Spectators"


class Message(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    room = models.CharField(max_length=10, choices=Room.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # the author's, players' room
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="chat_messages",
    )
    name = models.CharField(max_length=80)  # as it was shown
    text = models.CharField(max_length=MAX_LENGTH)
    address = models.GenericIPAddressField(null=True, blank=True)  # for moderation only
    created_at = models.DateTimeField(default=timezone.now)
    # Hidden by a moderator: shown to nobody (kept for the record).
    hidden = models.BooleanField(default=False)
    # Written while its account was muted site-wide: seen by its author only.
    shadowed = models.BooleanField(default=False)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["match", "room", "created_at"])]

    def __str__(self) -> str:
        return f"{self.name}: {self.text}"


class Mute(models.Model):
    """In one match, the player of ``seat`` no longer reads the other player's messages."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_mutes")
    seat = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="one_mute_a_seat")]

    def __str__(self) -> str:
        return f"seat {self.seat} mutes the other in {self.match_id}"


class Silence(models.Model):
    """An account muted in every chat until ``until`` by a moderator: what it writes
    meanwhile is seen by nobody else."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_silences"
    )
    until = models.DateTimeField()
    reason = models.CharField(max_length=200, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-until"]
        indexes = [models.Index(fields=["user", "until"])]

    def __str__(self) -> str:
        return f"{self.user} muted until {self.until:%Y-%m-%d %H:%M}"

    @classmethod
    def active_for(cls, user_id: int | None) -> Silence | None:
        if not user_id:
            return None
        return cls.objects.filter(user_id=user_id, until__gt=timezone.now()).first()


class Report(models.Model):
    """A message reported by someone who read it, with the messages around it as they were
    when it was reported (``context``), for the moderators (the admin)."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", "Insult or harassment"
        SPAM = "spam", "Spam or advertising"
        CHEATING = "cheating", "Talk of cheating"
        OTHER = "other", "Something else"

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_reports")
    reason = models.CharField(max_length=10, choices=Reason.choices)
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="chat_reports",
    )
    by_name = models.CharField(max_length=80)  # who reported, as they were shown
    context = models.JSONField(default=list)  # the messages around it, as they were
    created_at = models.DateTimeField(default=timezone.now)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["resolved", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["message", "by_name"], name="one_report_a_reader")
        ]

    def __str__(self) -> str:
        return f"report of {self.message_id} by {self.by_name} ({self.reason})"
