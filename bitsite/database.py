"""When PostgreSQL's connection pool has no connection to give: 503, try again later.

On PostgreSQL each server process keeps a pool of at most ``DJANGO_DB_POOL_SIZE``
connections (bitsite/settings.py), and a request waits at most ``DJANGO_DB_POOL_TIMEOUT``
seconds for one. A burst larger than the pool can serve in that time (two hundred racing
joins) used to end in 500s ("couldn't get a connection after 5.00 sec"). It is an
overload, not an error: the request is answered 503 with ``Retry-After``, and a
websocket is closed with 4503 (its page tries again).

- ``PoolMiddleware`` takes the request's connection first, before the session, the
  account or the view touch the database (a request keeps its connection to its end, in
  its own thread), so a request that gets none is refused before any work; a view that
  still meets an empty pool is answered the same way (``process_exception``). /healthz
  is left to say what is down in its own words.
- ``pool_exhausted(error)``: whether an exception is the pool's "none to give", for
  whoever else takes connections (the websocket consumers' database threads, which take
  one for each call): refuse with 4503 then.
"""

from __future__ import annotations

import logging

from django.core.exceptions import MiddlewareNotUsed
from django.db import DatabaseError, connection
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.functional import cached_property

log = logging.getLogger(__name__)

RETRY_AFTER = 2  # seconds: the Retry-After of a 503 for want of a connection

try:
    from psycopg_pool import PoolTimeout, TooManyRequests

    POOL_ERRORS: tuple[type[BaseException], ...] = (PoolTimeout, TooManyRequests)
except ImportError:  # no PostgreSQL pool installed: nothing can run out
    POOL_ERRORS = ()


def pooled() -> bool:
    """Whether the default database takes its connections from a pool (PostgreSQL)."""
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


def pool_exhausted(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it: Django wraps the driver's errors) is the
    pool's refusal to give a connection in time."""
    seen = set()
    while error is not None and id(error) not in seen:
        if POOL_ERRORS and isinstance(error, POOL_ERRORS):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def busy_response() -> HttpResponse:
    """503 with Retry-After, and a page that says to try again (rendered without the
    request: its session is in the database this request could not reach)."""
    response = HttpResponse(render_to_string("503.html", {"retry_after": RETRY_AFTER}))
    response.status_code = 503
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class PoolMiddleware:
    """Take the request's database connection before anything needs it; none within the
    pool's timeout is a 503 (see the module's docstring). Not used without a pool."""

    def __init__(self, get_response):
        if not pooled():
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info != self.health_path:
            try:
                connection.ensure_connection()
            except DatabaseError as error:
                # Any other error (PostgreSQL refuses the connection) is met by what reads
                # the database, as without this middleware.
                if pool_exhausted(error):
                    return self.refuse(request, error)
        return self.get_response(request)

    @cached_property
    def health_path(self) -> str:
        """/healthz says what is down itself, in its own words (bitsite/health.py)."""
        return reverse("healthz")

    def process_exception(self, request, exception):
        if pool_exhausted(exception):
            return self.refuse(request, exception)
        return None

    def refuse(self, request, error) -> HttpResponse:
        log.warning(
            "503 for %s %s: no database connection free in time (%s)",
            request.method,
            request.path,
            error.__cause__ or error,
        )
        return busy_response()
