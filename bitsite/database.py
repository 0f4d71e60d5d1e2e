"""When PostgreSQL's connection pool has no connection to give: 503, try again later.

On PostgreSQL each server process keeps a pool of at most ``DJANGO_DB_POOL_SIZE``
connections (bitsite/settings.py), and a request waits at most ``DJANGO_DB_POOL_TIMEOUT``
seconds for one. A burst larger than the pool can serve in that time (two hundred racing
joins) used to end in 500s ("couldn't get a connection after 5.00 sec"). It is an
overload, not an error: the request is answered 503 with ``Retry-After`` and a page that
says to try again (and a websocket should be closed with 4503: its page tries again).

A request takes a connection when it first reads the database (a page that needs none,
a theory page, holds none), wherever that is:

- in a view: ``PoolMiddleware.process_exception``;
- in a middleware (the session read by the account's, ``accounts/signin.py``): the 500
  handler (``server_error``, bitsite/urls.py), which Django calls while it handles the
  exception, in the thread that raised it.

One gap is left: without the ``sync_chain`` hook (``BITSITE_HOOKS``), Django handles an
exception raised by a middleware written for both modes (the session's save, when it is
a request's first write) in another thread, where the 500 handler cannot see it.

``pool_exhausted(error)`` tells the pool's "none to give" from other errors, for whoever
else takes connections (the websocket consumers' database threads, which take one for
each call): refuse with 4503 then. ``bitsite/logs.py`` logs such a 503 in one line.
"""

from __future__ import annotations

import logging
import sys

from django.core.exceptions import MiddlewareNotUsed
from django.db import connection
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

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


def busy_response(request, error: BaseException) -> HttpResponse:
    """503 with Retry-After, and a page that says to try again (rendered without the
    request: its session may be in the database this request could not reach)."""
    log.warning(
        "503 for %s %s: no database connection free in time (%s)",
        request.method,
        request.path,
        error.__cause__ or error,
    )
    response = HttpResponse(render_to_string("503.html", {"retry_after": RETRY_AFTER}))
    response.status_code = 503
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def server_error(request):
    """handler500: an empty pool is a 503; anything else Django's own 500 page."""
    error = sys.exc_info()[1]
    if pool_exhausted(error):
        return busy_response(request, error)
    return defaults.server_error(request)


class PoolMiddleware:
    """A view that meets an empty pool is answered 503 (see the module's docstring). Not
    used without a pool."""

    def __init__(self, get_response):
        if not pooled():
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if pool_exhausted(exception):
            return busy_response(request, exception)
        return None
