"""Connections admitted per client address, at the socket, before daphne reads a byte.

A websocket refused by the site's own admission (games/admission.py) has already cost
the server its HTTP parsing, its websocket handshake and an application instance:
about 1.7 ms of CPU on the one event loop every connection shares. A client that opens
500 sockets at once (benchmarks/storms.py) thereby stalls everyone else's moves for
the best part of a second. Refusing at the TCP level costs about 0.05 ms: the
connection is closed as it is accepted, before a protocol reads from it.

So every listening socket of daphne is wrapped (``Admission``, a Twisted
``WrappingFactory``) to count, per client address:

- connections open at once: at most ``CONNECTIONS_PER_ADDRESS`` (browsers keep about
  six HTTP connections and one per page's socket);
- connections opened: a burst of ``CONNECTIONS_BURST``, then ``CONNECTIONS_PER_SECOND``
  (a token bucket). A page load opens a handful; a storm is cut off after the burst.

A connection past either is closed at once. The reverse proxy's addresses
(``PROXY_ADDRESSES``: loopback with ``DJANGO_BEHIND_PROXY``; the proxy enforces the same
limits on its clients: deploy/nginx.conf) and those in ``RATE_LIMIT_EXEMPT`` (a load test)
are not counted. Each setting at 0 turns its limit off.

Daphne listens through this with ``-e bitsite:port=8000:interface=127.0.0.1`` (its
documented ``--endpoint`` option): the endpoint is a Twisted endpoint plugin,
twisted/plugins/bitsite_endpoints.py, which parses the description and hands it here.
Everything here is documented Twisted API (endpoint plugins, ``WrappingFactory``).
"""

from __future__ import annotations

import time

from twisted.internet.endpoints import serverFromString
from twisted.protocols.policies import WrappingFactory

PRUNE_AT = 10_000  # addresses remembered before the idle ones are forgotten


class Admission(WrappingFactory):
    """``wrappedFactory`` (daphne's HTTP factory), with its connections counted per
    client address; a connection past the limits is closed as it is accepted."""

    def __init__(self, wrapped, *, per_address: int, burst: int, per_second: float, exempt):
        super().__init__(wrapped)
        self.per_address = per_address
        self.burst = burst
        self.per_second = per_second
        self.exempt = frozenset(exempt)
        self.open: dict[str, int] = {}
        self.buckets: dict[str, tuple[float, float]] = {}  # address: (tokens, when)
        self.refused = 0

    def logPrefix(self):
        return "bitsite.connections"

    def _host(self, addr) -> str | None:
        host = getattr(addr, "host", None)
        return None if host is None or host in self.exempt else host

    def _take(self, host: str) -> bool:
        """One connection from the bucket of ``host``: False when it is empty."""
        if not self.burst or not self.per_second:
            return True
        now = time.monotonic()
        tokens, when = self.buckets.get(host, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) * self.per_second)
        if tokens < 1.0:
            self.buckets[host] = (tokens, now)
            return False
        self.buckets[host] = (tokens - 1.0, now)
        if len(self.buckets) > PRUNE_AT:
            self._prune(now)
        return True

    def _prune(self, now: float) -> None:
        """Forget the addresses whose bucket has filled up again (as good as new)."""
        for host, (tokens, when) in list(self.buckets.items()):
            if tokens + (now - when) * self.per_second >= self.burst:
                del self.buckets[host]

    def buildProtocol(self, addr):
        host = self._host(addr)
        if host is not None:
            if self.per_address and self.open.get(host, 0) >= self.per_address:
                self.refused += 1
                return None  # Twisted closes the connection
            if not self._take(host):
                self.refused += 1
                return None
        return super().buildProtocol(addr)

    def registerProtocol(self, p):
        super().registerProtocol(p)
        host = self._host(p.getPeer())
        if host is not None:
            self.open[host] = self.open.get(host, 0) + 1

    def unregisterProtocol(self, p):
        super().unregisterProtocol(p)
        host = self._host(p.getPeer())
        if host is not None and host in self.open:
            self.open[host] -= 1
            if self.open[host] <= 0:
                del self.open[host]


class Endpoint:
    """A Twisted server endpoint (``IStreamServerEndpoint``): ``inner``, with whatever
    listens on it wrapped in ``Admission``."""

    def __init__(self, inner, limits: dict):
        self.inner = inner
        self.limits = limits

    def listen(self, factory):
        return self.inner.listen(Admission(factory, **self.limits))


def limits() -> dict:
    """The limits, from the settings (daphne has set Django up by the time it listens)."""
    from django.conf import settings

    return {
        "per_address": settings.CONNECTIONS_PER_ADDRESS,
        "burst": settings.CONNECTIONS_BURST,
        "per_second": settings.CONNECTIONS_PER_SECOND,
        "exempt": [*settings.RATE_LIMIT_EXEMPT, *settings.PROXY_ADDRESSES],
    }


def endpoint(reactor, port: str = "8000", interface: str = "127.0.0.1", backlog: str = "50"):
    """``bitsite:port=P:interface=I``: TCP on ``interface``:``port``, admitted per address."""
    escaped = interface.replace(":", r"\:")  # an IPv6 address in an endpoint description
    inner = serverFromString(
        reactor, f"tcp:port={int(port)}:interface={escaped}:backlog={int(backlog)}"
    )
    return Endpoint(inner, limits())
