"""The live layer's publisher (games/live.py): a burst of group sends waits its turn in the
process (SEND_SLOTS at once) instead of taking every connection of the layer's pool."""

from __future__ import annotations

import asyncio

from games import live


class CountingLayer:
    """A channel layer whose group sends take a moment, counting how many overlap."""

    def __init__(self):
        self.in_flight = 0
        self.most = 0
        self.sent: list[str] = []

    async def group_send(self, group, message):
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.002)
        self.in_flight -= 1
        self.sent.append(group)


def test_a_burst_of_sends_is_all_delivered_a_few_at_a_time(monkeypatch):
    layer = CountingLayer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    publisher = live.Publisher()
    groups = [f"match.m{n}" for n in range(10 * live.SEND_SLOTS)]

    async def burst():
        for group in groups:
            publisher.publish(group, {"type": "match.changed", "version": 1})
        while publisher.tasks:
            await asyncio.gather(*publisher.tasks)

    asyncio.run(burst())
    assert sorted(layer.sent) == sorted(groups)  # none lost, none twice
    assert layer.most == live.SEND_SLOTS  # the slots were full, never more
    assert publisher.failures == 0 and not publisher.down


def test_sends_waiting_their_turn_are_kept_once_the_layer_is_down(monkeypatch):
    """Sends queued behind a failing one do not each wait out SEND_TIMEOUT: once the
    layer counts as down, the rest are kept (each group's newest) for when it answers."""

    class Failing(CountingLayer):
        async def group_send(self, group, message):
            await super().group_send(group, message)
            raise ConnectionError("Redis went away")

    layer = Failing()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(live, "CONNECT_ATTEMPTS", 1)
    publisher = live.Publisher()
    groups = [f"g{n}" for n in range(4 * live.SEND_SLOTS)]

    async def burst():
        for group in groups:
            publisher.publish(group, {"type": "x"})
        await asyncio.gather(*publisher.tasks)
        if publisher.retrying is not None:
            publisher.retrying.cancel()

    asyncio.run(burst())
    assert publisher.down
    assert len(layer.sent) == live.SEND_SLOTS  # only the first turn tried the layer
    assert {group for group, _ in publisher.kept.values()} == set(groups)
