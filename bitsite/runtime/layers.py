"""The channel layers' hooks: ``layer_cleanup`` (in-process) and ``redis_batch`` (Redis).

``layer_cleanup``: Channels' InMemoryChannelLayer runs its clean-up (drop messages older
than ``expiry``, and group memberships older than ``group_expiry``) before every receive
and every group send, and that scan walks every channel and every group membership of
the process. With thousands of open sockets it cost more than the sends themselves (the
benchmark's idle-socket run). Here it runs at most once a second: messages live 60 s and
memberships a day, so a second's delay in dropping them changes nothing else. Private:
it overrides ``InMemoryChannelLayer._clean_expired``.

``redis_batch``: channels-redis reads all the messages of a process's sockets from one
Redis queue, one message at a time, and each message costs three round trips to Redis in
a row (a clean-up script, ``BZPOPMIN``, the backup ``ZADD``) and a fourth before the next
may start (the backup's clean-up, under a per-queue lock): four turns of a busy event loop
a message. Two processes serving a thousand tournament pages read about fifty messages a
second each that way, and the players' pushes queued for ten seconds and more behind one
another (benchmarks/README.md, "Arena repair"). Here, whenever the queue holds messages,
one script takes up to ``BATCH`` of them in one round trip and puts each in its socket's
buffer, in the queue's order, as channels-redis does with the one it reads (and hands
channels-redis's ``receive`` an empty list of channels); only an empty queue waits in
channels-redis's own blocking read. The take is shielded: a socket's read cancelled as it
closes does not lose what the script took for the others. Private: it overrides
``RedisChannelLayer.receive_single`` and uses its ``receive_buffer``,
``receive_clean_locks``, ``connection``, ``consistent_hash``, ``prefix`` and
``deserialize``.

tests/test_runtime.py checks that the pinned libraries still have what both rely on.
"""

from __future__ import annotations

import asyncio
import time

from bitsite.layers import InProcessChannelLayer as GuardedInProcessLayer
from bitsite.layers import RedisChannelLayer as GuardedRedisLayer


class InProcessChannelLayer(GuardedInProcessLayer):
    clean_every = 1.0  # seconds between clean-up scans

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cleaned_at = float("-inf")

    def _clean_expired(self):
        now = time.monotonic()
        if now - self.cleaned_at < self.clean_every:
            return
        self.cleaned_at = now
        super()._clean_expired()


BATCH = 100  # messages taken from a process's queue in one round trip, at most

# The oldest messages of the queue, at most ARGV[1] of them, taken at once (ZPOPMIN with a
# count is one atomic command: a message is taken by one reader, once).
TAKE = "return redis.call('ZPOPMIN', KEYS[1], ARGV[1])"


class RedisChannelLayer(GuardedRedisLayer):
    async def receive_single(self, channel):
        if "!" not in channel:  # not a process's queue: channels-redis's own read
            return await super().receive_single(channel)
        taking = asyncio.ensure_future(self._take(channel))
        try:
            taken = await asyncio.shield(taking)
        except asyncio.CancelledError:
            # What the script takes is handed out when it answers, whoever waits for it.
            taking.add_done_callback(self._hand_out_later)
            raise
        if not taken:
            return await super().receive_single(channel)  # nothing queued: wait for one
        # Every message taken goes to its socket's buffer here, in the queue's order; the
        # caller (channels-redis's ``receive``) buffers what it is handed for each of a list
        # of channels: for none, nothing more.
        self._hand_out(taken)
        return [], None

    async def _take(self, channel) -> list[tuple]:
        key = self.prefix + channel
        # Not while channels-redis's own read of this queue cleans its backup up.
        await self.receive_clean_locks.acquire(key)
        try:
            connection = self.connection(self.consistent_hash(channel))
            found = await connection.eval(TAKE, 1, key, BATCH)
        finally:
            self.receive_clean_locks.release(key)
        taken = []
        for content in found[::2]:  # member, score, member, score...
            message = self.deserialize(content)
            to = message.pop("__asgi_channel__", channel)
            taken.append((to, message))
        return taken

    def _hand_out(self, taken) -> None:
        for to, message in taken:
            for name in to if isinstance(to, list) else [to]:
                self.receive_buffer[name].put_nowait(message)

    def _hand_out_later(self, taking: asyncio.Future) -> None:
        if taking.cancelled() or taking.exception() is not None:
            return
        self._hand_out(taking.result())
