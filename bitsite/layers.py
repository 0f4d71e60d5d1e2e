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


class RedisChannelLayer(ReceiveGuard, ChannelsRedisLayer):
    """channels-redis's layer (several server processes share Redis).

    A socket that closes cancels its ``receive``. channels-redis reads every channel of
    the process with one blocking pop (5 s, again and again until a message comes), made
    on behalf of one of its sockets, and a cancellation can be lost on its way in: on
    Python 3.11, ``asyncio.wait_for`` (which redis-py's connect and writes use) swallows a
    cancellation that arrives as what it waits for completes (CPython gh-86296, mended in
    3.12). Channels waits for the cancelled read before the consumer ends, so a closed
    socket's consumer then waited for the next message, forever on a quiet page (forty
    pages closing one after the other took 10 s to over 3 minutes). The socket's
    ``receive`` returns at once, and the read is cancelled again until it has ended; what
    it read for the other sockets is theirs as usual."""

    async def _read(self, channel):
        read = asyncio.ensure_future(super()._read(channel))
        try:
            return await asyncio.shield(read)
        except asyncio.CancelledError:
            read.add_done_callback(_retrieved)
            _cancel_until_ended(read)
            raise


RECANCEL_EVERY = 0.1  # seconds between the cancellations of a read that has not ended


def _cancel_until_ended(task: asyncio.Task) -> None:
    if task.done():
        return
    task.cancel()
    task.get_loop().call_later(RECANCEL_EVERY, _cancel_until_ended, task)


def _retrieved(task: asyncio.Task) -> None:
    """A read left to end on its own: its result or error is nobody's."""
    if not task.cancelled():
        task.exception()
