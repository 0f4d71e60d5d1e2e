"""How fast one browser, and one address, may create matches, join, act and open sockets.

Counted with django-ratelimit in Django's cache (Redis with REDIS_URL, so every server
process counts together; process memory otherwise). Each action has two limits, both
from the environment (settings.RATE_LIMITS): one per session (a browser) and one per
client address. The defaults are far above what a person playing does. Loopback
addresses are not counted per address (settings.RATE_LIMIT_EXEMPT): a proxy on the same
host, or a load test, sends everything from there; run daphne behind a proxy with
``--proxy-headers`` so that the client's own address is the one counted.

If the cache cannot be reached, nothing is limited (bitsite/redis_guard.py).
"""

from __future__ import annotations

from types import SimpleNamespace

from django.conf import settings
from django_ratelimit.core import get_usage

from bitsite import redis_guard

TOO_FAST = "That was faster than anyone plays: wait a few seconds, then try again."

ACTIONS = ("create", "join", "move", "socket", "lobby", "analysis", "solve", "chat")


def wait(group: str, checks: list[tuple[str, str]], *, count: bool = True, service: str) -> int:
    """Seconds until one more request is within every ``(key, rate)`` of ``checks``,
    counted in django-ratelimit's ``group`` (0: it is now). ``count``: the request is
    counted (else only looked at: would one more be within them?). The one counter of the
    site's limits (this module's actions, the API's tokens); if the cache cannot be reached,
    nothing is limited and ``service`` names what is not (bitsite/redis_guard.py)."""
    if not redis_guard.available():
        return 0  # Redis is being left alone after a failure: not limiting
    probe = SimpleNamespace(META={}, method="POST")
    try:
        for value, rate in checks:
            usage = get_usage(
                probe, group=group, key=lambda g, r, value=value: value, rate=rate, increment=count
            )
            if usage is None:
                continue
            over = usage["should_limit"] if count else usage["count"] >= usage["limit"]
            if over:
                return max(1, usage["time_left"])
    except Exception as error:  # the cache is unreachable: let the request through
        redis_guard.failed(service, error)
        return 0
    redis_guard.answered()
    return 0


def counted_address(address: str) -> bool:
    """Whether limits per client address count this one (loopback: RATE_LIMIT_EXEMPT)."""
    return bool(address) and address not in settings.RATE_LIMIT_EXEMPT


def _wait(action: str, session_key: str | None, address: str, count: bool = True) -> int:
    """Seconds until a request of ``action`` from this session and address is within its
    limits (0: it is now); ``count`` as for ``wait``."""
    per_session, per_address = settings.RATE_LIMITS[action]
    checks = []
    if session_key:
        checks.append(("session:" + session_key, per_session))
    if counted_address(address):
        checks.append(("address:" + address, per_address))
    return wait(f"bitsite.{action}", checks, count=count, service="rate limits")


def _over(request, action: str, session_key: str | None, address: str) -> bool:
    return _wait(action, session_key, address) > 0


def _session_key(request) -> str | None:
    return request.session.session_key if hasattr(request, "session") else None


def retry_after(request, action: str, *, count: bool = True, browser: str | None = None) -> int:
    """Seconds until ``action`` is within its limits for this request (0: it is now), for
    a Retry-After header. ``count``: count this request, as ``over_limit`` does; without,
    only look (is one more allowed?): for a cost known once the work is done, looked at
    before it and counted after it (``charge``)."""
    key = browser if browser is not None else _session_key(request)
    return _wait(action, key, request.META.get("REMOTE_ADDR", ""), count)


def charge(request, action: str) -> None:
    """Count one more of ``action`` for this request, deciding nothing."""
    retry_after(request, action)


def over_limit(request, action: str, *, browser: str | None = None) -> bool:
    """Count this request against ``action``'s limits; True when it goes past one.
    ``browser``: what the per-browser limit counts by, when not the session (for actions
    that start a new session: games.browsers.browser_key)."""
    return retry_after(request, action, browser=browser) > 0


def socket_over_limit(scope, session_key: str | None, action: str = "socket") -> bool:
    """The same for a websocket (its address from the ASGI scope): one that opens
    (``socket``), or an action one sends as a frame (a move over the match's socket counts
    against ``move`` as its POST does)."""
    client = scope.get("client") or ("", 0)
    return _over(None, action, session_key, client[0] or "")
