"""Signing in takes the browser's seats into the account.

A browser holds its seats by the secret in its session (``session["token"]``). On every
sign-in (the site's, the sign-up's and the admin's: Django's ``user_logged_in``), the
seats held by that secret are re-keyed to the account's secret and given to the account
(games.play.claim_seats: never a seat that already has an account, nor one of a friend's
match whose other seat is the account's, which the page then names), and the account's
secret goes into the session. So every device signed into an account holds the same
seats, with no other change to how seats are checked. Signing out flushes the session:
the browser holds nothing any more.

A bot account (accounts/bots.py) plays only through the API: its sign-in on the web claims
no seat and puts a secret of the session's own into it, never the account's, so the web
holds none of the bot's seats.

A session signed in before accounts held seats (staff signed into the admin) gets the
same treatment on its next request (``AccountTokenMiddleware``): the session remembers
which account its secret belongs to, so a request costs nothing more once it is right.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.db import IntegrityError

from accounts import live
from accounts.models import Profile
from games import play
from games.models import new_secret

# The session's note of the account whose secret ``session["token"]`` is (its user id as
# the session stores it under SESSION_KEY).
ACCOUNT_KEY = "token_of"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


def profile_of(user) -> Profile:
    """The account's profile, made on first use (accounts made in the admin or by
    ``createsuperuser`` have none until they first sign in)."""
    try:
        return user.profile
    except Profile.DoesNotExist:
        pass
    try:
        profile, _ = Profile.objects.get_or_create(user=user)
    except IntegrityError:  # made meanwhile by a sign-in on another device
        profile = Profile.objects.get(user=user)
    user.profile = profile
    return profile


def take_seats(session, user) -> play.Claimed:
    """The seats this session's browser holds become ``user``'s, and the session holds the
    account's secret from now on. Returns what was claimed, and what was left: a seat of a
    friend's match whose other seat is the account's (games.play.claim_seats)."""
    profile = profile_of(user)
    held = session.get("token")
    claimed = play.Claimed()
    if profile.is_bot:  # the web holds none of a bot's seats, and takes none into it
        signed_in_as_bot(session, user)
        return claimed
    if held and held != profile.token:
        claimed = play.claim_seats(held, account_token=profile.token, user=user)
        if claimed.seats:
            live.seats_claimed(user.pk)
    session["token"] = profile.token
    session[ACCOUNT_KEY] = user._meta.pk.value_to_string(user)
    return claimed


def signed_in_as_bot(session, user) -> None:
    """A bot's session holds a secret of its own, which holds no seat: never the
    account's (accounts/bots.py)."""
    session["token"] = new_secret()
    session[ACCOUNT_KEY] = user._meta.pk.value_to_string(user)


def left_behind(claimed: play.Claimed, user) -> str:
    """What the player reads when signing in left a seat behind (empty when none was)."""
    if not claimed.left:
        return ""
    name = user.get_username()
    named = ", ".join(f"{m.rules.title} {m.get_absolute_url()}" for m in claimed.left[:5])
    return (
        f"{name} already holds the other seat of {named}: one account never plays both "
        f"sides of a match, so this browser's seat there was not moved to {name}, and this "
        "browser no longer holds it."
    )


def _tell(request, claimed: play.Claimed, user) -> None:
    message = left_behind(claimed, user)
    if message:
        messages.warning(request, message, fail_silently=True)


def on_login(sender, request, user, **kwargs):
    """``user_logged_in``: the session has just been given to ``user`` (django.contrib.auth
    keeps an anonymous session's data through a sign-in, and starts an empty one when
    another account was signed in)."""
    if request is not None and hasattr(request, "session"):
        _tell(request, take_seats(request.session, user), user)


class AccountTokenMiddleware:
    """A signed-in request always carries its account's secret. Only a session whose note
    does not match its signed-in account (signed in before accounts held seats) is looked
    at further; a page read (GET) of a session that is right costs nothing more.

    A signed-in request that changes something (a POST: a move, a resignation) has its
    session checked as Django checks it (the account's password hash), so a session that
    a password change signed out is flushed before it acts: its seats go with it. Pages
    check it anyway (the header names the account)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = request.session
        signed_in = session.get(SESSION_KEY)
        if signed_in is not None:
            if session.get(ACCOUNT_KEY) != signed_in:
                user = request.user  # checks the session's password hash
                if user.is_authenticated:
                    _tell(request, take_seats(session, user), user)
            elif request.method not in SAFE_METHODS:
                request.user.is_authenticated  # noqa: B018  (a stale session is flushed)
        return self.get_response(request)
