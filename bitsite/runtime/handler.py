"""The ``sync_chain`` hook: Django's ASGI handler, with the middleware run as one
synchronous chain.

Every view of the site is synchronous, and so is most middleware (Django's own is written
for both modes, through ``MiddlewareMixin``). Django's ``ASGIHandler`` builds its chain for
the async mode, so such a chain crosses between the event loop and a thread twice for each
middleware that is not written async-first (``process_request`` and ``process_response``
each through ``sync_to_async``) and again around any that is sync-only: about a dozen
thread hops per request, which a profile of a plain GET showed to be most of its cost.
Here the chain is built for the sync mode and the whole of it runs in one hop into a
thread, as under WSGI; the rest (reading the body, sending the response, the request
signals) is Django's ASGI handler unchanged.

That hop goes to the process's request threads (``REQUEST_THREADS``, settings), a pool of
a fixed size, not to a thread made for the request as Django's handler does (its
``ThreadSensitiveContext``). Two costs went with a thread per request, both measured by
the arena benchmark (benchmarks/tournaments.py), whose server answers some forty requests a
second with a queue of them waiting:

- every request opened its database connection and closed it (on SQLite: a file opened,
  its pragmas run, Django's functions registered), a tenth of the server's time;
- every request waiting in the queue was a thread of its own wanting the GIL, so the
  process's other threads (the SQLite writer every move waits for, the tournaments'
  scheduler) waited for their turn behind a hundred of them.

A request thread lives as long as the process, so its connection is kept between requests
and let go as Django's request signals would under WSGI: ``close_old_connections`` before
and after each request (CONN_MAX_AGE: kept on SQLite; on PostgreSQL, where it is 0, given
back to the pool after each request). Requests beyond the pool wait in its queue, in the
order they came: the asyncio side (reading bodies, sending responses, websockets) goes on
meanwhile. The pool is larger than the number of requests that may wait on something slow
(a cold solve of the analysis board waits up to 10 s, and at most ANALYSIS_WORKERS +
ANALYSIS_QUEUE of them do; settings.py checks it).

Nor does a request get a ``ThreadSensitiveContext`` of its own (Django's ``__call__``
enters one for each): with one, the thread-sensitive steps Django's handler still takes
around the view (the request signals' receivers, ``response.close``) ran in a thread made
for that request, and the context's exit joined it from yet another new thread. Starting
those two threads blocked the event loop until each had begun (``Thread.start`` waits for
it): a twelfth of the event loop's busy time in a profile of the arena benchmark on two
processes, and a thread made and let go per request. Without the context those few steps
run in asgiref's one thread for thread-sensitive code, which outlives every request (the
receivers are ``reset_queries`` and ``close_old_connections`` of that thread, which holds
no connection of a request: ``_respond`` manages each request thread's own).

A refusal that the site sends late on purpose (``hold``: a client flooding the analysis
board gets its 429s a second apart) is held here, on the event loop, after its thread
has gone back to the pool: a flood of held refusals holds no request thread.

``sync_to_async``'s ``executor`` (with ``thread_sensitive=False``) is asgiref's documented
way of choosing the threads; the hook's private part is the handler's three methods.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections

THREAD_NAME = "bitsite-request"
_HOLD = "bitsite_hold_seconds"

_threads: ThreadPoolExecutor | None = None
_made = threading.Lock()


def request_threads() -> ThreadPoolExecutor:
    """The process's request threads (made on the first request)."""
    global _threads
    with _made:
        if _threads is None:
            _threads = ThreadPoolExecutor(
                max_workers=settings.REQUEST_THREADS, thread_name_prefix=THREAD_NAME
            )
        return _threads


class SyncChainASGIHandler(ASGIHandler):
    async def __call__(self, scope, receive, send):
        """Django's entry point (HTTP only), without a ``ThreadSensitiveContext`` per
        request (the module's docstring)."""
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        setattr(request, _HOLD, True)  # ``hold`` may leave its wait to this coroutine
        respond = sync_to_async(self._respond, thread_sensitive=False, executor=request_threads())
        response = await respond(request)
        held = getattr(response, _HOLD, 0)
        if held:
            await asyncio.sleep(held)  # no thread held meanwhile (``hold``)
        return response

    def _respond(self, request):
        close_old_connections()  # as request_started does under WSGI, in this thread
        try:
            return self.get_response(request)
        finally:
            close_old_connections()  # as request_finished does


def hold(request, response, seconds: float):
    """Send ``response`` ``seconds`` late (a refusal to a client that keeps asking). Served
    through this handler, the wait is the event loop's, after the request's thread has
    gone back to the pool; otherwise (the hook off: Django's handler, a thread per request;
    a test's client) the request's own thread waits."""
    if seconds <= 0:
        return response
    if getattr(request, _HOLD, False):
        setattr(response, _HOLD, seconds)
    else:
        time.sleep(seconds)
    return response
