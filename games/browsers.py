"""A browser's seat secret: made once, kept before any seat is written, one per browser.

A browser holds its seats by the secret in its session (``session["token"]``, 192 random
bits, never in a URL); a visit makes no session, the first seat a browser takes does.
Every view that writes a seat (create, join, accept, "Play anyone") asks
``seat_token(request)``, which

- saves the session before the write path writes the seat, so a seat is never held by a
  secret that no session kept (a failed save refuses the request; it writes nothing);
- gives two first requests of one browser that race (a double click on a form before the
  first answer set the session cookie) the same secret. Each arrives without a secret,
  and each would make a session of its own: whichever cookie the browser kept, the other
  request's seat would be held by a session it no longer has, and the second could even
  take the first's lobby challenge, pairing the browser with itself. Both carry the
  browser's CSRF cookie (every POST must), so the first to ask notes its new secret under
  that cookie's hash in the sessions' cache for ``FIRST_SECRET_NOTE`` seconds (an atomic
  ``cache.add``) and the other takes it: both sessions hold the one secret, as two devices
  of an account do, and the write path, which serialises the writes, sees one browser.

Without the cache (Redis unreachable) each request keeps its own secret, as before. A
signed-in session always holds its account's secret (accounts/signin.py).
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches

from games.models import hash_secret, new_secret

# How long a browser's first secret is offered to its other first requests (they race
# within a second; kept short, since whoever knows the browser's CSRF cookie could ask).
FIRST_SECRET_NOTE = 10


def signed_in_user(request):
    """The account signed in on this browser, or None (a visitor, or a request that came
    before the authentication middleware)."""
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def seat_token(request) -> str:
    """This browser's secret, made on first use (one for racing first requests) and saved
    in its session before the caller writes a seat with it."""
    session = request.session
    token = session.get("token")
    if token:
        return token
    token = new_secret()
    browser = request.COOKIES.get(settings.CSRF_COOKIE_NAME) or session.session_key
    if browser:
        cache = caches[settings.SESSION_CACHE_ALIAS]
        note = f"bitsite:first-secret:{hash_secret(browser)}"
        if not cache.add(note, token, timeout=FIRST_SECRET_NOTE):
            token = cache.get(note) or token  # a racing first request's
    session["token"] = token
    session.save()
    return token


# ---- the name a browser plays under ----------------------------------------------------
# Every form that takes a seat (new match, join, accept, "Play anyone") has a name field;
# the name last used is kept in the session and prefills the next one. The write path
# decides what a seat is called (games.play.display_name: an account's name on a rated
# match, never another account's user name).
NAME_KEY = "name"


def remembered_name(request) -> str:
    """What this browser's name fields are prefilled with: the name it last played under,
    else a signed-in player's user name."""
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    return request.session.get(NAME_KEY) or (user.get_username()[:40] if signed_in else "")


def typed_name(request, typed: str | None) -> str:
    """The name typed in a form; a signed-in player who typed none goes by their account's."""
    user = getattr(request, "user", None)
    typed = str(typed or "")
    if not typed.strip() and user is not None and user.is_authenticated:
        return user.get_username()
    return typed


def remember_name(request, name: str) -> None:
    """Keep the name a seat was taken under (as the write path cleaned it) for next time."""
    if name and request.session.get(NAME_KEY) != name:
        request.session[NAME_KEY] = name


# ---- a browser's key for rate limits, across its sessions ---------------------------------

BROWSER_COOKIE = "bitsite_browser"
_BROWSER_SALT = "bitsite.browser"
BROWSER_COOKIE_AGE = 365 * 24 * 3600


def browser_key(request) -> str:
    """What identifies this browser for the limits counted per browser that outlast a
    session: signing in or out starts a new session (and a new CSRF cookie), so a count
    kept by session let one browser sign up thirty accounts. A random key in a signed
    cookie of its own (``keep_browser_key`` sets it); a browser without it gets a new one,
    and one that throws its cookies away still meets the per-address limit."""
    key = getattr(request, "_browser_key", None)
    if key is None:
        key = request.get_signed_cookie(BROWSER_COOKIE, default=None, salt=_BROWSER_SALT)
        if not key or len(key) > 64:
            key = new_secret()[:22]
        request._browser_key = key
    return key


def keep_browser_key(request, response):
    """The browser keeps its key (a year, HttpOnly, secure as the session cookie is)."""
    response.set_signed_cookie(
        BROWSER_COOKIE,
        browser_key(request),
        salt=_BROWSER_SALT,
        max_age=BROWSER_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response
