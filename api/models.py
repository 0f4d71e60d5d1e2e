"""Personal access tokens: how a program acts for an account through the API (api/).

A token is shown once, when it is made; the database keeps only its SHA-256 digest and
its first characters (to tell tokens apart on the settings page). Each has scopes: what
it may do (``read``: the account's own data and streams; ``play``: moves and the other
acts of a game it plays; ``challenge``: send and answer challenges).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Scope(models.TextChoices):
    READ = "read", "Read: your account, your games, your event stream"
    PLAY = "play", "Play: moves, resign, draws, aborts and claims in your games"
    CHALLENGE = "challenge", "Challenge: send, accept and decline challenges"


class Token(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60, help_text="What it is for, to tell it apart.")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False)  # shown: "bit_AbC1"
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def allows(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def scope_labels(self) -> list[str]:
        return [Scope(scope).name.lower() for scope in self.scopes if scope in Scope.values]
