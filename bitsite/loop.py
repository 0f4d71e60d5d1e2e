"""The event loop that serves this process, for code running in other threads.

A change is pushed from the thread that made it (a request's, or the SQLite writer's):
the message is handed to the server's event loop (``loop.call_soon_threadsafe``), so
that the request never waits for the channel layer. ``Recorded`` wraps the ASGI
application and notes the running loop as each connection arrives; ``serving_loop``
answers it while that loop runs (None in a management command or a plain test, where a
push is sent at once instead).
"""

from __future__ import annotations

import asyncio

_loop: asyncio.AbstractEventLoop | None = None
_when_serving: list = []  # called on the loop, once, as it serves its first connection


def when_serving(callback) -> None:
    """Call ``callback()`` on the serving loop as it serves its first connection (the
    server's own timers, re-read from the database after a restart: games/timers.py)."""
    _when_serving.append(callback)


def serving_loop() -> asyncio.AbstractEventLoop | None:
    loop = _loop
    return loop if loop is not None and loop.is_running() and not loop.is_closed() else None


class Recorded:
    """ASGI middleware: the application, noting the loop that calls it."""

    def __init__(self, application):
        self.application = application

    def __getattr__(self, name):  # the wrapped router's attributes (application_mapping)
        return getattr(self.application, name)

    async def __call__(self, scope, receive, send):
        global _loop
        running = asyncio.get_running_loop()
        if _loop is not running:
            _loop = running
            for callback in _when_serving:
                running.call_soon(callback)
        return await self.application(scope, receive, send)
