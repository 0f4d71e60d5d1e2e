"""The in-process channel layer: Channels' own, with its clean-up scan once a second."""

from __future__ import annotations

import asyncio

import pytest

from bitsite.layers import InProcessChannelLayer

pytestmark = pytest.mark.asyncio


async def test_the_clean_up_scan_runs_at_most_once_per_interval(monkeypatch):
    layer = InProcessChannelLayer()
    scans = []
    original = InProcessChannelLayer.__mro__[1]._clean_expired
    monkeypatch.setattr(
        InProcessChannelLayer.__mro__[1],
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


async def test_expired_messages_and_their_channels_are_still_dropped():
    layer = InProcessChannelLayer(expiry=1)
    layer.clean_every = 0.1
    dead, alive = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("watchers", dead)
    await layer.group_add("watchers", alive)
    await layer.group_send("watchers", {"type": "push", "n": 1})
    assert (await layer.receive(alive))["n"] == 1
    await asyncio.sleep(1.2)  # the dead channel's message is past its expiry
    await layer.group_send("watchers", {"type": "push", "n": 2})
    assert dead not in layer.groups["watchers"]  # removed from its group, as Channels does
    assert (await layer.receive(alive))["n"] == 2
