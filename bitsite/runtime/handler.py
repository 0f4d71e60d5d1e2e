"""The ``sync_chain`` hook: Django's ASGI handler, with the middleware run as one
synchronous chain.

Every view of the site is synchronous, and so is most middleware (Django's own is written
for both modes, through ``MiddlewareMixin``). Django's ``ASGIHandler`` builds its chain for
the async mode, so such a chain crosses between the event loop and a thread twice for each
middleware that is not written async-first (``process_request`` and ``process_response``
each through ``sync_to_async``) and again around any that is sync-only: about a dozen
thread hops per request, which a profile of a plain GET showed to be most of its cost.
Here the chain is built for the sync mode and the whole of it runs in the request's
thread in one hop, as under WSGI; the rest (reading the body, sending the response, the
request signals, one thread per request) is Django's ASGI handler unchanged.

As that thread ends with the request, the database connections it opened are closed when
the response is ready (CONN_MAX_AGE keeps the long-lived threads' connections: the
consumers' and the SQLite writer's). Left open, each became garbage with its thread and
was closed by the garbage collector, in its pauses.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import connections


class SyncChainASGIHandler(ASGIHandler):
    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self._respond, thread_sensitive=True)(request)

    def _respond(self, request):
        try:
            return self.get_response(request)
        finally:
            close_connections()


def close_connections() -> None:
    """The request's thread ends with the request: its database connections close with it
    (a connection left open would be closed by the garbage collector, in its pauses)."""
    for connection in connections.all(initialized_only=True):
        connection.close()
