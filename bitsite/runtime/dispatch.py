"""The ``dispatch`` hook: a site socket forwards a push without a hop to the sync thread.

Channels' ``AsyncConsumer.dispatch`` awaits ``aclose_old_connections()`` before every
message it hands to a handler: a hop to the process's one thread for sync work, the
thread every HTTP request of the process is handled on, for each frame each socket
forwards. The site's sockets read no database in their handlers on that thread (what
reads it runs through ``database_sync_to_async``, which closes old connections itself),
and 1,000 tournament pages forwarding their standings a few times a second queued
thousands of hops a second ahead of the players' requests (benchmarks/tournaments.py: a
match page's GET waited 13 to 19 s). Here the handler is called directly.

Private: it overrides ``dispatch`` and uses ``channels.consumer.get_handler_name``
(tests/test_runtime.py checks that the pinned Channels still dispatches that way).
"""

from __future__ import annotations

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer


class ForwardingWebsocketConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
