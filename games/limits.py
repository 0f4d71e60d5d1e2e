"""How fast one browser, one account, one address or one token may act: the site's one rate
limiter, for the pages, the sockets and the API.

Counted in a moving window (the ``limits`` library's ``MovingWindowRateLimiter``): a limit of
8 in 10 s means at most 8 in any 10 s, a burst across the end of a window included (a
fixed window lets twice the figure through there). The counts live in Redis with
``REDIS_URL``, so every server process counts together, and in the process's memory
otherwise (``LocalWindows``). Each action has two limits, from the environment
(settings.RATE_LIMITS): per session (a browser) and per client address; chat is counted per
account too. No address is exempt unless ``BITSITE_RATE_EXEMPT`` names it (a load test on
the same host); behind a proxy, run daphne with ``--proxy-headers`` so that the client's own
address is the one counted. A request refused is not counted.

If Redis cannot be reached, nothing is limited (bitsite/redis_guard.py).
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import deque
from functools import lru_cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from limits import (
    RateLimitItem,
    RateLimitItemPerDay,
    RateLimitItemPerHour,
    RateLimitItemPerMinute,
    RateLimitItemPerSecond,
)
from limits.storage import MovingWindowSupport, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

from bitsite import redis_guard

TOO_FAST = "That was faster than anyone plays: wait a few seconds, then try again."

ACTIONS = ("create", "join", "move", "socket", "lobby", "analysis", "solve", "chat")

_UNITS = {
    "s": RateLimitItemPerSecond,
    "m": RateLimitItemPerMinute,
    "h": RateLimitItemPerHour,
    "d": RateLimitItemPerDay,
}
_RATE = re.compile(r"\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*")


@lru_cache(maxsize=256)
def rate(text: str) -> RateLimitItem:
    """``N/u`` or ``N/ku`` (``u`` one of s, m, h, d: ``8/10s``, ``60/m``) as a limit."""
    found = _RATE.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a rate: N/s, N/m, N/h, N/d or N/10s")
    amount, multiples, unit = found.groups()
    return _UNITS[unit](int(amount), int(multiples or 1))


class LocalWindows(Storage, MovingWindowSupport):
    """Moving windows in this process's memory (one server process: the embedded default).

    The ``limits`` library's own memory storage starts a thread to expire its entries
    after almost every hit; these are expired as they are read, and the keys left idle
    are swept on the way, at most once a minute: no thread, nothing a request waits for.
    """

    STORAGE_SCHEME = ["bitsite-local"]
    SWEEP = 60.0  # seconds between sweeps of idle keys

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.lock = threading.Lock()
        self.windows: dict[str, deque[float]] = {}  # newest hit first
        self.expiries: dict[str, float] = {}
        self.swept = time.time()

    @property
    def base_exceptions(self):
        return ValueError

    def _live(self, key: str, expiry: float, now: float) -> deque[float]:
        window = self.windows.setdefault(key, deque())
        while window and window[-1] <= now - expiry:
            window.pop()
        self.expiries[key] = now + expiry
        if now - self.swept > self.SWEEP:
            self.swept = now
            for idle in [k for k, until in self.expiries.items() if until <= now]:
                self.windows.pop(idle, None)
                self.expiries.pop(idle, None)
        return window

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        now = time.time()
        with self.lock:
            window = self._live(key, expiry, now)
            if len(window) + amount > limit:
                return False
            window.extendleft([now] * amount)
            return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = time.time()
        with self.lock:
            window = self._live(key, expiry, now)
            return (window[-1] if window else now), len(window)

    # The fixed-window calls of the interface (unused here: every limit is a moving one).

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("LocalWindows keeps moving windows only")

    def get(self, key: str) -> int:
        with self.lock:
            window = self.windows.get(key)
            return len(window) if window else 0

    def get_expiry(self, key: str) -> float:
        return self.expiries.get(key, time.time())

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        with self.lock:
            count = len(self.windows)
            self.windows.clear()
            self.expiries.clear()
            return count

    def clear(self, key: str) -> None:
        with self.lock:
            self.windows.pop(key, None)
            self.expiries.pop(key, None)


_limiter: MovingWindowRateLimiter | None = None
_made = threading.Lock()


def limiter() -> MovingWindowRateLimiter:
    """The process's limiter, on Redis (``REDIS_URL``) or in its memory."""
    global _limiter
    with _made:
        if _limiter is None:
            if settings.REDIS_URL:
                storage = RedisStorage(
                    settings.REDIS_URL,
                    key_prefix="bitsite:limits",
                    socket_timeout=1.0,
                    socket_connect_timeout=1.0,
                )
            else:
                storage = LocalWindows()
            _limiter = MovingWindowRateLimiter(storage)
        return _limiter


@receiver(setting_changed)
def _forget(setting, **kwargs) -> None:
    """A test that changes where the counts live gets a limiter there."""
    global _limiter
    if setting == "REDIS_URL":
        with _made:
            _limiter = None


def wait(group: str, checks: list[tuple[str, str]], *, count: bool = True, service: str) -> int:
    """Seconds until one more request is within every ``(key, rate)`` of ``checks``,
    counted under ``group`` (0: it is now). ``count``: the request is counted, if it is
    within them all (else only looked at: would one more be within them?). If Redis cannot
    be reached, nothing is limited and ``service`` names what is not."""
    remote = bool(settings.REDIS_URL)  # only Redis can fail; the process's memory cannot
    if not checks or (remote and not redis_guard.available()):
        return 0
    found = limiter()
    items = [(rate(text), key) for key, text in checks]
    try:
        for item, key in items:
            if not found.test(item, group, key):
                return _until(found, item, group, key)
        if count:
            for item, key in items:
                if not found.hit(item, group, key):  # taken meanwhile by another request
                    return _until(found, item, group, key)
    except Exception as error:  # Redis is unreachable: let the request through
        if not remote:
            raise
        redis_guard.failed(service, error)
        return 0
    if remote:
        redis_guard.answered()
    return 0


def _until(found: MovingWindowRateLimiter, item: RateLimitItem, *identifiers: str) -> int:
    """Whole seconds until the oldest hit in the window leaves it (at least 1)."""
    stats = found.get_window_stats(item, *identifiers)
    return max(1, math.ceil(stats.reset_time - time.time()))


def counted_address(address: str) -> bool:
    """Whether limits per client address count this one (not in ``RATE_LIMIT_EXEMPT``)."""
    return bool(address) and address not in settings.RATE_LIMIT_EXEMPT


def _wait(
    action: str, session_key: str | None, address: str, count: bool = True, account=None
) -> int:
    """Seconds until a request of ``action`` from this session, address (and account, for
    the actions limited per account too) is within its limits (0: it is now); ``count``
    as for ``wait``."""
    per_session, per_address = settings.RATE_LIMITS[action]
    checks = []
    if session_key:
        checks.append(("session:" + session_key, per_session))
    if account is not None and action in PER_ACCOUNT:
        checks.append((f"account:{account}", per_session))
    if counted_address(address):
        checks.append(("address:" + address, per_address))
    return wait(f"bitsite.{action}", checks, count=count, service="rate limits")


# Counted per account as well as per browser (an account signed in on many browsers, from
# many addresses, is one person): at the per-browser figure.
PER_ACCOUNT = frozenset({"chat"})


def _session_key(request) -> str | None:
    return request.session.session_key if hasattr(request, "session") else None


def _account(request):
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def retry_after(request, action: str, *, count: bool = True, browser: str | None = None) -> int:
    """Seconds until ``action`` is within its limits for this request (0: it is now), for
    a Retry-After header. ``count``: count this request, as ``over_limit`` does; without,
    only look (is one more allowed?): for a cost known once the work is done, looked at
    before it and counted after it (``charge``)."""
    key = browser if browser is not None else _session_key(request)
    address = request.META.get("REMOTE_ADDR", "")
    return _wait(action, key, address, count, account=_account(request))


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
    user = scope.get("user")
    account = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    return _wait(action, session_key, client[0] or "", account=account) > 0
