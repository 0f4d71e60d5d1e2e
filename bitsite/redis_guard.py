"""Whether Redis answers, as one view shared by everything that asks it in this process.

Django's cache (sessions read through it, the rate limits) and the presence sets talk to
Redis with short timeouts. When a call fails, Redis is left alone for ``BACK_OFF``
seconds: every user of it falls back at once (sessions to the database, rate limits to
not limiting, presence to unknown) instead of each waiting for its own timeout, so a
hung Redis costs a request at most one timeout. The outage is logged once, and its end.
"""

from __future__ import annotations

import logging
import time

log = logging.getLogger("bitsite.redis")

BACK_OFF = 2.0
_until = 0.0
_down = False


def available() -> bool:
    """False while Redis is being left alone after a failure."""
    return time.monotonic() >= _until


def failed(what: str, error: BaseException) -> None:
    global _until, _down
    if not _down:
        log.warning("Redis is unreachable (%s: %r): falling back until it answers", what, error)
    _down = True
    _until = time.monotonic() + BACK_OFF


def answered() -> None:
    global _down
    if _down:
        _down = False
        log.warning("Redis answers again")


def reset() -> None:
    """Forget any failure (tests)."""
    global _until, _down
    _until, _down = 0.0, False
