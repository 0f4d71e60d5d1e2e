"""The load generator: players, spectators and the bare baseline, over real sockets.

Everything here is client side (asyncio + aiohttp) and talks to daphne over
127.0.0.1 only. It imports the pure rules module to choose real legal moves, and
nothing of Django.

A *pair* is what one move needs: something that sends it and two websockets that
receive the push. Two kinds share the timing code:

* ``MatchPair``: a real friend match. Both players load the match page (which sets
  the CSRF cookie, as a browser's first visit does), open the match websocket
  with their session cookie, and move by POSTing to ``/m/<id>/move`` with the
  ``move`` and ``ply`` fields, ``HX-Request`` and the CSRF header. A move is timed
  from sending its POST to the opponent's websocket receiving the board whose
  ``data-ply`` shows that move.
* ``BarePair``: the bare baseline. Two sockets on ``/ws/bench/group/<key>/``; a
  "move" POSTs ``seq`` to ``/bench/insert/<key>`` (one INSERT, one group send) and
  is timed to the other socket receiving ``seq``.

A match's move goes one of two ways (``Via``), as the match page sends it: POSTed
(above), or as a frame on the mover's own match websocket,
``{"type": "move", "move": ..., "ply": ...}`` (games/consumers.py ``act``). A frame is
timed the same way, from sending it to the opponent's socket receiving the board of
the new ply; the server also answers the mover on its socket with ``<!--answer-->``
and the mover's board, which is waited for (``Socket.expect_answer``) and checked: an
answer still at the old ply is a refusal (a stale ply, the rate limit, an illegal
move) and counts as an error, never as a move. Answers are kept apart from pushes:
they never resolve a push's waiter. ``via(pairs, Via.SOCKET)`` gives the same pairs
moving by frame, so both ways run on the same matches and sockets. The bare
counterpart is ``BarePair(frames=True)``: two sockets on ``/ws/bench/move/<key>/``;
a "move" is the frame ``{"seq": N}`` on one (one INSERT in one thread hop, one group
send), timed to the other receiving ``N``, and its sender answered with
``<!--answer-->N``.

Both can carry more sockets that receive every push: a match's spectators (no
session cookie), a bare group's extra listeners. A move waits for all of them;
their arrival times go in ``Outcome.extra``, and ``moves_result`` reports the
fan-out figure, from the POST to the push reaching the last of them
(``last_listener``).

Open loop: every pair has a fixed schedule of send times (one move each
``interval`` seconds, pairs evenly staggered), independent of the answers. A
pair's next move needs its previous one done (a real player cannot move before
seeing the board), so a move whose predecessor is still in flight at its
scheduled time goes out late and is counted as late. The figures time each move
from sending its POST; ``from_schedule`` keeps the same figures timed from the
scheduled send, so a server that falls behind cannot hide its backlog (no
coordinated omission): the two agree when nothing is late. Closed loop (the
throughput runs): every pair sends its next move as soon as the previous one's
push has arrived.

The presence storm (``storm``, ``connect_probes``): many sockets with one browser's
session cookie opened at once, each either opening (its first board arrives) or
refused (closed with 4409), while new sockets to another match are timed from
connecting to their first board.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import aiohttp

from games.rules import get_game

PLY_RE = re.compile(r'data-ply="(\d+)"')
NOTICE_RE = re.compile(r'id="message">(.*?)</p>', re.S)  # a board's notice: a refusal's words
CSRF_HEADER_RE = re.compile(r'"X-CSRFToken":\s*"([^"]+)"')
PUSH_TIMEOUT = 30.0
HTTP_TIMEOUT = 60.0
# What starts the frame that answers a page's own action (games.consumers.ANSWER; the
# bare websocket move answers with it too): never a push.
ANSWER = "<!--answer-->"
REFUSED = "move refused"  # how an answered but refused move's error starts


class Via(StrEnum):
    """How a match's move is sent: POSTed to /m/<id>/move, or as a frame on the socket."""

    POST = "post"
    SOCKET = "socket"


def now() -> float:
    return time.perf_counter()


@dataclass(frozen=True)
class Target:
    """One daphne process."""

    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return self.http


def percentile(ordered: list[float], p: float) -> float:
    """Linear interpolation between closest ranks; ``ordered`` is sorted."""
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * p / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize(latencies: list[float]) -> dict:
    """Milliseconds."""
    ordered = sorted(latencies)
    ms = [x * 1000 for x in ordered]
    return {
        "count": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else math.nan,
        "mean_ms": sum(ms) / len(ms) if ms else math.nan,
    }


# ---- sockets ---------------------------------------------------------------------------


class Socket:
    """A websocket whose reader resolves waiters on the sequence number it sees.

    A frame that starts with ``ANSWER`` answers this socket's own action: it never counts
    as a push (``seen``, ``wait_for``); it resolves the oldest ``expect_answer`` future
    with (arrival time, the text after the marker), or waits in ``answers`` for one."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, parse: Callable[[str], int | None]):
        self.ws = ws
        self.parse = parse
        self.seen = -1
        self.frames = 0
        self.waiters: dict[int, asyncio.Future] = {}
        self.answers: deque[tuple[float, str]] = deque()  # answers no one took yet
        self.answer_waiters: deque[asyncio.Future] = deque()
        self.first = asyncio.get_running_loop().create_future()
        self.closed_code: int | None = None
        self.last_text = ""  # the last frame it received
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for msg in self.ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                arrived = now()
                self.frames += 1
                self.last_text = msg.data
                if msg.data.startswith(ANSWER):
                    self._answered(arrived, msg.data[len(ANSWER) :])
                    continue
                seq = self.parse(msg.data)
                if seq is None:
                    continue
                if not self.first.done():
                    self.first.set_result(seq)
                if seq > self.seen:
                    self.seen = seq
                    for key in [k for k in self.waiters if k <= seq]:
                        waiter = self.waiters.pop(key)
                        if not waiter.done():
                            waiter.set_result(arrived)
        finally:
            self.closed_code = self.ws.close_code
            error = ConnectionError(f"websocket closed (code {self.ws.close_code})")
            for waiter in [*self.waiters.values(), *self.answer_waiters]:
                if not waiter.done():
                    waiter.set_exception(error)
            if not self.first.done():
                self.first.set_exception(error)

    def _answered(self, arrived: float, text: str) -> None:
        while self.answer_waiters:
            waiter = self.answer_waiters.popleft()
            if not waiter.done():  # not cancelled (a move that gave up on it)
                waiter.set_result((arrived, text))
                return
        self.answers.append((arrived, text))

    def expect_answer(self) -> asyncio.Future:
        """A future for the next answer to this socket's action: (arrival time, the text
        after the marker). Answers that came before and were never taken are dropped: a
        move expects the answer to the frame it is about to send."""
        fut = asyncio.get_running_loop().create_future()
        self.answers.clear()
        if self.task.done():
            fut.set_exception(ConnectionError(f"websocket closed (code {self.closed_code})"))
        else:
            self.answer_waiters.append(fut)
        return fut

    def wait_for(self, seq: int) -> asyncio.Future:
        """A future for the arrival time of ``seq`` (already resolved if it came)."""
        fut = asyncio.get_running_loop().create_future()
        if self.seen >= seq:
            fut.set_result(now())
        elif self.task.done():
            fut.set_exception(ConnectionError("websocket closed"))
        else:
            self.waiters[seq] = fut
        return fut

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.gather(self.task, return_exceptions=True)


async def pushes_arrived(out: Outcome, push, extra, pending) -> None:
    """Unless the move already failed, wait for its push (and the ``extra`` copies), noting
    when each came on ``out``; then cancel whatever of ``pending`` is still waited for."""
    if not out.error:
        try:
            out.arrived = await asyncio.wait_for(push, PUSH_TIMEOUT)
            for fut in extra:
                out.extra.append(await asyncio.wait_for(fut, PUSH_TIMEOUT))
        except (TimeoutError, ConnectionError) as error:
            out.error = f"push missing: {type(error).__name__}"
    for fut in pending:
        if not fut.done():
            fut.cancel()


async def frame_answered(ws, frame: str, answer, out: Outcome) -> str | None:
    """Send ``frame`` on ``ws`` and wait for its answer (``answer``: a future of
    (when, body)), noting when it came on ``out``: the answer's body, or None with
    ``out.error`` saying what failed (the frame's send, or its answer that never came)."""
    try:
        await ws.send_str(frame)
    except Exception as error:
        out.error = f"frame failed: {type(error).__name__}"
        return None
    try:
        out.answered, body = await asyncio.wait_for(answer, PUSH_TIMEOUT)
    except (TimeoutError, ConnectionError) as error:
        out.error = f"answer missing: {type(error).__name__}"
        return None
    return body


def parse_ply(text: str) -> int | None:
    match = PLY_RE.search(text)
    return int(match.group(1)) if match else None


def parse_seq(text: str) -> int | None:
    return int(text) if text.isdigit() else None


class Client:
    """One aiohttp session (no cookie jar: each request carries its player's cookies).
    ``compress``: the websockets offer permessage-deflate with this window (15, as browsers
    do), or nothing (0)."""

    def __init__(self, compress: int = 0, address: str | None = None):
        self.session: aiohttp.ClientSession | None = None
        self.compress = compress
        self.address = address  # the local address it connects from (default: any)

    async def __aenter__(self) -> Client:
        local = (self.address, 0) if self.address else None
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(
                limit=0, limit_per_host=0, ttl_dns_cache=None, local_addr=local
            ),
            cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=HTTP_TIMEOUT),
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.session.close()

    async def socket(
        self,
        target: Target,
        path: str,
        parse,
        cookie: str = "",
        timeout: float = 60.0,
        headers: dict | None = None,
    ) -> Socket:
        headers = {"Origin": target.origin, **(headers or {})}
        if cookie:
            headers["Cookie"] = cookie
        ws = await self.session.ws_connect(
            target.ws + path,
            headers=headers,
            autoping=True,
            max_msg_size=0,
            timeout=timeout,
            compress=self.compress,
        )
        return Socket(ws, parse)


# ---- pairs: what a move is ---------------------------------------------------------------


@dataclass
class Outcome:
    scheduled: float
    sent: float
    arrived: float | None = None
    answered: float | None = None
    error: str = ""
    late: bool = False  # sent after its scheduled time: its predecessor was still in flight
    extra: list[float] = field(default_factory=list)  # spectators' arrival times


class MatchPair:
    """A real match: two seated players (each maybe on its own server process)."""

    def __init__(self, client: Client, row: dict, targets: dict[int, Target], rng: random.Random):
        self.client = client
        self.public_id = row["public_id"]
        self.game = get_game(row["game"])
        self.pos = self.game.start()
        self.first_seat = row["first_seat"]
        self.sessions = {int(seat): key for seat, key in row["sessions"].items()}
        self.targets = targets  # seat -> server
        self.cookies: dict[int, str] = {}
        self.csrf: dict[int, str] = {}
        self.sockets: dict[int, Socket] = {}
        self.spectators: list[Socket] = []
        self.rng = rng

    @property
    def path(self) -> str:
        return f"/m/{self.public_id}/"

    async def open(self, spectators: int = 0, spectator_target: Target | None = None) -> None:
        for seat in (1, 2):
            await self._load_page(seat)
        for seat in (1, 2):
            self.sockets[seat] = await self.client.socket(
                self.targets[seat], "/ws" + self.path, parse_ply, self.cookies[seat]
            )

        async def spectator(_) -> None:
            self.spectators.append(
                await self.client.socket(
                    spectator_target or self.targets[1], "/ws" + self.path, parse_ply
                )
            )

        await open_all(range(spectators), spectator)
        for sock in [*self.sockets.values(), *self.spectators]:
            ply = await asyncio.wait_for(asyncio.shield(sock.first), PUSH_TIMEOUT)
            if ply != self.pos.ply:
                raise RuntimeError(
                    f"match {self.public_id} is at ply {ply}, expected {self.pos.ply}"
                )

    async def _load_page(self, seat: int) -> None:
        """GET the match page with the session cookie, as a browser's first visit does."""
        target = self.targets[seat]
        cookie = f"sessionid={self.sessions[seat]}"
        async with self.client.session.get(
            target.http + self.path, headers={"Cookie": cookie}
        ) as r:
            body = await r.text()
            if r.status != 200:
                raise RuntimeError(f"GET {self.path} answered {r.status}")
            morsel = r.cookies.get("csrftoken")
        header = CSRF_HEADER_RE.search(body)
        if morsel is None or header is None:
            raise RuntimeError(f"GET {self.path} set no CSRF cookie or header token")
        self.cookies[seat] = f"{cookie}; csrftoken={morsel.value}"
        self.csrf[seat] = header.group(1)

    def _mover(self) -> int:
        player = self.pos.to_move
        return player if self.first_seat == 1 else 3 - player

    def _choose(self) -> str:
        """A real legal move, preferring one that does not end the game (so play goes on)."""
        legal = self.game.legal_moves(self.pos)
        going_on = [m for m in legal if self.game.play(self.pos, m).result is None]
        return self.rng.choice(going_on or legal)

    async def move(self, scheduled: float, via: Via = Via.POST) -> Outcome:
        """One move of the player to move: POSTed, or as a frame on their socket (``via``);
        timed from sending it to the opponent's socket receiving the board of its ply."""
        seat = self._mover()
        opponent = 3 - seat
        text = self._choose()
        ply = self.pos.ply
        push = self.sockets[opponent].wait_for(ply + 1)
        extra = [s.wait_for(ply + 1) for s in self.spectators]
        if via == Via.SOCKET:
            answer = self.sockets[seat].expect_answer()
            out = Outcome(scheduled=scheduled, sent=now())
            await self._send_frame(seat, text, ply, answer, out)
            pending = [push, *extra, answer]
        else:
            out = Outcome(scheduled=scheduled, sent=now())
            await self._post(seat, text, ply, out)
            pending = [push, *extra]
        if not out.error:
            self.pos = self.game.play(self.pos, text)
        await pushes_arrived(out, push, extra, pending)
        return out

    async def _send_frame(self, seat: int, text: str, ply: int, answer, out: Outcome) -> None:
        """The move as the page sends it over its socket, and its answer checked: the
        mover's board at the new ply (a board still at ``ply`` says why it was refused)."""
        frame = json.dumps({"type": "move", "move": text, "ply": ply})
        body = await frame_answered(self.sockets[seat].ws, frame, answer, out)
        if body is None:
            return
        # A refusal answers with the current board and its sentence: the board may show
        # ply + 1 all the same (a stale frame for a ply already played), so the notice
        # decides as much as the ply does.
        notice = NOTICE_RE.search(body)
        if notice or parse_ply(body) != ply + 1:
            words = re.sub(r"<[^>]+>", "", notice.group(1)).strip()[:80] if notice else ""
            out.error = f"{REFUSED}: {words or 'its answer shows another ply'}"

    async def _post(self, seat: int, text: str, ply: int, out: Outcome) -> None:
        target = self.targets[seat]
        headers = {
            "Cookie": self.cookies[seat],
            "X-CSRFToken": self.csrf[seat],
            "HX-Request": "true",
            "HX-Current-URL": target.http + self.path,
            "Origin": target.origin,
        }
        try:
            async with self.client.session.post(
                f"{target.http}/m/{self.public_id}/move",
                data={"move": text, "ply": str(ply)},
                headers=headers,
            ) as r:
                body = await r.text()
                out.answered = now()
                if r.status != 200:
                    out.error = f"HTTP {r.status}"
                elif parse_ply(body) != ply + 1:
                    out.error = "answer shows the wrong ply"
        except Exception as error:
            out.error = f"POST failed: {type(error).__name__}"

    async def close(self) -> None:
        await asyncio.gather(
            *(s.close() for s in [*self.sockets.values(), *self.spectators]),
            return_exceptions=True,
        )


class Moving:
    """A match pair that moves one way (``Via``): what the open and closed loops drive."""

    def __init__(self, pair: MatchPair, how: Via):
        self.pair = pair
        self.how = how

    async def move(self, scheduled: float) -> Outcome:
        return await self.pair.move(scheduled, via=self.how)


def via(pairs: list[MatchPair], how: Via) -> list[Moving]:
    """The same pairs (their matches and sockets), moving ``how``."""
    return [Moving(pair, how) for pair in pairs]


class BarePair:
    """The baseline: two bare group sockets; a move is one bare insert + group send.

    ``listeners``: that many more bare sockets in the same group (the fan-out baseline,
    the bare counterpart of a match's spectators); their arrival times go in
    ``Outcome.extra`` as the spectators' do. ``frames``: the bare websocket move instead,
    two sockets on /ws/bench/move/<key>/ and a move sent as a frame ``{"seq": N}`` on one
    of them (one INSERT in one thread hop, one group send), its answer waited for."""

    def __init__(
        self, client: Client, key: str, targets: dict[int, Target], *, frames: bool = False
    ):
        self.client = client
        self.key = key
        self.targets = targets
        self.frames = frames
        self.sockets: dict[int, Socket] = {}
        self.listeners: list[Socket] = []
        self.seq = 0

    @property
    def path(self) -> str:
        return f"/ws/bench/{'move' if self.frames else 'group'}/{self.key}/"

    async def open(self, listeners: int = 0) -> None:
        for side in (1, 2):
            self.sockets[side] = await self.client.socket(self.targets[side], self.path, parse_seq)

        async def listener(_) -> None:
            self.listeners.append(await self.client.socket(self.targets[1], self.path, parse_seq))

        await open_all(range(listeners), listener)
        # The group consumer sends nothing on connect: check the group with one message.
        out = await self.move(now())
        if out.error:
            raise RuntimeError(f"bare group {self.key}: {out.error}")

    async def move(self, scheduled: float) -> Outcome:
        self.seq += 1
        side = 1 + self.seq % 2  # alternate the sender, like two players
        other = 3 - side
        push = self.sockets[other].wait_for(self.seq)
        extra = [s.wait_for(self.seq) for s in self.listeners]
        answer = self.sockets[side].expect_answer() if self.frames else None
        sent = now()
        out = Outcome(scheduled=scheduled, sent=sent)
        if answer is not None:
            await self._send_frame(side, answer, out)
        else:
            await self._post(side, out)
        await pushes_arrived(
            out, push, extra, [push, *extra, *([answer] if answer is not None else [])]
        )
        return out

    async def _post(self, side: int, out: Outcome) -> None:
        target = self.targets[side]
        try:
            async with self.client.session.post(
                f"{target.http}/bench/insert/{self.key}",
                data={"seq": str(self.seq)},
                headers={"Origin": target.origin},
            ) as r:
                await r.read()
                out.answered = now()
                if r.status != 200:
                    out.error = f"HTTP {r.status}"
        except Exception as error:
            out.error = f"POST failed: {type(error).__name__}"

    async def _send_frame(self, side: int, answer, out: Outcome) -> None:
        frame = json.dumps({"seq": self.seq})
        body = await frame_answered(self.sockets[side].ws, frame, answer, out)
        if body is None:
            return
        if parse_seq(body) != self.seq:
            out.error = f"{REFUSED}: its answer is not its seq"

    async def close(self) -> None:
        await asyncio.gather(
            *(s.close() for s in [*self.sockets.values(), *self.listeners]),
            return_exceptions=True,
        )


async def open_all(items, opener, concurrency: int = 25) -> None:
    """Open pairs or sockets a few at a time (the server shares the machine)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item):
        async with gate:
            await opener(item)

    await asyncio.gather(*(one(item) for item in items))


# ---- the runs ---------------------------------------------------------------------------


def moves_result(outcomes: list[Outcome], seconds: float) -> dict:
    """Figures for the moves scheduled inside the measured windows (``seconds`` long in all)."""
    ok = [o for o in outcomes if not o.error and o.arrived is not None]
    errors = [o.error for o in outcomes if o.error]
    result = summarize([o.arrived - o.sent for o in ok])
    result["from_schedule"] = summarize([o.arrived - o.scheduled for o in ok])
    result["answer"] = summarize([o.answered - o.sent for o in ok if o.answered])
    spect = [t - o.scheduled for o in ok for t in o.extra]
    if spect:
        # Every spectator's (or bare listener's) push, timed from the scheduled send.
        result["spectators"] = summarize(spect)
        # The fan-out figure: from sending the POST to the push reaching the LAST of them.
        result["last_listener"] = summarize([max(o.extra) - o.sent for o in ok if o.extra])
        result["last_listener"]["from_schedule"] = summarize(
            [max(o.extra) - o.scheduled for o in ok if o.extra]
        )
        result["pushes"] = sum(len(o.extra) for o in ok)
    result.update(
        moves=len(ok),
        sent=len(outcomes),
        answered=sum(1 for o in ok if o.answered is not None),
        errors=len(errors),
        refused=sum(1 for e in errors if e.startswith(REFUSED)),
        error_kinds=sorted(set(errors)),
        late=sum(o.late for o in outcomes),
        seconds=seconds,
        moves_per_s=len(ok) / seconds if seconds > 0 else math.nan,
    )
    return result


def _window(outcomes: list[Outcome], measured_from: float, measured_to: float):
    """The outcomes scheduled in the window, and the window's length: at least until the
    last of their pushes arrived, so a server that falls behind shows a lower rate."""
    inside = [o for o in outcomes if measured_from <= o.scheduled < measured_to]
    span = measured_to - measured_from
    arrived = [o.arrived for o in inside if o.arrived is not None]
    if arrived:
        span = max(span, max(arrived) - measured_from)
    return inside, span


async def open_loop(pairs, rate: float, duration: float, warmup: float):
    """Each pair moves every len(pairs)/rate seconds, staggered: ``rate`` moves/s overall.

    Returns the outcomes of the moves scheduled after the warm-up, and the window's length.
    """
    n = len(pairs)
    interval = n / rate
    start = now() + 0.2
    measured_from = start + warmup
    measured_to = measured_from + duration
    outcomes: list[Outcome] = []

    async def run(index: int, pair) -> None:
        scheduled = start + interval * index / n
        while scheduled < measured_to:
            delay = scheduled - now()
            if delay > 0:
                await asyncio.sleep(delay)
            late = delay < 0  # the previous move of this pair was still in flight
            outcome = await pair.move(scheduled)
            outcome.late = late
            outcomes.append(outcome)
            scheduled += interval

    await asyncio.gather(*(run(i, p) for i, p in enumerate(pairs)))
    return _window(outcomes, measured_from, measured_to)


async def closed_loop(pairs, duration: float, warmup: float):
    """Every pair moves again as soon as its previous move's push has arrived.

    With many pairs a move can take longer than the window, so the window counts the
    moves whose push *arrived* in it (the server's completions); no new move starts
    after it, and the moves still in flight are waited for (the next run needs them done).
    """
    start = now()
    measured_from = start + warmup
    measured_to = measured_from + duration
    outcomes: list[Outcome] = []

    async def run(pair) -> None:
        while now() < measured_to:
            t = now()
            outcomes.append(await pair.move(t))

    await asyncio.gather(*(run(p) for p in pairs))
    inside = [
        o
        for o in outcomes
        if measured_from <= (o.arrived if o.arrived is not None else o.sent) < measured_to
    ]
    return inside, duration


async def get_loop(
    client: Client,
    targets: list[Target],
    workers: int,
    duration: float,
    warmup: float,
    path: str = "/bench/get",
):
    """Closed-loop GETs by ``workers`` concurrent clients, spread over the targets.

    Returns the (latency, error) of each request completed in the window, and its length.
    """
    start = now()
    measured_from = start + warmup
    measured_to = measured_from + duration
    samples: list[tuple[float, str]] = []

    async def run(index: int) -> None:
        target = targets[index % len(targets)]
        url = target.http + path
        while True:
            t = now()
            if t >= measured_to:
                return
            try:
                async with client.session.get(url) as r:
                    await r.read()
                    error = "" if r.status == 200 else f"HTTP {r.status}"
            except Exception as exc:
                error = type(exc).__name__
            done = now()
            if measured_from <= done < measured_to:  # completions in the window, as above
                samples.append((done - t, error))

    await asyncio.gather(*(run(i) for i in range(workers)))
    return samples, duration


def requests_result(samples: list[tuple[float, str]], seconds: float, workers: int) -> dict:
    ok = [latency for latency, error in samples if not error]
    errors = [error for _, error in samples if error]
    result = summarize(ok)
    result.update(
        requests=len(ok),
        errors=len(errors),
        error_kinds=sorted(set(errors)),
        seconds=seconds,
        requests_per_s=len(ok) / seconds,
        workers=workers,
    )
    return result


async def interleaved(runs: dict, duration: float, warmup: float, segments: int) -> dict:
    """Run each of ``runs`` (name -> f(duration, warmup) returning (items, seconds)) in turn,
    ``segments`` times, each for duration/segments: on a shared, noisy machine a burst of
    someone else's load then falls on all of them alike. Returns name -> (items, seconds)."""
    merged = {name: ([], 0.0) for name in runs}
    for segment in range(segments):
        for name, run in runs.items():
            items, seconds = await run(duration / segments, warmup if segment == 0 else 1.0)
            merged[name] = (merged[name][0] + items, merged[name][1] + seconds)
    return merged


async def echo_loop(
    client: Client, target: Target, sockets: int, duration: float, warmup: float
) -> dict:
    """Round trips on ``sockets`` echo websockets, each sending its next frame on the echo."""
    socks = []
    counter = {"n": 0}

    def parse(text: str) -> int | None:
        return int(text) if text.isdigit() else None

    async def opener(_):
        socks.append(await client.socket(target, "/ws/bench/echo/", parse))

    await open_all(range(sockets), opener)
    start = now()
    measured_from = start + warmup
    measured_to = measured_from + duration
    latencies: list[float] = []
    errors: list[str] = []

    async def run(sock: Socket) -> None:
        seq = 0
        while now() < measured_to:
            seq += 1
            fut = sock.wait_for(seq)
            t = now()
            try:
                await sock.ws.send_str(str(seq))
                arrived = await asyncio.wait_for(fut, PUSH_TIMEOUT)
            except Exception as error:
                errors.append(type(error).__name__)
                return
            if t >= measured_from:
                latencies.append(arrived - t)
                counter["n"] += 1

    await asyncio.gather(*(run(s) for s in socks))
    span = max(now() - measured_from, 1e-9)
    await asyncio.gather(*(s.close() for s in socks), return_exceptions=True)
    result = summarize(latencies)
    result.update(
        round_trips=len(latencies),
        errors=len(errors),
        round_trips_per_s=len(latencies) / span,
        sockets=sockets,
    )
    return result


# ---- connects and socket storms (the presence-storm phase) ------------------------------

CLOSE_TOO_MANY = 4409  # the site's "too many pages of this match open in this browser"
CLOSE_BUSY = 4503  # the site's "busy, try again": a client's handshakes past its share


async def connect_time(client: Client, target: Target, path: str, cookie: str = ""):
    """One new websocket: seconds from starting to connect to its first board (the
    snapshot), then closed; and an error ("" when it worked)."""
    t = now()
    try:
        sock = await client.socket(target, path, parse_ply, cookie)
    except Exception as error:
        return now() - t, f"connect failed: {type(error).__name__}"
    try:
        await asyncio.wait_for(asyncio.shield(sock.first), PUSH_TIMEOUT)
        took, error = now() - t, ""
    except (TimeoutError, ConnectionError) as exc:
        took, error = now() - t, f"no board: {type(exc).__name__} (code {sock.closed_code})"
    await sock.close()
    return took, error


async def connect_probes(
    client: Client, target: Target, path: str, gap: float, *, count=None, until=None
) -> list[tuple[float, str]]:
    """New sockets one after another, ``gap`` seconds apart: ``count`` of them, or as many
    as start before the future ``until`` is done."""
    samples: list[tuple[float, str]] = []
    while (count is None or len(samples) < count) and not (until is not None and until.done()):
        samples.append(await connect_time(client, target, path))
        await asyncio.sleep(gap)
    return samples


def connects_result(samples: list[tuple[float, str]]) -> dict:
    result = summarize([took for took, error in samples if not error])
    errors = [error for _, error in samples if error]
    result.update(errors=len(errors), error_kinds=sorted(set(errors)))
    return result


async def storm(
    client: Client,
    target: Target,
    path: str,
    cookie: str,
    parse=parse_ply,
    hello: str | None = None,
    *,
    count: int,
    hold: float,
    headers: dict | None = None,
) -> dict:
    """``count`` websockets opened at once with one browser's cookie, held ``hold`` seconds,
    then closed. Each either opens (its first board arrives) or is refused (closed with
    4409, or 4503 past the client's handshakes in progress); anything else is counted by
    what happened. ``hello``: a frame each socket sends first (a bare echo socket's
    "first board" is its answer); ``headers``: more headers for each handshake
    (``X-Forwarded-For``: one client behind a proxy)."""

    async def one():
        try:
            sock = await client.socket(target, path, parse, cookie, headers=headers)
            if hello is not None:
                await sock.ws.send_str(hello)
        except Exception as error:
            return f"connect failed: {type(error).__name__}", None
        try:
            await asyncio.wait_for(asyncio.shield(sock.first), PUSH_TIMEOUT)
            return "opened", sock
        except TimeoutError:
            return "no board in time", sock
        except ConnectionError:
            await asyncio.gather(sock.task, return_exceptions=True)
            if sock.closed_code == CLOSE_TOO_MANY:
                return "refused", sock
            if sock.closed_code == CLOSE_BUSY:
                return "busy", sock
            return f"closed with code {sock.closed_code}", sock

    t = now()
    outcomes = await asyncio.gather(*(one() for _ in range(count)))
    settled = now() - t
    await asyncio.sleep(hold)
    opened = [sock for kind, sock in outcomes if kind == "opened"]
    still_open = sum(1 for sock in opened if not sock.task.done())
    t = now()
    await asyncio.gather(
        *(sock.close() for _, sock in outcomes if sock is not None), return_exceptions=True
    )
    closed = now() - t
    kinds: dict[str, int] = {}
    for kind, _ in outcomes:
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "sockets": count,
        "opened": kinds.pop("opened", 0),
        "refused": kinds.pop("refused", 0),
        "busy": kinds.pop("busy", 0),  # refused at once, past the client's handshakes
        "other": kinds,  # what happened to a socket that neither opened nor was refused
        "still_open": still_open,  # of the opened ones, still open when the hold ended
        "settle_seconds": settled,  # until every socket opened or was refused
        "close_seconds": closed,
        "hold_seconds": hold,
    }
