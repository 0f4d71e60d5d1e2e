"""Making, checking and revoking personal access tokens (api/models.py)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from api.models import Scope, Token
from bitsite import locks

PREFIX = "bit_"
MAX_ACTIVE = 20  # tokens one account may hold at once
TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often


class Refused(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def create(user, name: str, scopes: list[str]) -> tuple[Token, str]:
    """A new token for ``user``: the row, and the token itself (shown once, never kept)."""
    name = " ".join(name.split())[:60]
    if not name:
        raise Refused("Give the token a name, to tell it apart.")
    chosen = [scope for scope in Scope.values if scope in scopes]
    if not chosen or len(chosen) != len(set(scopes)):
        raise Refused("Choose at least one scope: read, play or challenge.")
    with transaction.atomic():
        locks.hold(f"tokens-of:{user.pk}")  # count, then insert: one at a time
        if Token.objects.filter(user=user, revoked_at=None).count() >= MAX_ACTIVE:
            raise Refused(f"You have {MAX_ACTIVE} tokens: revoke one first.")
        text = PREFIX + secrets.token_urlsafe(32)
        token = Token.objects.create(
            user=user, name=name, digest=digest(text), prefix=text[:8], scopes=chosen
        )
    return token, text


def find(text: str) -> Token | None:
    """The active token ``text`` is, with its account; None for a bad or revoked one."""
    if not text.startswith(PREFIX) or len(text) > 100:
        return None
    token = (
        Token.objects.select_related("user__profile")
        .filter(digest=digest(text), revoked_at=None, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        Token.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def stands(pk: int, scope: str | None, bot: bool) -> bool:
    """Whether token ``pk`` still acts as it did when a stream opened with it: not revoked,
    its account active and a bot or not as it was, and still holding ``scope``."""
    token = (
        Token.objects.filter(pk=pk, revoked_at=None, user__is_active=True)
        .values("scopes", "user__profile__is_bot")
        .first()
    )
    if token is None or bool(token["user__profile__is_bot"]) != bot:
        return False
    return scope is None or scope in token["scopes"]


def revoke(user, pk: int) -> Token | None:
    token = Token.objects.filter(user=user, pk=pk, revoked_at=None).first()
    if token is not None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
