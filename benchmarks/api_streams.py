"""The API's game streams against the match pages' sockets (issue 26): one server, two
friend matches, one watched by N NDJSON streams (``GET /api/stream/game/{id}``, anonymous,
as a watching program opens it) and one by N spectator websockets (the match page's);
moves at the fan-out's rate on both, interleaved in turns, each timed from its POST to its
line (or push) reaching the LAST of the N. Target: streams within 2x the sockets (p50 and
p99). Both receive what one change drew once (api/live.py, games/live.py); the ratio
is the price of the HTTP stream and its JSON line against the websocket and its board."""

from __future__ import annotations

import asyncio
import json
import random
import re

import aiohttp

from benchmarks import load
from benchmarks.servers import BenchServer, run_module

STATE_PLY = re.compile(rb'^\{"type":"state","version":\d+,"ply":(\d+)')


class StreamReader:
    """One NDJSON game stream read a line at a time; resolves waiters on the ply of each
    ``state`` line, as load.Socket does on a board's ply."""

    def __init__(self, response: aiohttp.ClientResponse):
        self.response = response
        self.seen = -1
        self.waiters: dict[int, asyncio.Future] = {}
        self.first = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                line = await self.response.content.readline()
                if not line:
                    return
                arrived = load.now()
                if not line.strip():
                    continue  # a keep-alive
                found = STATE_PLY.match(line)
                if found:
                    ply = int(found.group(1))
                elif not self.first.done():
                    ply = json.loads(line)["state"]["ply"]  # the full state, once
                else:
                    continue
                if not self.first.done():
                    self.first.set_result(ply)
                if ply > self.seen:
                    self.seen = ply
                    for key in [k for k in self.waiters if k <= ply]:
                        waiter = self.waiters.pop(key)
                        if not waiter.done():
                            waiter.set_result(arrived)
        except (aiohttp.ClientError, asyncio.CancelledError):
            pass
        finally:
            error = ConnectionError("stream closed")
            for waiter in self.waiters.values():
                if not waiter.done():
                    waiter.set_exception(error)
            if not self.first.done():
                self.first.set_exception(error)

    def wait_for(self, seq: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        if self.seen >= seq:
            fut.set_result(load.now())
        elif self.task.done():
            fut.set_exception(ConnectionError("stream closed"))
        else:
            self.waiters[seq] = fut
        return fut

    async def close(self) -> None:
        self.task.cancel()
        self.response.close()
        await asyncio.gather(self.task, return_exceptions=True)


class StreamedPair(load.MatchPair):
    """A real match whose watchers are API streams instead of spectator sockets."""

    async def open(self, spectators: int = 0, spectator_target=None) -> None:
        await super().open(0)
        target = spectator_target or self.targets[1]

        async def stream(_) -> None:
            response = await self.client.session.get(
                f"{target.http}/api/stream/game/{self.public_id}",
                timeout=aiohttp.ClientTimeout(total=None, sock_read=None),
            )
            if response.status != 200:
                raise RuntimeError(f"a stream answered {response.status}")
            self.spectators.append(StreamReader(response))

        await load.open_all(range(spectators), stream)
        for reader in self.spectators:
            ply = await asyncio.wait_for(asyncio.shield(reader.first), load.PUSH_TIMEOUT)
            if ply != self.pos.ply:
                raise RuntimeError(f"stream of {self.public_id} at ply {ply}, not {self.pos.ply}")


async def measured(runs: dict, rate: float, args) -> dict:
    """Each of ``runs`` (name -> a pair and how many watch it) moving at ``rate`` in an open
    loop, the runs interleaved in turns; each one's figures, with the lines or pushes its
    watchers should have had."""
    merged = await load.interleaved(
        {
            name: (lambda d, w, pair=pair: load.open_loop([pair], rate, d, w))
            for name, (pair, _) in runs.items()
        },
        args.duration,
        args.warmup,
        args.segments,
    )
    out = {}
    for name, (outcomes, seconds) in merged.items():
        out[name] = load.moves_result(outcomes, seconds)
        out[name]["offered_per_s"] = rate
        out[name]["pushes_expected"] = out[name]["moves"] * runs[name][1]
    return out


async def api_streams_run(env: dict, args, make_matches, progress) -> dict:
    count = args.streams
    rate = min(args.fanout_rate, 1 / args.min_interval)
    progress(f"API streams: one match watched by {count} NDJSON streams, one by {count} sockets")
    rows = make_matches(env, 2)
    server = BenchServer(env, name="bench-api-streams").start()
    rng = random.Random(args.seed)
    try:
        await asyncio.sleep(1.0)
        result = {"count": count, "offered_per_s": rate}
        async with load.Client() as client:
            target = load.Target(server.port)
            sockets = load.MatchPair(client, rows[0], {1: target, 2: target}, rng)
            streams = StreamedPair(client, rows[1], {1: target, 2: target}, rng)
            await sockets.open(count)
            await streams.open(count)
            await asyncio.sleep(1.0)
            result["memory_kib"] = server.memory()
            runs = {"streams": (streams, count), "sockets": (sockets, count)}
            result |= await measured(runs, rate, args)
            for name in runs:
                last = result[name].get("last_listener")
                progress(
                    f"    {name}: to the last of {count}: "
                    + (
                        f"p50 {last['p50_ms']:.1f} ms, p99 {last['p99_ms']:.1f} ms"
                        if last
                        else "nothing arrived"
                    )
                    + f"; {result[name]['moves']} moves, errors {result[name]['errors']}"
                )
            await asyncio.gather(sockets.close(), streams.close())
        result["server_tracebacks"] = server.tracebacks()
        return result
    finally:
        server.stop()


async def watched_run(env: dict, args, make_matches, progress) -> dict:
    """The players' cost of anonymous watchers (issue 40): two friend matches on one server,
    one watched by ``--watchers`` anonymous NDJSON streams, one by nobody, moving in turns
    at the fan-out's rate. Each move is timed from its POST to the OPPONENT's socket
    receiving it (what a player waits for); target: the watched match's p50 within 1.5x
    of the quiet one's. Every stream must still get every line (sanity)."""
    count = args.watchers
    rate = min(args.fanout_rate, 1 / args.min_interval)
    progress(f"Watched: a match watched by {count} anonymous streams against a quiet one")
    rows = make_matches(env, 2)
    server = BenchServer(env, name="bench-watched").start()
    rng = random.Random(args.seed + 1)
    try:
        await asyncio.sleep(1.0)
        result = {"count": count, "offered_per_s": rate}
        async with load.Client() as client:
            target = load.Target(server.port)
            quiet = load.MatchPair(client, rows[0], {1: target, 2: target}, rng)
            watched = StreamedPair(client, rows[1], {1: target, 2: target}, rng)
            await quiet.open(0)
            await watched.open(count)
            await asyncio.sleep(1.0)
            runs = {"watched": (watched, count), "quiet": (quiet, 0)}
            result |= await measured(runs, rate, args)
            for name in runs:
                res = result[name]
                progress(
                    f"    {name}: the opponent's push p50 {res['p50_ms']:.1f} ms, "
                    f"p99 {res['p99_ms']:.1f} ms; {res['moves']} moves, errors {res['errors']}"
                )
            await asyncio.gather(quiet.close(), watched.close())
        result["server_tracebacks"] = server.tracebacks()
        return result
    finally:
        server.stop()


LAYERS = {
    "list": "channels-redis's list layer (the site's: bitsite/layers.py)",
    "pubsub": "channels-redis's pub/sub layer (RedisPubSubChannelLayer)",
}


def layers_run(args, make_matches, progress) -> dict:
    """The scale-out layers compared (issue 40): the watched row on PostgreSQL + Redis, once
    on the site's layer and once on channels-redis's pub/sub layer (benchmarks/settings.py),
    each on a fresh database, one after the other."""
    from benchmarks.servers import REDIS_URL, PostgresDatabase, bench_env, services_problem

    problem = services_problem()
    if problem:
        progress(f"The layer comparison skipped: {problem}")
        return {"skipped": problem}
    out = {"database": "PostgreSQL (fresh database, dropped after)", "redis": REDIS_URL}
    for name, what in LAYERS.items():
        progress(f"  on {what}")
        with PostgresDatabase() as db:
            env = bench_env(db.url, REDIS_URL) | {"BITSITE_BENCH_LAYER": name}
            run_module(env, "benchmarks.fixtures", "prepare")
            out[name] = asyncio.run(watched_run(env, args, make_matches, progress))
    return out


def main(argv: list[str] | None = None) -> int:
    """These rows alone: ``python -m benchmarks.api_streams [--tiny] [--streams N]
    [--watchers N] [--skip-api-streams | --skip-watched | --skip-layers] [--scale-out]``
    (``--scale-out``: on PostgreSQL + Redis, as the lobby's split run, and the layer
    comparison after them)."""
    import contextlib
    import sys
    import tempfile
    from pathlib import Path

    from benchmarks import report
    from benchmarks import run as bench
    from benchmarks.servers import REDIS_URL, PostgresDatabase, bench_env

    argv = sys.argv[1:] if argv is None else argv
    scale_out = "--scale-out" in argv  # PostgreSQL + Redis (benchmarks/servers.py)
    args = bench.parse_args([a for a in argv if a != "--scale-out"])
    with contextlib.ExitStack() as stack:
        if scale_out:
            db = stack.enter_context(PostgresDatabase())
            env = bench_env(db.url, REDIS_URL)
        else:
            tmpdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="bitsite-bench-"))
            env = bench_env(f"sqlite:///{Path(tmpdir) / 'bench.sqlite3'}")
        bench.run_module(env, "benchmarks.fixtures", "prepare")
        results = {}
        if not args.skip_api_streams:
            results["api_streams"] = asyncio.run(
                api_streams_run(env, args, bench.make_matches, bench.progress)
            )
        if not args.skip_watched:
            results["watched"] = asyncio.run(
                watched_run(env, args, bench.make_matches, bench.progress)
            )
        if not args.skip_layers and scale_out:
            results["layers"] = layers_run(args, bench.make_matches, bench.progress)
    targets = report.targets(results)
    for key in ("api_streams", "watched"):
        if key in targets:
            print(report.TARGETS[key])
            print(
                report._target_figure(key, targets[key]), "met" if targets[key]["met"] else "MISSED"
            )
    if "layers" in results:
        print(report.layers_line(results["layers"]))
    problems = [p for p in report.sanity(results) if p != "no load run"]
    for problem in problems:
        print("not sane:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
