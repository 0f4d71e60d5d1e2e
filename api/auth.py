"""Who an API request acts for: a personal access token, by its scope, and its limits.

Only the ``Authorization: Bearer <token>`` header authenticates: session cookies never
do (so CSRF does not apply, and a page of another site cannot act through a visitor's
browser). A missing, bad or revoked token is a 401, a token without the scope an
endpoint needs a 403, a token over its rate a 429: JSON errors (api/errors.py).
Public reads (a player's profile, a game's export) need no token, but a bad one given
is still a 401.
"""

from __future__ import annotations

from types import SimpleNamespace

from django.conf import settings
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from api import tokens
from api.errors import ApiError
from games import limits

ANONYMOUS = SimpleNamespace(user=None, pk=None, scopes=(), anonymous=True)


def _limit(request, token) -> None:
    """Count the request against its token's rate, then its address's (429 past them)."""
    per_token, per_address = settings.API_RATE
    address = request.META.get("REMOTE_ADDR", "")
    checks = [(f"token:{token.digest[:24]}", per_token)] if token.pk else []
    if limits.counted_address(address):
        checks.append((f"address:{address}", per_address))
    wait = limits.wait("bitsite.api", checks, service="API rate limits")
    if wait:
        raise ApiError(
            429, "rate_limited", f"Too many requests: try again in {wait} s.", retry_after=wait
        )


def _guessing(request, *, count: bool) -> None:
    """Requests with a bad token, per client address (``settings.API_BAD_TOKENS``): 429
    once there were too many. ``count``: one more bad token (else only looked at)."""
    address = request.META.get("REMOTE_ADDR", "")
    if not limits.counted_address(address):
        return
    checks = [(f"address:{address}", settings.API_BAD_TOKENS)]
    wait = limits.wait("bitsite.api-bad-token", checks, count=count, service="API rate limits")
    if wait and not count:
        raise ApiError(
            429,
            "rate_limited",
            _("Too many requests with a bad token: try again in %(seconds)s s.")
            % {"seconds": wait},
            retry_after=wait,
        )


class TokenAuth(HttpBearer):
    """A bearer token with ``scope`` (``None``: any valid token; ``public``: no token
    needed, but one given must be valid)."""

    def __init__(self, scope: str | None = None, *, public: bool = False):
        super().__init__()
        self.scope = scope
        self.public = public

    def __call__(self, request):
        if not request.headers.get(self.header):
            if self.public:
                _limit(request, ANONYMOUS)
                return ANONYMOUS
            raise ApiError(
                401,
                "no_token",
                "This needs a personal access token: Authorization: Bearer <token>.",
            )
        return super().__call__(request)

    def authenticate(self, request, token: str):
        _guessing(request, count=False)  # too many bad tokens from here: not even looked up
        found = tokens.find(token.strip())
        if found is None:
            _guessing(request, count=True)
            raise ApiError(401, "bad_token", "That token is not valid: it is unknown or revoked.")
        if self.scope and not found.allows(self.scope):
            raise ApiError(
                403,
                "out_of_scope",
                f"That token lacks the “{self.scope}” scope: make one with it on your "
                "settings page.",
            )
        _limit(request, found)
        return found


public = TokenAuth(public=True)
read = TokenAuth("read")
play = TokenAuth("play")
challenge = TokenAuth("challenge")
