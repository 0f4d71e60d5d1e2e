"""The channel layers: Channels' own (in-process, or Redis with channels-redis), whose
``receive`` never raises into a consumer.

A socket reads its channel through the layer's ``receive`` (the channel layer
specification's method). If Redis goes away, that call raises, and Channels would end
the consumer with a traceback in the log. Here a failed ``receive`` returns one message
instead, ``{"type": "layer.lost", "error": ...}``, which every socket of the site handles
(games/sockets.py: it closes with 4503, and the page comes back and reads what it shows
again); a socket that asks again meanwhile waits, rather than being told twice.

The in-process layer's clean-up scan is made cheaper by a hook of bitsite/runtime/
(``layer_cleanup``), when it is on.
"""

from __future__ import annotations

import asyncio
import time

from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer

LOST_WAIT = 30.0  # seconds a channel that was told of a failure waits before reading again


class ReceiveGuard:
    """A layer whose ``receive`` never raises: a failure is one ``layer.lost`` message."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lost: dict[str, float] = {}  # channel -> when it was told of a failure

    async def receive(self, channel):
        told = self.lost.get(channel)
        if told is not None:
            # Its socket is closing: nothing more to read for a while, then as usual.
            await asyncio.sleep(max(0.0, told + LOST_WAIT - time.monotonic()))
            self.lost.pop(channel, None)
        try:
            return await super().receive(channel)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            now = time.monotonic()
            self.lost = {c: t for c, t in self.lost.items() if t + LOST_WAIT > now}
            self.lost[channel] = now
            return {"type": "layer.lost", "error": error}


class InProcessChannelLayer(ReceiveGuard, InMemoryChannelLayer):
    """The embedded default's layer (one server process)."""


class RedisChannelLayer(ReceiveGuard, ChannelsRedisLayer):
    """channels-redis's layer (several server processes share Redis)."""
