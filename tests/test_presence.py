"""Sets whose members expire: in process memory, and in Redis (services run)."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from games import presence


def local_store():
    return presence.LocalStore()


def redis_store():
    url = os.environ.get("REDIS_URL", "")
    if not url:
        pytest.skip("needs REDIS_URL")
    store = presence.RedisStore(url)
    store.prefix = f"bitsite:test:{uuid.uuid4().hex}:"  # never another run's keys
    return store


STORES = [
    pytest.param(local_store, id="in-process"),
    pytest.param(redis_store, id="redis", marks=pytest.mark.services),
]


@pytest.fixture(params=STORES)
def store(request):
    return request.param()


class Clock:
    """The presence sets' clock, moved on by the test instead of waited for."""

    def __init__(self):
        self.ahead = 0.0

    def time(self) -> float:
        return time.time() + self.ahead

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(presence, "time", clock)
    return clock


def test_a_capped_set_takes_members_up_to_its_cap(store):
    for n in range(3):
        assert store.join(f"socket-{n}", ["browser", "kind"], ("browser", 3))
    assert not store.join("socket-3", ["browser", "kind"], ("browser", 3))
    assert store.counts(["browser", "kind", "empty"]) == [3, 3, 0]  # refused: added nowhere
    assert store.join("socket-1", ["browser"], ("browser", 3))  # already a member: fine
    store.leave("socket-0", ["browser", "kind"])
    assert store.counts(["browser", "kind"]) == [2, 2]
    assert store.join("socket-3", ["browser", "kind"], ("browser", 3))  # a place freed


def test_members_nobody_refreshes_expire_and_free_their_places(store, clock):
    assert store.join("dead", ["seat", "browser"], ("browser", 1))
    assert store.join("alive", ["seat"])
    assert store.counts(["seat", "browser"]) == [2, 1]
    for _ in range(3):  # "alive" is refreshed, "dead" (a killed process's socket) is not
        clock.advance(presence.TTL / 2)
        store.refresh("alive", ["seat"])
    assert store.counts(["seat", "browser"]) == [1, 0]
    assert store.join("newcomer", ["browser"], ("browser", 1))


def test_reading_presence_is_one_read_whatever_the_number_of_sockets(store):
    for n in range(200):
        store.join(f"socket-{n}", ["kind"])
    assert store.counts(["kind", "seat:1", "seat:2"]) == [200, 0, 0]


def test_an_unreachable_redis_lets_sockets_in_and_reads_as_unknown(monkeypatch):
    broken = presence.RedisStore("redis://127.0.0.1:1/0")  # nothing listens on port 1
    monkeypatch.setattr(presence, "_store", broken)
    membership = presence.enter("some-match", "socket", "a-session")
    assert membership is not None and membership.sets == []  # let in, nothing to keep
    assert presence.snapshot("other-match", ["spectator"], (1, 2)) == presence.UNKNOWN
    presence.depart(membership)  # nothing to do, nothing raised


def test_a_seat_read_empty_as_its_last_socket_leaves_reads_as_just_seen(store, monkeypatch):
    """The lobby's sweeper may read a creator's seat at any moment, also between the
    steps of a socket's departure: the moment the seat's set is empty, its "last seen"
    must already say now, never the time the socket arrived."""
    monkeypatch.setattr(presence, "_store", store)
    membership = presence.enter("m", "socket", "a-session")
    presence.settle(membership, "m", kind="player", seat=1)
    store.stamp(presence.seen_stamp(presence.seat_set("m", 1)), time.time() - 100)  # long ago
    read_as_emptied = []
    leave = store.leave

    def leave_then_read(member, sets):
        leave(member, sets)
        read_as_emptied.append(presence.away_for("m", 1))  # a reader just after the set empties

    monkeypatch.setattr(store, "leave", leave_then_read)
    presence.depart(membership)
    assert read_as_emptied[0] is not None and read_as_emptied[0] < 5
