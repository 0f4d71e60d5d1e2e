"""A process's relay of the groups its pages share (games/fanout.py), on Channels' in-process
layer and (services) on channels-redis with Redis: one member per process in the layer, every
socket of the process handed each message once, a group left when its last socket leaves, a
socket that fails its handler costing the others nothing, and a failed layer told to every
socket (the next join reads through a new channel)."""

from __future__ import annotations

import asyncio
import os

import pytest

from bitsite.layers import InProcessChannelLayer, RedisChannelLayer
from games import fanout
from games.live import Publisher
from tests.factories import until

pytestmark = pytest.mark.asyncio

GROUP = "tournament.fanouttest"


class Page:
    """What the relay sees of a socket: the handlers of its messages."""

    def __init__(self, fail=False):
        self.got: list[dict] = []
        self.lost: list[dict] = []
        self.fail = fail

    async def tournament_changed(self, message):
        if self.fail:
            raise RuntimeError("this page's handler fails")
        self.got.append(message)

    async def layer_lost(self, message):
        self.lost.append(message)


def in_process():
    return InProcessChannelLayer(capacity=100)


def redis_layer():
    url = os.environ.get("REDIS_URL")
    return RedisChannelLayer(hosts=[{"address": url}], prefix="fanouttest")


async def members_in_layer(layer, group) -> int:
    """How many channels the layer holds in ``group``."""
    if isinstance(layer, InProcessChannelLayer):
        return len(layer.groups.get(group, {}))
    # channels-redis keeps a group's members in a sorted set named after the group.
    connection = layer.connection(layer.consistent_hash(group))
    return await connection.zcard(layer._group_key(group))


async def send(layer, message, group=GROUP):
    await Publisher._group_send(layer, group, message)  # as the publisher sends: named


@pytest.fixture
async def layers():
    """The layers a test made, their relays stopped after it."""
    made = []
    yield made
    for layer in made:
        reading = fanout.relay(layer).reading
        if reading is not None:
            reading.cancel()


@pytest.mark.services
async def test_two_processes_each_one_member_hand_every_page_each_message_once(layers):
    first, second = redis_layer(), redis_layer()  # two server processes over one Redis
    layers += [first, second]
    await first.flush()
    pages = [Page() for _ in range(5)]
    relay_of = {}
    for page in pages[:3]:
        relay_of[page] = fanout.relay(first)
    for page in pages[3:]:
        relay_of[page] = fanout.relay(second)
    for page in pages:
        await relay_of[page].join(GROUP, page)
    assert await members_in_layer(first, GROUP) == 2  # one per process, not five

    await send(first, {"type": "tournament.changed", "version": 1})
    await until(lambda: all(page.got for page in pages), timeout=10)
    await send(second, {"type": "tournament.changed", "version": 2})
    await until(lambda: all(len(page.got) == 2 for page in pages), timeout=10)
    assert [[m["version"] for m in page.got] for page in pages] == [[1, 2]] * 5
    assert fanout.relay(first).relayed == fanout.relay(second).relayed == 2  # a message each
    await asyncio.sleep(0.2)
    assert all(len(page.got) == 2 for page in pages)  # once each, never twice

    for page in pages:
        await relay_of[page].leave(GROUP, page)
    assert await members_in_layer(first, GROUP) == 0
    assert fanout.relay(first).members(GROUP) == fanout.relay(second).members(GROUP) == 0


async def test_one_layer_holds_one_member_for_every_page_of_the_process(layers):
    layer = in_process()
    layers.append(layer)
    pages = [Page() for _ in range(50)]
    for page in pages:
        await fanout.relay(layer).join(GROUP, page)
    assert await members_in_layer(layer, GROUP) == 1
    await send(layer, {"type": "tournament.changed", "version": 7})
    await until(lambda: all(page.got for page in pages), timeout=10)
    assert fanout.relay(layer).relayed == 1
    for page in pages[:49]:
        await fanout.relay(layer).leave(GROUP, page)
    assert await members_in_layer(layer, GROUP) == 1  # one page still open
    await fanout.relay(layer).leave(GROUP, pages[49])
    assert await members_in_layer(layer, GROUP) == 0


async def test_a_page_that_joins_as_the_last_one_leaves_still_gets_the_groups_messages(layers):
    layer = in_process()
    layers.append(layer)
    relay = fanout.relay(layer)
    leaving, coming = Page(), Page()
    await relay.join(GROUP, leaving)
    # The last page leaves (its discard under way) while another joins.
    await asyncio.gather(relay.leave(GROUP, leaving), relay.join(GROUP, coming))
    assert await members_in_layer(layer, GROUP) == 1
    await send(layer, {"type": "tournament.changed", "version": 3})
    await until(lambda: coming.got, timeout=10)
    assert not leaving.got


async def test_a_page_whose_handler_fails_costs_the_others_nothing(caplog, layers):
    layer = in_process()
    layers.append(layer)
    relay = fanout.relay(layer)
    pages = [Page(), Page(fail=True), Page()]
    for page in pages:
        await relay.join(GROUP, page)
    await send(layer, {"type": "tournament.changed", "version": 1})
    await until(lambda: pages[0].got and pages[2].got, timeout=10)
    assert "failed to forward tournament.changed" in caplog.text


async def test_a_message_of_a_group_without_pages_here_is_dropped(layers):
    layer = in_process()
    layers.append(layer)
    relay = fanout.relay(layer)
    page = Page()
    await relay.join(GROUP, page)
    await send(layer, {"type": "tournament.changed", "version": 1}, group="tournament.other")
    await send(layer, {"type": "tournament.changed", "version": 2})
    await until(lambda: page.got, timeout=10)
    assert [m["version"] for m in page.got] == [2]


async def test_a_layer_that_fails_is_told_to_every_page_and_the_next_join_reads_anew(layers):
    layer = in_process()
    layers.append(layer)
    relay = fanout.relay(layer)
    pages = [Page(), Page()]
    for page in pages:
        await relay.join(GROUP, page)
    lost_channel = relay.channel
    # What bitsite/layers.py's receive returns when Redis fails under it.
    await layer.send(lost_channel, {"type": "layer.lost", "error": ConnectionError("gone")})
    await until(lambda: all(page.lost for page in pages), timeout=10)
    assert relay.members(GROUP) == 0 and relay.channel is None
    again = Page()
    await relay.join(GROUP, again)
    assert relay.channel not in (None, lost_channel)
    await send(layer, {"type": "tournament.changed", "version": 9})
    await until(lambda: again.got, timeout=10)
    assert not pages[0].got and not pages[1].got
