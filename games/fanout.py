"""A group every page of a kind shares, joined once per process: the process's relay.

A group send of Channels' layers delivers the message to each member channel. channels-
redis sends one message per process, naming every member channel of that process (a
thousand names in each frame of a tournament's standings), and the receiving process puts
it in each socket's buffer: every socket's read wakes, hands it on, and sets itself up to
read again (two tasks each: ``channels_redis/core.py``), for every frame; the in-process
layer copies it into a queue per socket. A thousand tournament pages cost each process
that much work a few times a second, and the pushes the players waited for (their own
panel, their game's moves) queued behind it (benchmarks/README.md, "Arena repair").

For the groups a socket *shares* (``Socket.groups_to_share``: the standings of a
tournament's page, the lobby's and the watch page's lists), the socket joins the
process's ``Relay`` instead: the relay's own channel joins the layer's group once, for
as long as a socket of the process is in it, and hands each message it reads to the
process's sockets of that group, calling their handler as Channels would (the message's
type, its dots as underscores). The group has one member per process; a frame is one
read in each process, whatever the number of pages.

The publisher (games/live.py) names the group in every message it sends (``"group"``),
so that the relay knows whose it is. If the layer fails while the relay reads it, every
socket of the relay is told (``layer.lost``: each closes with 4503, and its page comes
back and reads what it shows again) and the next socket to join reads through a new
channel.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref

log = logging.getLogger(__name__)

REFRESH_EVERY = 3600.0  # seconds: a group membership in the layer is renewed this often
YIELD_EVERY = 64  # sockets handed a message before the relay lets the loop run others


class _Group:
    __slots__ = ("added", "added_at", "leaving", "members")

    def __init__(self):
        self.members: set = set()
        self.added: asyncio.Future | None = None  # the relay's group_add (done: a member)
        self.added_at = 0.0
        self.leaving: asyncio.Future | None = None  # the relay's group_discard under way


class Relay:
    """One process's (one event loop's) membership of the shared groups of one layer."""

    def __init__(self, layer):
        self.layer = layer
        self.loop = asyncio.get_running_loop()
        self.groups: dict[str, _Group] = {}
        self.channel: str | None = None
        self.reading: asyncio.Task | None = None
        self.relayed = 0  # messages handed to sockets (tests, the benchmark)

    # ---- joining and leaving ---------------------------------------------------------------

    async def join(self, group: str, socket) -> None:
        """``socket`` gets the group's messages from now on (the relay is a member of the
        group in the layer when this returns; raises what the layer raised, and then the
        socket is not a member)."""
        state = self.groups.get(group)
        if state is None:
            state = self.groups[group] = _Group()
        state.members.add(socket)
        try:
            if state.leaving is not None:  # the last socket just left: its discard first
                await asyncio.shield(state.leaving)
            stale = time.monotonic() - state.added_at > REFRESH_EVERY
            if state.added is None or (state.added.done() and stale):
                state.added = asyncio.ensure_future(self._add(group, state))
            await asyncio.shield(state.added)
        except BaseException:
            state.members.discard(socket)  # not a member after all
            if not state.members and state.added is None and self.groups.get(group) is state:
                del self.groups[group]
            raise

    async def _add(self, group: str, state: _Group) -> None:
        channel = await self._channel()
        try:
            await self.layer.group_add(group, channel)
        except BaseException:
            state.added = None  # the next socket to join tries again
            raise
        state.added_at = time.monotonic()

    async def leave(self, group: str, socket) -> None:
        """``socket`` gets no more of the group's messages; the relay leaves the group in
        the layer when its last socket has left (raises what the layer raised: the
        membership then expires in the layer)."""
        state = self.groups.get(group)
        if state is None or socket not in state.members:
            return
        state.members.discard(socket)
        if state.members:
            return
        channel, state.added = self.channel, None
        if channel is None:
            self.groups.pop(group, None)
            return
        leaving = state.leaving = asyncio.ensure_future(self.layer.group_discard(group, channel))
        try:
            await asyncio.shield(leaving)
        finally:
            if state.leaving is leaving:
                state.leaving = None
            if not state.members and state.added is None and self.groups.get(group) is state:
                del self.groups[group]

    def members(self, group: str) -> int:
        state = self.groups.get(group)
        return len(state.members) if state else 0

    # ---- reading ----------------------------------------------------------------------------

    async def _channel(self) -> str:
        if self.channel is None or self.reading is None or self.reading.done():
            self.channel = await self.layer.new_channel()
            self.reading = asyncio.ensure_future(self._read(self.channel))
        return self.channel

    async def _read(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            if message.get("type") == "layer.lost":  # bitsite/layers.py: Redis failed
                self._lost(channel, message)
                return
            state = self.groups.get(message.get("group", ""))
            if state is None:
                continue
            for n, socket in enumerate(list(state.members), 1):
                await self._hand(socket, message)
                if n % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
            self.relayed += 1

    @staticmethod
    async def _hand(socket, message: dict) -> None:
        handler = getattr(socket, message["type"].replace(".", "_"), None)
        if handler is None:
            log.error("%s has no handler for %s", type(socket).__name__, message["type"])
            return
        try:
            await handler(message)
        except Exception:
            log.exception("%s failed to forward %s", type(socket).__name__, message["type"])

    def _lost(self, channel: str, message: dict) -> None:
        """The layer failed: every socket is told (each closes, its page comes back), and
        the sockets that join from now on read through a new channel."""
        groups, self.groups = self.groups, {}
        if self.channel == channel:
            self.channel = self.reading = None
        for state in groups.values():
            for socket in state.members:
                task = asyncio.ensure_future(self._hand(socket, message))
                _pending.add(task)
                task.add_done_callback(_pending.discard)


_pending: set[asyncio.Task] = set()
_relays: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # layer -> Relay


def relay(layer) -> Relay:
    """The relay of this layer in the running event loop (made on first use)."""
    found = _relays.get(layer)
    if found is None or found.loop is not asyncio.get_running_loop():
        found = _relays[layer] = Relay(layer)
    return found
