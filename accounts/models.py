"""An account's own secret: the seats it holds, on every device it is signed in on.

A browser holds a seat by the secret in its session (games/boards.session_token); an
account's seats are held by the account's secret, which signing in puts into the session
(accounts/signin.py). The secret is never shown, not even in the admin: it is as good as
the password for moving in the account's matches.

A profile also keeps what the account's user name reads as (``name_look``), so that no
display name and no other account's user name passes for it (games/names.py). Every account
has a profile: one is made (or its look brought up to date) whenever a user is saved.

A bot account (``is_bot``, accounts/bots.py) plays only through the API; a human lets bots
challenge them to rated games with ``rated_against_bots``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import new_secret


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    token = models.CharField(
        "seat secret", max_length=64, unique=True, default=new_secret, editable=False
    )
    # What the user name reads as (games.names.look): no other name may read the same.
    name_look = models.CharField(max_length=150, db_index=True, default="", editable=False)
    # A bot plays only through the API; made one on the settings page, never made human again.
    is_bot = models.BooleanField("bot", default=False, db_index=True, editable=False)
    bot_since = models.DateTimeField(null=True, blank=True, editable=False)
    # A human's choice: bots may challenge them to rated games.
    rated_against_bots = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"profile of {self.user}"


class Device(models.Model):
    """A browser signed in to an account: its session, kept so that the account's
    settings page can list where it is signed in and sign the others out. Written when
    it signs in (``user_logged_in``), removed when it signs out or is signed out; a row
    whose session expired is dropped when the list is next read (accounts/devices.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="devices"
    )
    session_key = models.CharField(max_length=40, unique=True)
    signed_in_at = models.DateTimeField(auto_now_add=True)
    user_agent = models.CharField(max_length=200, blank=True, default="")
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-signed_in_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user} on {self.user_agent[:40] or 'a browser'}"
