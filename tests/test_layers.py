"""The channel layers: a receive that never raises into a socket (bitsite/layers.py), and
the in-process layer's clean-up scan once a second (the layer_cleanup hook,
bitsite/runtime/layers.py)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest
from channels.layers import InMemoryChannelLayer

from bitsite import layers
from bitsite.runtime.layers import InProcessChannelLayer

pytestmark = pytest.mark.asyncio


async def test_the_clean_up_scan_runs_at_most_once_per_interval(monkeypatch):
    layer = InProcessChannelLayer()
    scans = []
    original = InMemoryChannelLayer._clean_expired
    monkeypatch.setattr(
        InMemoryChannelLayer,
        "_clean_expired",
        lambda self: scans.append(1) or original(self),
    )
    channels = [await layer.new_channel() for _ in range(50)]
    for channel in channels:
        await layer.group_add("watchers", channel)
    for n in range(20):
        await layer.group_send("watchers", {"type": "push", "n": n})
    assert len(scans) == 1  # the stock layer scans on every one of those 20 sends
    for channel in channels:  # every message arrived, in order
        assert [(await layer.receive(channel))["n"] for _ in range(20)] == list(range(20))


async def test_expired_messages_and_their_channels_are_still_dropped(monkeypatch):
    import channels.layers

    layer = InProcessChannelLayer(expiry=1)
    dead, alive = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("watchers", dead)
    await layer.group_add("watchers", alive)
    await layer.group_send("watchers", {"type": "push", "n": 1})
    assert (await layer.receive(alive))["n"] == 1
    # Two seconds later by the layer's clock: the dead channel's message is past its expiry,
    # and the next scan is due.
    later = time.time() + 2
    monkeypatch.setattr(channels.layers, "time", SimpleNamespace(time=lambda: later))
    layer.cleaned_at -= layer.clean_every
    await layer.group_send("watchers", {"type": "push", "n": 2})
    assert dead not in layer.groups["watchers"]  # removed from its group, as Channels does
    assert (await layer.receive(alive))["n"] == 2


class Failing(layers.ReceiveGuard, InMemoryChannelLayer):
    """A layer whose store goes away: every receive fails as Redis's does when it is down."""

    async def _fail(self, channel):
        raise ConnectionError("Redis went away")


async def test_a_failed_receive_is_one_layer_lost_message_then_a_wait(monkeypatch):
    layer = Failing()
    monkeypatch.setattr(InMemoryChannelLayer, "receive", Failing._fail)
    channel = await layer.new_channel()
    lost = await layer.receive(channel)
    assert lost["type"] == "layer.lost" and isinstance(lost["error"], ConnectionError)
    again = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)
    assert not again.done()  # told once: its socket is closing, it waits
    again.cancel()
    other = await layer.receive(await layer.new_channel())  # another socket is told too
    assert other["type"] == "layer.lost"


async def test_a_cancelled_redis_receive_returns_at_once_and_its_read_is_ended(monkeypatch):
    """A closing socket cancels its receive. On Python 3.11 the layer's read can swallow a
    cancellation (asyncio.wait_for, inside redis-py, loses one that arrives as what it
    waits for completes) and go on reading: the socket does not wait for it, and the read
    is cancelled again until it has ended."""
    from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer

    cancellations = []

    async def read_that_swallows_a_cancellation(self, channel):
        while True:
            try:
                await asyncio.sleep(3600)  # Redis's blocking pop, again and again
            except asyncio.CancelledError:
                cancellations.append(1)
                if len(cancellations) == 1:
                    asyncio.current_task().uncancel()
                    continue  # lost, as wait_for loses it
                raise

    monkeypatch.setattr(ChannelsRedisLayer, "receive", read_that_swallows_a_cancellation)
    layer = layers.RedisChannelLayer(hosts=["redis://127.0.0.1:1"])  # never connected
    receive = asyncio.ensure_future(layer.receive("specific.x!y"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    receive.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(receive, 1)  # at once, not when the read ends
    (read,) = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    await asyncio.wait_for(asyncio.wait([read]), 5)
    assert read.cancelled() and len(cancellations) == 2


# ---- the redis_batch hook (bitsite/runtime/layers.py), against Redis ------------------------


def batch_layer(**config):
    import os

    from bitsite.runtime.layers import RedisChannelLayer

    return RedisChannelLayer(
        hosts=[{"address": os.environ.get("REDIS_URL")}], prefix="batchtest", **config
    )


@pytest.mark.services
async def test_a_process_reads_its_queue_in_batches_every_message_once_in_order(monkeypatch):
    from channels_redis.core import RedisChannelLayer as ChannelsRedisLayer

    layer = batch_layer(capacity=1000)
    await layer.flush()
    waits = []  # channels-redis's own read (one message, blocking): only when nothing waits
    own = ChannelsRedisLayer.receive_single

    async def counted(self, channel):
        waits.append(channel)
        return await own(self, channel)

    monkeypatch.setattr(ChannelsRedisLayer, "receive_single", counted)
    sockets = [await layer.new_channel() for _ in range(5)]
    for socket in sockets:
        await layer.group_add("batch", socket)
    for n in range(40):  # to each socket, and to the group (one message for the five)
        await layer.send(sockets[n % 5], {"type": "push", "n": n})
        await layer.group_send("batch", {"type": "push", "n": 100 + n})
    got = {socket: [] for socket in sockets}
    for socket in sockets:
        for _ in range(48):
            got[socket].append((await asyncio.wait_for(layer.receive(socket), 5))["n"])
    for i, socket in enumerate(sockets):
        mine = [n for n in range(40) if n % 5 == i]
        assert sorted(got[socket]) == sorted(mine + list(range(100, 140)))  # each once
        assert [n for n in got[socket] if n < 100] == mine  # in the order sent
        assert [n for n in got[socket] if n >= 100] == list(range(100, 140))
    assert waits == []  # 240 deliveries, every one from a batch
    nothing = asyncio.ensure_future(layer.receive(sockets[0]))
    await asyncio.sleep(0.2)
    assert not nothing.done() and len(waits) == 1  # an empty queue: the blocking read
    await layer.send(sockets[0], {"type": "push", "n": -1})
    assert (await asyncio.wait_for(nothing, 10))["n"] == -1
    await layer.flush()


@pytest.mark.services
async def test_a_read_cancelled_as_its_socket_closes_loses_nothing_taken_for_the_others():
    layer = batch_layer(capacity=1000)
    await layer.flush()
    closing, staying = await layer.new_channel(), await layer.new_channel()
    for n in range(30):
        await layer.send(staying, {"type": "push", "n": n})
    read = asyncio.ensure_future(layer.receive(closing))  # it takes the batch for everyone
    for _ in range(100):
        await asyncio.sleep(0)
    read.cancel()
    with pytest.raises(asyncio.CancelledError):
        await read
    got = [(await asyncio.wait_for(layer.receive(staying), 5))["n"] for _ in range(30)]
    assert got == list(range(30))
    await layer.flush()


def plain_layer():
    """bitsite.layers' Redis layer: channels-redis's own read, with the site's guard."""
    import os

    return layers.RedisChannelLayer(
        hosts=[{"address": os.environ.get("REDIS_URL")}], prefix="racetest"
    )


@pytest.mark.services
@pytest.mark.parametrize("make", [plain_layer, batch_layer], ids=["plain", "batch"])
async def test_cancelling_one_channels_read_never_ends_or_stalls_anothers(make):
    """The race once seen through the killed-socket test (tests/test_admission.py): two
    channels of one process read through the process's shared receive; one's read is
    cancelled (its socket closed) at a random moment, sometimes with a message of its own
    in flight; its cancellation ends it, and the other channel's next message arrives.
    A hundred times, at random timings."""
    import random

    layer = make()
    await layer.flush()
    rng = random.Random(1683)
    try:
        for n in range(100):
            closing, staying = await layer.new_channel(), await layer.new_channel()
            cancelled = asyncio.ensure_future(layer.receive(closing))
            waiting = asyncio.ensure_future(layer.receive(staying))
            await asyncio.sleep(rng.uniform(0, 0.01))
            if n % 2:
                await layer.send(closing, {"type": "push", "n": -n})  # in flight as it closes
            await asyncio.sleep(rng.uniform(0, 0.003))
            cancelled.cancel()
            try:  # ended (cancelled), not waiting for a message
                got = await asyncio.wait_for(cancelled, 5)
            except asyncio.CancelledError:
                pass
            else:  # it had read its own message before the cancellation came
                assert got["n"] == -n
            await layer.send(staying, {"type": "push", "n": n})
            assert (await asyncio.wait_for(waiting, 5))["n"] == n, f"trial {n}"
    finally:
        await layer.flush()
