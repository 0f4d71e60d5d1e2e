"""What the served process does beyond the documented APIs of its libraries, in one place.

Each *hook* here buys speed with a private name of Django, daphne, Channels or autobahn
(or, for ``tuning``, with the interpreter's settings): the site works the same without
any of them, only slower. Each is behind a switch, ``BITSITE_HOOKS`` (``all``, the
default; ``none``; or a comma-separated list of the hooks to turn on), and each has a
canary test (tests/test_runtime.py) that fails with a clear message when the pinned
library no longer has what the hook relies on. Nothing outside this package touches a
private name of those libraries. benchmarks/README.md reports the benchmark with every
hook on and with every hook off.

``sync_chain`` (handler.py)
    Django's ASGI handler, with the middleware built as one synchronous chain and run in
    one thread hop per request (Django's own crosses between the event loop and a thread
    about a dozen times per request), into a fixed pool of request threads
    (REQUEST_THREADS) that keep their database connection between requests (Django's
    makes a thread, and a connection, per request). Relies on
    ``BaseHandler.load_middleware``'s ``is_async`` and on
    ``ASGIHandler.get_response_async``.
``deflate`` (deflate.py)
    permessage-deflate for daphne's websockets, with small windows: daphne has no option
    for it, so its ``daphne.server.WebSocketFactory`` is replaced by one that accepts a
    browser's offer (autobahn's ``perMessageCompressionAccept``).
``layer_cleanup`` (layers.py)
    The in-process channel layer's clean-up scan (``InMemoryChannelLayer._clean_expired``)
    at most once a second, instead of on every send and receive.
``redis_batch`` (layers.py)
    channels-redis's read of a process's queue takes every message waiting (up to 100)
    in one round trip to Redis, instead of one message per three round trips in a row.
    Relies on ``RedisChannelLayer.receive_single`` and the names it uses (its
    ``receive_buffer``, ``receive_clean_locks``, ``connection``, ``consistent_hash``,
    ``prefix``, ``deserialize``), and on ``receive`` buffering a list of channels.
``dispatch`` (dispatch.py)
    The site's websockets hand each message to its handler without Channels' hop to the
    sync thread before it (``aclose_old_connections``), which queued a hop per frame of
    every open page ahead of the requests. Relies on ``AsyncConsumer.dispatch`` and
    ``channels.consumer.get_handler_name``.
``tuning`` (tuning.py; public APIs of the interpreter, switchable to measure it)
    At start-up, in the served process only: every template compiled, the URLs
    resolved, the start-up heap frozen out of the garbage collector, young collections
    every 10,000 allocations, 1 ms GIL slices.

What a documented API does instead of an earlier private hook: sessions whose cache is
unreachable (bitsite/caches.py, a cache backend), a socket whose channel layer fails
(bitsite/layers.py, a layer's ``receive``), the event loop the live layer publishes to
(bitsite/asgi.py records it as each connection arrives).

This module imports nothing but the standard library: the settings read ``HOOKS``.
"""

from __future__ import annotations

import sys

HOOKS = ("sync_chain", "deflate", "layer_cleanup", "redis_batch", "dispatch", "tuning")
REDIS_ONLY = ("redis_batch",)  # hooks that act only when the channel layer is Redis


def parse(value: str | None) -> frozenset[str]:
    """The hooks a ``BITSITE_HOOKS`` value turns on; ValueError names an unknown one."""
    value = (value or "all").strip().lower()
    if value in {"all", "on", "1", "yes", "true"}:
        return frozenset(HOOKS)
    if value in {"none", "off", "0", "no", "false"}:
        return frozenset()
    names = {name.strip() for name in value.split(",") if name.strip()}
    unknown = names - set(HOOKS)
    if unknown:
        raise ValueError(
            f"BITSITE_HOOKS names no hook {', '.join(sorted(unknown))}: "
            f"the hooks are {', '.join(HOOKS)} (or all, or none)"
        )
    return frozenset(names)


def enabled(name: str) -> bool:
    from django.conf import settings

    if name not in HOOKS:
        raise KeyError(name)
    return name in settings.RUNTIME_HOOKS


def daphne_serves() -> bool:
    """Whether daphne's command line is serving this process (``daphne ...`` or
    ``python -m daphne ...``, as `make run` and `make scale` start it): it imports
    ``daphne.cli`` before the application. A test process, a management command or another
    server never has it. (Not ``daphne.server``: the daphne app in INSTALLED_APPS imports
    that one into every process that sets Django up.)"""
    return "daphne.cli" in sys.modules


def asgi_handler():
    """Django's ASGI handler for HTTP: the one-hop synchronous chain, or Django's own."""
    if enabled("sync_chain"):
        from bitsite.runtime.handler import SyncChainASGIHandler

        return SyncChainASGIHandler()
    from django.core.handlers.asgi import ASGIHandler

    return ASGIHandler()


def websocket_consumer():
    """The base of the site's websockets (games/sockets.py): Channels' own, or the one that
    forwards without a hop per message (the ``dispatch`` hook)."""
    if enabled("dispatch"):
        from bitsite.runtime.dispatch import ForwardingWebsocketConsumer

        return ForwardingWebsocketConsumer
    from channels.generic.websocket import AsyncWebsocketConsumer

    return AsyncWebsocketConsumer


_served = False


def serving() -> None:
    """Once, as daphne starts serving the application: the server-only hooks that are on."""
    global _served
    if _served or not daphne_serves():
        return
    _served = True
    if enabled("deflate"):
        from bitsite.runtime import deflate

        deflate.enable()
    if enabled("tuning"):
        from bitsite.runtime import tuning

        tuning.warm_up()
