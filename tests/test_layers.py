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


@pytest.mark.services
async def test_a_socket_opened_while_redis_is_away_is_told_to_try_again():
    """The pub/sub layer subscribes a socket's channel as it is made: with Redis away the
    socket still gets a channel (no 500 at the handshake), joining a group fails (the
    socket closes with 4503), and its receive is one ``layer.lost`` message."""
    layer = layers.RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1"])  # nothing there
    channel = await layer.new_channel()
    assert channel.startswith("unsubscribed.")
    with pytest.raises(RuntimeError, match="exist in-process"):
        await layer.group_add("a-match", channel)  # never subscribed: not joined either
    lost = await asyncio.wait_for(layer.receive(channel), 10)
    assert lost["type"] == "layer.lost"


@pytest.mark.services
async def test_the_pubsub_layer_sends_a_groups_message_to_each_member_once():
    from django.conf import settings

    layer = layers.RedisPubSubChannelLayer(hosts=[settings.REDIS_URL])
    pages = [await layer.new_channel() for _ in range(3)]
    for page in pages:
        await layer.group_add("an-event", page)
    await layer.group_send("an-event", {"type": "standings", "n": 1})
    for page in pages:
        assert await asyncio.wait_for(layer.receive(page), 5) == {"type": "standings", "n": 1}
    await layer.group_discard("an-event", pages[0])
    await layer.group_send("an-event", {"type": "standings", "n": 2})
    for page in pages[1:]:
        assert (await asyncio.wait_for(layer.receive(page), 5))["n"] == 2
    late = asyncio.ensure_future(layer.receive(pages[0]))
    await asyncio.sleep(0.3)
    assert not late.done()  # it left the group
    late.cancel()
    await layer.flush()
