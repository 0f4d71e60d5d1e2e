"""The channel layers: Channels' own in-process layer for one server process, and
channels-redis's pub/sub layer for several, whose ``receive`` never raises into a consumer.

A socket reads its channel through the layer's ``receive`` (the channel layer
specification's method). If Redis is away when it must subscribe the channel, that
call raises, and Channels would end the consumer with a traceback in the log. Here a
failed ``receive`` returns one message instead, ``{"type": "layer.lost", "error": ...}``,
which every socket of the site handles (games/sockets.py: it closes with 4503, and the
page comes back and reads what it shows again); a socket that asks again meanwhile
waits, rather than being told twice.

The in-process layer's clean-up scan is made cheaper by a hook of bitsite/runtime/
(``layer_cleanup``), when it is on.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer as ChannelsRedisPubSubLayer

log = logging.getLogger(__name__)

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
            return await self._read(channel)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            now = time.monotonic()
            self.lost = {c: t for c, t in self.lost.items() if t + LOST_WAIT > now}
            self.lost[channel] = now
            return {"type": "layer.lost", "error": error}

    async def _read(self, channel):
        return await super().receive(channel)


class InProcessChannelLayer(ReceiveGuard, InMemoryChannelLayer):
    """The embedded default's layer (one server process)."""


class RedisPubSubChannelLayer(ReceiveGuard, ChannelsRedisPubSubLayer):
    """channels-redis's pub/sub layer (several server processes share Redis): the layer of
    the scale-out configuration.

    Why not channels-redis's first layer (``channels_redis.core.RedisChannelLayer``, this
    site's until 4 December 2026): it reads every socket's messages of a process through
    one Redis list, one message per three round trips, and wakes every waiting socket of
    the process for each one (two new tasks each, a lock between them). With a thousand
    tournament pages on two processes that was a third of each event loop, and pushes fell
    a minute behind and expired (benchmarks/README.md, "Arena repair"). Pub/sub sends a
    group's message once per process that has a member, Redis pushes it, and each socket
    reads its own in-process queue.

    What it does not do, and what stands in for it: it keeps nothing for a process that is
    away (a page that reconnects reads what it shows again; the publisher, games/live.py,
    keeps the pushes it could not send through an outage and sends them when Redis is
    back), and a receive waits rather than fails while Redis is down (redis-py subscribes
    again when it reconnects). A socket that opens while Redis is down gets a channel of
    its own all the same: joining its groups then fails, and the socket closes with 4503
    (the page tries again) rather than the handshake failing with a 500.
    """

    async def _read(self, channel):
        receive = super().__getattr__("receive")  # the layer of this event loop's
        return await receive(channel)

    async def new_channel(self, prefix="specific."):
        try:
            return await super().__getattr__("new_channel")(prefix)
        except Exception as error:
            log.info("a socket's channel is not subscribed (Redis: %s)", error)
            return f"unsubscribed.{prefix}{uuid.uuid4().hex}"
