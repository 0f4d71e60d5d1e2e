"""Who may open a websocket on this server process: decided in memory, before any work.

Every socket of the site (games/sockets.py) passes here first, before the rate limit's
cache, before any database read or render, so that a storm of sockets from one client
costs the others as little as possible:

- **its client's sockets** (``Client``): a browser is its session cookie; a socket
  without one is its client address. A browser may have ``SOCKETS_PER_PROCESS`` sockets
  open on this process (4409), a cookie-less address ``SOCKETS_PER_ADDRESS`` (4409),
  and either at most ``HANDSHAKES_PER_CLIENT`` handshakes in progress at once (4503: the
  page tries again a moment later). Addresses in ``RATE_LIMIT_EXEMPT`` (none by default:
  a load test's) are not capped per address, as they are not rate-limited per address;
  behind a proxy, daphne's ``--proxy-headers`` gives each client its own address.
- **the process's handshakes** (``gate``): at most ``HANDSHAKES`` sockets do their
  handshake's work (read, draw, join, send the first board) at once; others wait in
  line, a browser's (with a session cookie) before a cookie-less one's, and past
  ``HANDSHAKE_QUEUE`` waiting a socket is refused at once with 4503 instead of queueing
  behind a burst; a browser's socket that finds the line full takes the place of the last
  cookie-less one, which is refused instead (a storm never closes a player's page).

Counts are per process (each daphne process admits its own share): no network, no
thread hop, nothing that waits.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Client:
    """Whose socket this is: a session (a browser) or, without a cookie, an address."""

    key: str
    has_session: bool
    capped: bool  # counted against a cap (an exempt address is not)

    @classmethod
    def of(cls, session_key: str | None, address: str) -> Client:
        if session_key:
            return cls("session:" + session_key, True, True)
        return cls("address:" + address, False, address not in settings.RATE_LIMIT_EXEMPT)

    @property
    def open_cap(self) -> int:
        return settings.SOCKETS_PER_PROCESS if self.has_session else settings.SOCKETS_PER_ADDRESS


_open: Counter[str] = Counter()  # sockets open, by client
_shaking: Counter[str] = Counter()  # handshakes in progress, by client


def admit(client: Client) -> bool:
    """Count one more open socket of this client, unless it has its share open."""
    if not client.capped:
        return True
    if _open[client.key] >= client.open_cap:
        return False
    _open[client.key] += 1
    return True


def release(client: Client) -> None:
    if not client.capped:
        return
    _open[client.key] -= 1
    if _open[client.key] <= 0:
        del _open[client.key]


def open_count(client: Client) -> int:
    return _open.get(client.key, 0)


class Gate:
    """The process's handshakes in progress: ``HANDSHAKES`` at once, the rest in line."""

    def __init__(self):
        self.busy = 0
        # Waiting handshakes, by whether they carry a session cookie: a browser's first.
        self.lines: dict[bool, deque[asyncio.Future]] = {True: deque(), False: deque()}

    def waiting(self) -> int:
        return len(self.lines[True]) + len(self.lines[False])

    async def enter(self, client: Client) -> bool:
        """Wait for a turn; False (refuse at once) when this client has its share of
        handshakes in progress, or the line is full."""
        if client.capped and _shaking[client.key] >= settings.HANDSHAKES_PER_CLIENT:
            return False
        if self.busy < settings.HANDSHAKES and not self.waiting():
            self.busy += 1
        elif self.waiting() >= settings.HANDSHAKE_QUEUE and not (
            client.has_session and self._turn_away_a_cookieless_one()
        ):
            return False
        else:
            turn = asyncio.get_running_loop().create_future()
            line = self.lines[client.has_session]
            line.append(turn)
            if client.capped:
                _shaking[client.key] += 1
            try:
                # True: handed a turn by ``leave`` (``busy`` already counts it); False:
                # turned away from the line for a browser's socket.
                granted = await turn
            except asyncio.CancelledError:
                if turn in line:
                    line.remove(turn)
                elif turn.done() and not turn.cancelled() and turn.result():
                    self._pass_on()  # it was handed a turn as it was cancelled
                self._forget(client)
                raise
            if not granted:
                self._forget(client)
            return granted
        if client.capped:
            _shaking[client.key] += 1
        return True

    def leave(self, client: Client) -> None:
        self._forget(client)
        self._pass_on()

    def _forget(self, client: Client) -> None:
        if client.capped:
            _shaking[client.key] -= 1
            if _shaking[client.key] <= 0:
                del _shaking[client.key]

    def _turn_away_a_cookieless_one(self) -> bool:
        """The line is full and a browser (a session cookie: a player, a spectator who
        came back) asks: the cookie-less socket that came last gives it its place, and is
        refused as it would have been had it come after (a storm of sockets without a
        cookie never closes a player's page). False if none waits."""
        line = self.lines[False]
        while line:
            turn = line.pop()
            if turn.done():
                continue
            try:
                turn.set_result(False)
            except RuntimeError:  # its event loop is gone (a test's)
                continue
            return True
        return False

    def _pass_on(self) -> None:
        """A turn ends: hand it to the next in line (a browser's first), or free it."""
        for line in (self.lines[True], self.lines[False]):
            while line:
                turn = line.popleft()
                if turn.done():
                    continue
                try:
                    turn.set_result(True)
                except RuntimeError:  # its event loop is gone (a test's)
                    continue
                return
        self.busy = max(0, self.busy - 1)


gate = Gate()


def reset() -> None:
    """Forget every count (tests: each runs its sockets on an event loop of its own)."""
    _open.clear()
    _shaking.clear()
    gate.busy = 0
    gate.lines[True].clear()
    gate.lines[False].clear()
