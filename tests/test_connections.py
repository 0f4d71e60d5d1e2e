"""Connections counted per client address as daphne accepts them (bitsite/connections.py),
on a real daphne started as `make run` starts it (``-e bitsite:...``).

The client comes from 127.0.0.2 (Linux routes all of 127/8 to the loopback device), an
address no limit exempts; 127.0.0.1 is exempt (the tests' ``BITSITE_RATE_EXEMPT``), as a
proxy on the same host is (``BITSITE_PROXY_ADDRESSES``).
"""

from __future__ import annotations

import socket
from contextlib import ExitStack

import pytest
from twisted.internet import reactor
from twisted.internet.endpoints import serverFromString

from bitsite.connections import Admission, Endpoint
from tests.factories import until_sync

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT = "127.0.0.2"
HEALTH = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def connect(port: int, source: str = CLIENT) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))


def answered(sock: socket.socket) -> bool:
    """Whether the server answers a request on this connection (kept alive after it):
    False when it closed the connection as it accepted it."""
    try:
        sock.sendall(HEALTH)
        data = sock.recv(4096)
    except (ConnectionResetError, BrokenPipeError):
        return False
    return data.startswith(b"HTTP/1.1 200")


def test_the_endpoint_daphne_is_given_is_ours():
    """Twisted finds the ``bitsite:`` endpoint (twisted/plugins/bitsite_endpoints.py)
    as daphne's ``-e`` finds it, and it wraps what listens on it."""
    found = serverFromString(reactor, "bitsite:port=0:interface=127.0.0.1")
    assert isinstance(found, Endpoint)
    assert found.limits["exempt"] == ["127.0.0.1", "::1"]  # the tests' harness


def test_only_the_proxys_and_the_named_addresses_are_not_counted(settings):
    from bitsite import connections

    settings.RATE_LIMIT_EXEMPT, settings.PROXY_ADDRESSES = [], []  # the site's defaults
    assert connections.limits()["exempt"] == []
    settings.PROXY_ADDRESSES = ["127.0.0.1", "::1"]  # DJANGO_BEHIND_PROXY=1
    assert connections.limits()["exempt"] == ["127.0.0.1", "::1"]


def test_a_burst_of_connections_past_the_limit_is_closed_as_it_is_accepted(servers):
    server = servers(BITSITE_CONNECTIONS_BURST="5", BITSITE_CONNECTIONS_PER_SECOND="0.01")
    with ExitStack() as stack:
        first = [stack.enter_context(connect(server.port)) for _ in range(5)]
        assert all(answered(sock) for sock in first)
        past = stack.enter_context(connect(server.port))
        assert not answered(past)
        # Another address, and the exempt loopback, are served all the while.
        assert answered(stack.enter_context(connect(server.port, "127.0.0.3")))
        assert all(
            answered(stack.enter_context(connect(server.port, "127.0.0.1"))) for _ in range(8)
        )


def test_connections_open_at_once_are_capped_per_address(servers):
    server = servers(BITSITE_CONNECTIONS_PER_ADDRESS="3", BITSITE_CONNECTIONS_BURST="0")
    with ExitStack() as stack:
        held = [stack.enter_context(connect(server.port)) for _ in range(3)]
        assert all(answered(sock) for sock in held)
        with connect(server.port) as past:
            assert not answered(past)
        held[0].close()  # one goes: the next is let in, once the server has seen it go

        def one_more_answered() -> bool:
            with connect(server.port) as sock:
                return answered(sock)

        until_sync(one_more_answered, timeout=10)


def test_a_bucket_refills_at_its_rate_and_a_full_one_is_forgotten():
    """The wrapper on its own: two at once, then one a second; an address whose bucket is
    full again is forgotten when the addresses are pruned; exempt ones are not counted."""

    class Peer:
        def __init__(self, host):
            self.host = host

    admission = Admission(None, per_address=0, burst=2, per_second=1.0, exempt=["127.0.0.1"])
    host = "192.0.2.1"
    assert admission._take(host) and admission._take(host)
    assert not admission._take(host)
    tokens, when = admission.buckets[host]
    admission.buckets[host] = (tokens, when - 1.1)  # a second and a bit later
    assert admission._take(host)
    assert not admission._take(host)
    tokens, when = admission.buckets[host]
    admission._prune(when + 1.0)  # one token back of two: still remembered
    assert host in admission.buckets
    admission._prune(when + 2.5)  # full again
    assert admission.buckets == {}
    assert admission._host(Peer("127.0.0.1")) is None
    assert admission._host(Peer("192.0.2.7")) == "192.0.2.7"
