"""One client flooding the learn app's most expensive pages, and another match's moves.

    python -m benchmarks.flood                 # about seven minutes
    python -m benchmarks.flood --quick         # one turn each, shorter
    python -m benchmarks.flood --kinds cold-analysis,hot-analysis --env BITSITE_ANALYSIS_POOL=thread

On a fresh server (daphne as `make run` starts it, less its access log: benchmarks.servers;
SQLite, the in-process channel layer), one friend match of Last Bit Standing is played by
its two players as benchmarks/load.py plays it (moves POSTed to /m/<id>/move, each timed
from its POST to the opponent's websocket receiving the board that shows it; open loop,
``--rate`` moves a second). Meanwhile one client keeps ``--in-flight`` (8) GETs of one kind
of expensive page in flight (a closed loop: each sends its next request when its answer
has come), with no cookie, from an address of its own (daphne reads it from
``X-Forwarded-For``, as behind a proxy: ``--proxy-headers``), or with ``--loopback`` from
127.0.0.1, which the rate limits do not count per address (``BITSITE_RATE_EXEMPT``).

Each kind (FLOODS) alternates with a quiet turn, ``--segments`` times, so that a burst of
someone else's load on the shared machine falls on both; before each turn the server is
let go quiet. Printed: the match's move p50 and p99 during the flood against quiet, as
ratios (the target: within 2x at p50), what the flood's answers were (200, 429, 503, ...)
and the CPU time of the server and of its child processes (the analysis pool's).

``flood_run(env, args)`` is the phase for benchmarks.run (``args`` from ``parse_args``,
e.g. ``parse_args(["--quick"])`` for a tiny run; ``env`` a server environment as
``benchmarks.servers.bench_env`` makes it, on a prepared database); ``main`` runs it
alone. Figures, before and after the learn app's limits, cache and pool:
docs/features/learn.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field

from benchmarks import load
from benchmarks.servers import BenchServer, run_alone, run_module, wait_quiet
from games.rules import get_game

# The flooder's addresses, as a proxy would pass them (TEST-NET-3: never a real client):
# one per kind, so that one kind's counts do not limit the next.
FLOOD_NETWORK = "203.0.113."
LONG_LINE = 400  # plies of the longest line the analysis board takes (MAX_PLIES)

FLOODS = {
    "cold-analysis": "the analysis board of Bitwise Battle, 56-64 bits, divisible by 500-1000, "
    "options varied each request (every answer a cold solve)",
    "hot-analysis": "the analysis board's most expensive start, Bitwise Battle, 64 bits, "
    "divisible by 997, the same each request (after the first, a cached answer)",
    "cold-theory": "the theory page of Bitwise Battle, options varied as cold-analysis",
    "long-line": f"the analysis board of Last Bit Standing with a {LONG_LINE}-ply line, the same "
    "each request (the largest page it draws)",
    # References: what a flood of the cheapest answers costs.
    "bare-get": "the bare baseline's GET (/bench/get): the framework's own floor",
    "not-found": "a page that is not there: the site's cheapest answer through its middleware",
}


class FloodServer(BenchServer):
    """The benchmark's server, reading the client's address from X-Forwarded-For."""

    daphne_args = (*BenchServer.daphne_args, "--proxy-headers")


def cold_options(rng: random.Random) -> list[tuple[int, int]]:
    """(target, max_length) pairs, shuffled: each a set of options never asked before."""
    pairs = [(k, n) for k in range(500, 1001) for n in range(56, 65)]
    rng.shuffle(pairs)
    return pairs


def long_line(seed: int) -> str:
    """A legal line of Last Bit Standing, LONG_LINE plies that do not end it, as a query."""
    game = get_game("last-bit-standing")
    pos, moves, rng = game.start(), [], random.Random(seed)
    while len(moves) < LONG_LINE:
        legal = game.legal_moves(pos)
        going_on = [m for m in legal if game.play(pos, m).result is None]
        move = rng.choice(going_on or legal)
        moves.append(move)
        pos = game.play(pos, move)
    return "moves=" + ".".join(move.replace(" ", "-") for move in moves)


@dataclass
class Flood:
    """One kind of flood: the next URL path for each request, and what came back."""

    kind: str
    seed: int
    address: str = ""
    answers: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    sent: int = 0

    def __post_init__(self):
        self.rng = random.Random(f"{self.seed}-{self.kind}")
        self.cold = cold_options(self.rng)
        self.line = long_line(self.seed) if self.kind == "long-line" else ""

    def path(self) -> str:
        if self.kind == "hot-analysis":
            return "/games/bitwise-battle/analysis/?target=997&max_length=64"
        if self.kind == "long-line":
            return f"/games/last-bit-standing/analysis/?{self.line}"
        if self.kind == "bare-get":
            return "/bench/get"
        if self.kind == "not-found":
            return "/games/bitwise-battle/nothing-here/"
        target, length = self.cold[self.sent % len(self.cold)]
        page = "analysis" if self.kind == "cold-analysis" else "theory"
        return f"/games/bitwise-battle/{page}/?target={target}&max_length={length}"

    async def worker(self, client: load.Client, target: load.Target, headers, stop) -> None:
        while not stop.is_set():
            path = self.path()
            self.sent += 1
            t = load.now()
            try:
                async with client.session.get(target.http + path, headers=headers) as r:
                    await r.read()
                    kind = str(r.status)
            except Exception as error:
                kind = type(error).__name__
            self.latencies.append(load.now() - t)
            self.answers[kind] = self.answers.get(kind, 0) + 1


async def moves_while(
    pair, rate, duration, warmup, flood=None, client=None, target=None, args=None
):
    """The match's moves for ``duration`` seconds (open loop), with ``flood`` beside them."""
    stop = asyncio.Event()
    workers = []
    if flood is not None:
        headers = {} if args.loopback else {"X-Forwarded-For": flood.address}
        workers = [
            asyncio.create_task(flood.worker(client, target, headers, stop))
            for _ in range(args.in_flight)
        ]
    try:
        return await load.open_loop([pair], rate, duration, warmup)
    finally:
        stop.set()
        await asyncio.gather(*workers, return_exceptions=True)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


async def flood_kind(server, client, target, pair, kind: str, args) -> dict:
    flood = Flood(kind, args.seed, FLOOD_NETWORK + str(1 + list(FLOODS).index(kind)))
    if kind in ("hot-analysis", "long-line"):  # the first answer computes; the rest are hot
        async with client.session.get(target.http + flood.path()) as r:
            await r.read()
    quiet_out, flood_out = [], []
    quiet_s = flood_s = 0.0
    cpu = {"server": 0.0, "children": 0.0, "seconds": 0.0}
    turn = args.duration / args.segments
    for _ in range(args.segments):
        await wait_quiet(server)
        outcomes, seconds = await moves_while(pair, args.rate, turn, args.warmup)
        quiet_out += outcomes
        quiet_s += seconds
        await wait_quiet(server)
        own0, kids0 = server.cpu_seconds(), server.children_cpu_seconds()
        t0 = time.perf_counter()
        outcomes, seconds = await moves_while(
            pair, args.rate, turn, args.warmup, flood, client, target, args
        )
        own1, kids1 = server.cpu_seconds(), server.children_cpu_seconds()
        cpu["server"] += own1 - own0
        cpu["children"] += max(0.0, kids1 - kids0)
        cpu["seconds"] += time.perf_counter() - t0
        flood_out += outcomes
        flood_s += seconds
    quiet = load.moves_result(quiet_out, quiet_s)
    during = load.moves_result(flood_out, flood_s)
    requests = load.summarize(flood.latencies)
    return {
        "kind": kind,
        "what": FLOODS[kind],
        "in_flight": args.in_flight,
        "from": "127.0.0.1" if args.loopback else flood.address,
        "quiet": quiet,
        "flood": during,
        "p50_ratio": ratio(during["p50_ms"], quiet["p50_ms"]),
        "p99_ratio": ratio(during["p99_ms"], quiet["p99_ms"]),
        "answers": dict(sorted(flood.answers.items())),
        "requests": flood.sent,
        "requests_per_s": flood.sent / cpu["seconds"] if cpu["seconds"] else float("nan"),
        "request_ms": requests,
        "cpu": cpu,
    }


def line(result: dict) -> str:
    q, f, c = result["quiet"], result["flood"], result["cpu"]
    answers = ", ".join(f"{n} x {code}" for code, n in result["answers"].items())
    return (
        f"  {result['kind']:<13} moves p50 {q['p50_ms']:.1f} -> {f['p50_ms']:.1f} ms "
        f"({result['p50_ratio']:.2f}x), p99 {q['p99_ms']:.1f} -> {f['p99_ms']:.1f} ms "
        f"({result['p99_ratio']:.2f}x), move errors {q['errors'] + f['errors']}; "
        f"flood {result['requests_per_s']:.1f}/s ({answers}); CPU in {c['seconds']:.0f} s: "
        f"server {c['server']:.1f} s, pool {c['children']:.1f} s"
    )


async def flood_run(env: dict, args) -> dict:
    """The phase: a fresh server, one match, each kind of flood against quiet turns."""
    row = json.loads(run_module(env, "benchmarks.fixtures", "matches", "1").splitlines()[0])
    server = FloodServer(env, name="bench-flood").start()
    results = {"kinds": {}, "rate": args.rate, "env": args.env}
    try:
        await asyncio.sleep(1.0)
        async with load.Client() as client:
            target = load.Target(server.port)
            pair = load.MatchPair(client, row, {1: target, 2: target}, random.Random(args.seed))
            await pair.open()
            await load.open_loop([pair], args.rate, 2.0, 0.0)  # warm-up
            for kind in args.kinds:
                result = await flood_kind(server, client, target, pair, kind, args)
                results["kinds"][kind] = result
                print(line(result), flush=True)
            await pair.close()
        results["server_tracebacks"] = server.tracebacks()
    finally:
        server.stop()
    return results


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="one turn of 6 s per kind")
    p.add_argument("--kinds", default=",".join(FLOODS), help=f"of {', '.join(FLOODS)}")
    p.add_argument("--in-flight", type=int, default=8, help="the flood's requests in flight")
    p.add_argument("--rate", type=float, default=10.0, help="the match's moves a second")
    p.add_argument("--duration", type=float, help="measured seconds of each kind (24; quick 6)")
    p.add_argument("--segments", type=int, help="quiet and flood turns of each kind (3; quick 1)")
    p.add_argument("--warmup", type=float, default=1.0, help="seconds before each turn counts")
    p.add_argument("--loopback", action="store_true", help="flood from 127.0.0.1 (not limited)")
    p.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(args.kinds) - set(FLOODS)
    if unknown:
        p.error(f"no such kind: {', '.join(sorted(unknown))}")
    args.duration = args.duration or (6.0 if args.quick else 24.0)
    args.segments = args.segments or (1 if args.quick else 3)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    banner = (
        f"Flood: {args.in_flight} requests in flight from "
        f"{'127.0.0.1' if args.loopback else FLOOD_NETWORK + 'x'}, beside one match at "
        f"{args.rate:g} moves/s; {args.duration:g} s of each kind in {args.segments} turns"
    )
    return run_alone(flood_run, args, banner)


if __name__ == "__main__":
    sys.exit(main())
