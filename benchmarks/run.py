"""Live move latency and throughput against the bare framework, and cost against game length.

    python -m benchmarks.run            # the full run (make bench): about 28 minutes
    python -m benchmarks.run --tiny     # CI's check that it still works (make bench-ci)

One run on one machine does all of it; the load generator runs in this process
and shares the machine's cores with the servers (and, for the scale-out, with
PostgreSQL and Redis):

1. Load (SQLite, the in-process channel layer, one daphne with debug and the
   access log off): for each N, N friend matches of Last Bit Standing, both
   players on a websocket; real legal moves POSTed to /m/<id>/move at a fixed
   rate (open loop), each timed from its POST to the opponent's push. The same
   schedule against the bare baseline (one INSERT + one group send to a bare
   consumer). Then the throughput: moves in a closed loop, bare inserts + group
   sends and bare GETs with the same concurrency, echo round trips.
2. Fan-out (same embedded default, a fresh server): one friend match with
   --fanout spectator sockets (300) besides its two players, moves at
   --fanout-rate (2/s), each timed from its POST to the push reaching the LAST
   spectator; against one bare group with as many bare listeners, same schedule,
   interleaved.
2b. The lobby (a fresh server each): --lobby-pages home pages (1,000) watching the
   lobby; a new challenge (the new-match form with "List it in the lobby", by a new
   browser) at --fanout-rate, timed from its POST to its row reaching the LAST page;
   against one bare group of as many bare listeners, interleaved. Then N = --churn-n
   matches in play (100, 10 moves/s, open loop), their move latency with and without
   challenges made and accepted at --churn-rate (20/s) beside them, interleaved, with
   --churn-pages lobby and watch pages open; and, for scale, with two bare inserts + group
   sends a cycle at the same rate instead (what any two writes cost the process). Then the
   same churn with the lobby on a process of its own (PostgreSQL + Redis, two daphne
   processes: the matches on one, the lobby's pages and requests on the other).
3. Presence storm (a fresh server each time): a probe match with both players
   on; a new socket's time to its first board on the probe match, while quiet;
   then --storm sockets (100) of seat 1 of another match opened at once with
   that seat's session cookie, held --storm-hold seconds and closed, while the
   probe's connect is timed again and the server's CPU time is counted until it
   is quiet. Past the caps (8 sockets per match, 32 per process, per browser)
   sockets are refused with 4409. Run with the caps, then with them lifted
   (--lifted-cap, 1000), to show the cost of the design and not only the cap's,
   then with as many bare echo sockets (the framework's own cost of a storm).
4. Idle sockets: the N = 100 latency again with 2,000 idle websockets open on
   the same process, and the memory each of them costs.
5. Scale-out: PostgreSQL + Redis, one daphne process, then two, the players of
   every match split across the two.
6. Length: one match to 100,000 plies through the write path (benchmarks.length).
7. The rules-only analysis times (benchmarks.analysis).
8. The private hooks (bitsite/runtime/): the N = --hooks-n latency (ours and the bare
   path, interleaved) and closed-loop throughput, with the server's CPU time per move, on a
   fresh server for each setting of BITSITE_HOOKS: all on, all off, and all but one for
   each hook; the sockets offer permessage-deflate, as browsers do.
9. Hostile storms (benchmarks/storms.py): one client's 500 sockets at once to a match, the
   lobby and the watch page, with a cookie and without, beside another match's moves and
   connects; the ghost check a minute later. The storming client is a process of its own
   with an address of its own (127.0.0.2): straight to daphne, then through
   deploy/nginx.conf.
10. Flood (benchmarks/flood.py): one client's 8 requests of the learn app's expensive pages
   in flight beside one match's moves.
11. Tournaments (benchmarks/tournaments.py, also runnable alone): an arena of --t-players
   (1,000) simulated players, each finished player timed to their next game; the standings
   of an event reaching the last of --t-pages (1,000) open pages, against the bare fan-out;
   one Swiss round of 1,000 players paired (benchmarks/swiss_pairing.py).

Results: benchmarks/results/latest.json, latest.md and latency.png, and the figures in
benchmarks/README.md (the full run), raw data in benchmarks/results/raw/ (git-ignored);
--tiny writes only to raw/.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import (
    api_streams,
    flood,
    load,
    lobby,
    memory,
    profile,
    report,
    storms,
    tournaments,
)
from benchmarks.servers import (
    REDIS_URL,
    BenchServer,
    PostgresDatabase,
    bench_env,
    run_module,
    services_problem,
    wait_quiet,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
RAW = RESULTS / "raw"
T0 = time.monotonic()
PROFILE_HZ = 200


def progress(message: str) -> None:
    elapsed = time.monotonic() - T0
    print(f"[{int(elapsed) // 60:02d}:{int(elapsed) % 60:02d}] {message}", flush=True)


# ---- configuration --------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiny", action="store_true", help="CI: N=2, a few moves, sanity checks only")
    p.add_argument("--n", help="comma-separated match counts (default 1,100,500; tiny 2)")
    p.add_argument(
        "--rate",
        type=float,
        help="moves/s offered in the open loop (10: at N = 100, a move per match every 10 s)",
    )
    p.add_argument(
        "--min-interval",
        type=float,
        default=0.25,
        help="a match moves at most once per this many seconds (caps the rate at small N)",
    )
    p.add_argument("--duration", type=float, help="measured seconds of each open-loop run")
    p.add_argument("--warmup", type=float, help="seconds run before measuring")
    p.add_argument("--closed", type=float, help="measured seconds of each throughput run")
    p.add_argument("--spectators", type=int, default=0, help="spectator sockets per match")
    p.add_argument("--idle", type=int, help="idle websockets for the idle-socket run (2000)")
    p.add_argument("--idle-n", type=int, help="matches in play during the idle-socket run (100)")
    p.add_argument("--scale-n", type=int, help="matches for the scale-out run (100)")
    p.add_argument(
        "--scale-clients",
        type=int,
        default=40,
        help="concurrent clients of the scale-out throughput runs (40: PostgreSQL's default "
        "max_connections is 100, and each request in flight holds a connection)",
    )
    p.add_argument("--plies", type=int, help="plies of the long match (100000; tiny 600)")
    p.add_argument(
        "--edge", type=int, help="plies timed at each end of the long match (1000; tiny 100)"
    )
    p.add_argument(
        "--fanout", type=int, help="spectators of the fan-out match (default 300; tiny 20)"
    )
    p.add_argument(
        "--fanout-rate",
        type=float,
        default=2.0,
        help="moves/s offered to the one fan-out match (at most one per --min-interval)",
    )
    p.add_argument(
        "--storm",
        type=int,
        help="sockets of one seat opened at once in the presence storm (default 100; tiny 10)",
    )
    p.add_argument(
        "--storm-hold", type=float, help="seconds the storm's sockets stay open (3; tiny 1)"
    )
    p.add_argument(
        "--probes",
        type=int,
        help="connects to the probe match timed while quiet, before the storm (20; tiny 5)",
    )
    p.add_argument(
        "--probe-gap",
        type=float,
        default=0.05,
        help="seconds between one probe connect ending and the next starting",
    )
    p.add_argument(
        "--lifted-cap",
        type=int,
        default=1000,
        help="BITSITE_SOCKETS_PER_MATCH and _PER_PROCESS of the storm's second server, the "
        "caps lifted (1000)",
    )
    p.add_argument(
        "--lobby-pages", type=int, help="pages watching the lobby (default 1000; tiny 20)"
    )
    p.add_argument(
        "--churn-rate",
        type=float,
        help="challenges made and accepted per second beside the moves (20; tiny 4)",
    )
    p.add_argument("--churn-n", type=int, help="matches in play during the churn (100; tiny 2)")
    p.add_argument(
        "--churn-pages",
        type=int,
        help="lobby pages and watch pages open during the churn, each (20; tiny 2)",
    )
    p.add_argument("--skip-lobby", action="store_true")
    p.add_argument(
        "--skip-tournaments",
        action="store_true",
        help="the tournaments (benchmarks/tournaments.py: an arena's repair, the standings' "
        "fan-out, Swiss pairing)",
    )
    tournaments.add_arguments(p)
    p.add_argument("--skip-fanout", action="store_true")
    p.add_argument(
        "--streams", type=int, help="API game streams and sockets watching (default 200; tiny 20)"
    )
    p.add_argument("--skip-api-streams", action="store_true")
    p.add_argument(
        "--watchers",
        type=int,
        help="anonymous streams on the watched match against a quiet one (default 300; tiny 20)",
    )
    p.add_argument("--skip-watched", action="store_true")
    p.add_argument(
        "--skip-layers",
        action="store_true",
        help="the watched row on channels-redis's list and pub/sub layers (PostgreSQL + Redis)",
    )
    p.add_argument("--skip-storm", action="store_true")
    p.add_argument(
        "--skip-storms", action="store_true", help="the hostile storms (benchmarks/storms.py)"
    )
    p.add_argument(
        "--skip-storms-nginx",
        action="store_true",
        help="the same storms through deploy/nginx.conf (needs nginx)",
    )
    p.add_argument(
        "--skip-flood", action="store_true", help="the learn pages' flood (benchmarks/flood.py)"
    )
    p.add_argument(
        "--memory-games",
        type=int,
        help="games against the perfect computer, each with other options (30; tiny 2)",
    )
    p.add_argument("--skip-memory", action="store_true")
    p.add_argument("--skip-idle", action="store_true")
    p.add_argument("--skip-scale", action="store_true")
    p.add_argument("--skip-length", action="store_true")
    p.add_argument(
        "--skip-push-sizes",
        action="store_true",
        help="the bytes of a move's push (benchmarks/push_sizes.py)",
    )
    p.add_argument("--skip-analysis", action="store_true")
    p.add_argument("--skip-hooks", action="store_true")
    p.add_argument("--hooks-n", type=int, help="matches of the hooks run (100; tiny 2)")
    p.add_argument(
        "--hooks-duration",
        type=float,
        help="measured seconds of each open-loop and closed-loop run of the hooks run (16; tiny 2)",
    )
    p.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        help="after the N=--profile-n latency runs, record the server with py-spy for one more "
        "run of each (raw/profile-*.txt; read them with python -m benchmarks.profile)",
    )
    p.add_argument(
        "--segments",
        type=int,
        help="turns in which ours and the baseline alternate (default 4; tiny 1)",
    )
    p.add_argument(
        "--closed-segments", type=int, help="the same for the throughput runs (default 2)"
    )
    p.add_argument("--profile-n", type=int, default=100, help="the N that --profile records")
    p.add_argument(
        "--publish",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a run that is not --tiny writes results/latest.*, latency.png and the README's "
        "figures (the default); --no-publish writes raw/ only (raw/partial-latest.*), for a "
        "run of some parts (e.g. the load alone: --n 100 and every --skip-*)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--report",
        metavar="RAW_JSON",
        help="run nothing: write the table, latest.*, the chart and benchmarks/README.md's figures "
        "again from a full run's raw JSON",
    )
    args = p.parse_args(argv)
    tiny = args.tiny
    defaults = {
        "n": "2" if tiny else "1,100,500",
        "rate": 10.0,
        "duration": 3.0 if tiny else 40.0,
        "warmup": 1.0 if tiny else 3.0,
        "closed": 2.0 if tiny else 12.0,
        "fanout": 20 if tiny else 300,
        "streams": 20 if tiny else 200,
        "watchers": 20 if tiny else 300,
        "lobby_pages": 20 if tiny else 1000,
        "churn_rate": 4.0 if tiny else 20.0,
        "churn_n": 2 if tiny else 100,
        "churn_pages": 2 if tiny else 20,
        "storm": 10 if tiny else 100,
        "memory_games": 2 if tiny else 30,
        "storm_hold": 1.0 if tiny else 3.0,
        "probes": 5 if tiny else 20,
        "idle": 20 if tiny else 2000,
        "idle_n": 2 if tiny else 100,
        "scale_n": 2 if tiny else 100,
        "plies": 600 if tiny else 100_000,
        "edge": 100 if tiny else 1000,
        "profile": not tiny,
        "segments": 1 if tiny else 4,
        "hooks_n": 2 if tiny else 100,
        "hooks_duration": 2.0 if tiny else 16.0,
        "closed_segments": 1 if tiny else 2,
    }
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    tournaments.defaults(args)
    args.ns = [int(x) for x in str(args.n).split(",") if x.strip()]
    return args


def offered_rate(args, n: int) -> float:
    return min(args.rate, n / args.min_interval)


def machine() -> dict:
    info = {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "load_average_at_start": os.getloadavg(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    with contextlib.suppress(OSError, ValueError):
        info["nproc"] = int(subprocess.run(["nproc"], capture_output=True, text=True).stdout)
    return info


def busy(results: dict, phase: str) -> None:
    """The machine's load average after a phase: the cores are shared with whatever else runs."""
    one, five, _ = os.getloadavg()
    results.setdefault("load_average", []).append([phase, round(one, 2), round(five, 2)])
    progress(
        f"  (load average now {one:.1f}, over 5 minutes {five:.1f}, on {os.cpu_count()} cores)"
    )


def phase(results: dict, label: str, run, *, key: str, into: dict | None = None) -> None:
    """One phase of the run, its figures stored under ``key`` (in ``into``, else ``results``).
    A phase that fails is recorded with its traceback under results["failed"] and the run goes
    on: one phase's fault (a missing tool, a crash) must not lose the figures of the others, and
    the run still ends in failure."""
    try:
        (results if into is None else into)[key] = run()
    except Exception:
        text = traceback.format_exc()
        results.setdefault("failed", {})[label] = text
        progress(f"  {label}: FAILED, the run goes on without it\n{text}")
    busy(results, label)


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# ---- helpers --------------------------------------------------------------------------


def make_matches(env: dict, count: int) -> list[dict]:
    out = run_module(env, "benchmarks.fixtures", "matches", str(count))
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def describe(result: dict, what: str = "moves") -> str:
    return (
        f"p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
        f"{result.get('moves_per_s', result.get('requests_per_s', 0)):.1f} {what}/s, "
        f"errors {result['errors']}"
    )


class Profiler:
    """py-spy attached to a server for one run (raw, collapsed stacks)."""

    def __init__(self, enabled: bool, pid: int, name: str, seconds: float):
        self.proc = None
        self.path = RAW / f"profile-{name}.txt"
        spy = Path(sys.executable).with_name("py-spy")
        if enabled and not spy.exists():
            progress(f"  no profile: py-spy is not installed ({spy})")
        elif enabled:
            self.proc = subprocess.Popen(
                [
                    str(spy),
                    "record",
                    "--pid",
                    str(pid),
                    "--duration",
                    str(max(1, int(seconds))),
                    "--rate",
                    str(PROFILE_HZ),
                    "--format",
                    "raw",
                    "--threads",
                    "--nonblocking",
                    "--output",
                    str(self.path),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

    def finish(self) -> str | None:
        if self.proc is None:
            return None
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        return str(self.path) if self.path.exists() else None


# ---- 1. load against one process -----------------------------------------------------


# The rows of the load run, each a way of moving on the same schedule: our move POSTed, the
# bare insert POSTed, our move as a frame on the mover's match socket, the bare ws move.
ROWS = {
    "moves": "ours (POST)",
    "baseline": "bare insert",
    "socket": "ours (socket)",
    "bare_socket": "bare ws move",
}


def move_rows(pairs, bare, bare_frames) -> dict:
    """Row name -> the pairs that move that way (the match pairs serve both of ours)."""
    return {
        "moves": pairs,
        "baseline": bare,
        "socket": load.via(pairs, load.Via.SOCKET),
        "bare_socket": bare_frames,
    }


async def moves_and_baseline(pairs, bare, bare_frames, args, n, server, tag) -> dict:
    """Our moves (POSTed, then sent on the socket) and their bare baselines (the bare insert,
    the bare ws move) on the same open-loop schedule, interleaved in turns; with the
    server's CPU time per move of each row."""
    rate = offered_rate(args, n)
    progress(
        f"  {tag}: our moves by POST and by socket frame, the bare insert + group send and "
        f"the bare ws move, open loop at {rate:g} moves/s, {args.duration:g} s each in "
        f"{args.segments} turns"
    )
    rows = move_rows(pairs, bare, bare_frames)
    cpu: dict[str, float] = {}

    def timed(name):
        async def go(duration, warmup):
            before = server.cpu_seconds()
            items, seconds = await load.open_loop(rows[name], rate, duration, warmup)
            cpu[name] = cpu.get(name, 0.0) + server.cpu_seconds() - before
            return items, seconds

        return go

    merged = await load.interleaved(
        {name: timed(name) for name in rows}, args.duration, args.warmup, args.segments
    )
    out = {"offered_per_s": rate}
    for name, (outcomes, seconds) in merged.items():
        out[name] = load.moves_result(outcomes, seconds)
        out[name]["offered_per_s"] = rate
        # The server's CPU over the turns (warm-up included) per move measured: a rough
        # figure beside the profile's.
        moved = out[name]["moves"]
        out[name]["cpu_ms_per_move"] = 1000 * cpu[name] / moved if moved else math.nan
    for name, label in ROWS.items():
        res = out[name]
        progress(
            f"    {label}: {describe(res)}, late {res['late']}, "
            f"server CPU {res['cpu_ms_per_move']:.1f} ms a move"
        )
    if args.profile and n == args.profile_n:  # the N = 100 run, and the idle-socket run
        out["profiles"] = {}
        seconds = int(min(args.duration, 15.0))
        for name, pairs_ in rows.items():
            spy = Profiler(True, server.pid, f"{tag}-{name}", seconds)
            await load.open_loop(pairs_, rate, seconds, 0.0)
            path = spy.finish()
            out["profiles"][name] = path
            if path:
                who, what, busy = profile.categories(profile.load(Path(path)))
                # Samples at 200 Hz of every thread not waiting on I/O or a lock, per move
                # (the open loop offers ``rate`` moves a second while py-spy records).
                per_move_ms = busy / PROFILE_HZ * 1000 / (rate * seconds)
                out[name]["profile"] = {
                    "file": path,
                    "busy_samples": busy,
                    "seconds": seconds,
                    "busy_ms_per_move": per_move_ms,
                    "who": who,
                    "what": what,
                }
        progress(f"    profiles: {', '.join(str(p) for p in out['profiles'].values())}")
    return out


async def load_run(env: dict, n: int, args) -> dict:
    progress(f"N = {n}: making {n} matches")
    rows = make_matches(env, n)
    server = BenchServer(env, name=f"bench-n{n}").start()
    rng = random.Random(args.seed + n)
    try:
        await asyncio.sleep(1.0)
        result = {"n": n, "memory_kib": {"start": server.memory()}}
        async with load.Client() as client:
            target = load.Target(server.port)
            pairs = [load.MatchPair(client, row, {1: target, 2: target}, rng) for row in rows]
            progress(f"  opening {2 * n} player sockets ({args.spectators} spectators per match)")
            await load.open_all(pairs, lambda p: p.open(args.spectators))
            bare = [load.BarePair(client, f"n{n}x{i}", {1: target, 2: target}) for i in range(n)]
            await load.open_all(bare, lambda p: p.open())
            bare_frames = [
                load.BarePair(client, f"n{n}w{i}", {1: target, 2: target}, frames=True)
                for i in range(n)
            ]
            await load.open_all(bare_frames, lambda p: p.open())
            await asyncio.sleep(1.0)
            sockets = n * (6 + args.spectators)
            result["sockets"] = sockets
            result["memory_kib"]["open"] = server.memory()
            result.update(
                await moves_and_baseline(pairs, bare, bare_frames, args, n, server, f"n{n}")
            )

            progress(
                f"  throughput, closed loop, {n} clients: our moves by POST and by socket, bare "
                f"inserts, bare ws moves, bare GETs, {args.closed:g} s each in "
                f"{args.closed_segments} turns"
            )
            rows = move_rows(pairs, bare, bare_frames)
            merged = await load.interleaved(
                {
                    **{
                        f"{name}_max": (lambda r: lambda d, w: load.closed_loop(r, d, w))(rows_)
                        for name, rows_ in rows.items()
                    },
                    "get": lambda d, w: load.get_loop(client, [target], n, d, w),
                },
                args.closed,
                1.0,
                args.closed_segments,
            )
            for name in rows:
                result[f"{name}_max"] = load.moves_result(*merged[f"{name}_max"])
            result["get"] = load.requests_result(*merged["get"], workers=n)
            for name, label in ROWS.items():
                progress(f"    {label}: {describe(result[f'{name}_max'])}")
            progress(f"    bare GET: {describe(result['get'], 'requests')}")
            result["echo"] = await load.echo_loop(client, target, n, min(args.closed, 5.0), 0.5)
            progress(
                f"    echo round trip, {n} sockets: p50 {result['echo']['p50_ms']:.2f} ms, "
                f"{result['echo']['round_trips_per_s']:.0f}/s"
            )
            result["memory_kib"]["end"] = server.memory()
            await asyncio.gather(*(p.close() for p in [*pairs, *bare, *bare_frames]))
        result["server_tracebacks"] = server.tracebacks()
        return result
    finally:
        server.stop()


# ---- 2. fan-out to many spectators ----------------------------------------------------


async def fanout_run(env: dict, args) -> dict:
    """One friend match with ``--fanout`` spectators, against one bare group with as many
    listeners: each move timed from its POST to the push reaching the last of them."""
    count = args.fanout
    rate = min(args.fanout_rate, 1 / args.min_interval)
    progress(f"Fan-out: one match with {count} spectators, and a bare group with {count} listeners")
    rows = make_matches(env, 1)
    server = BenchServer(env, name="bench-fanout").start()
    rng = random.Random(args.seed)
    try:
        await asyncio.sleep(1.0)
        result = {"spectators": count, "offered_per_s": rate}
        async with load.Client() as client:
            target = load.Target(server.port)
            pair = load.MatchPair(client, rows[0], {1: target, 2: target}, rng)
            await pair.open(count)
            bare = load.BarePair(client, "fanout", {1: target, 2: target})
            await bare.open(listeners=count)
            await asyncio.sleep(1.0)
            result["sockets"] = 2 * count + 4
            result["memory_kib"] = server.memory()
            progress(
                f"  our moves and the bare insert + group send, open loop at {rate:g} moves/s, "
                f"{args.duration:g} s each in {args.segments} turns"
            )
            merged = await load.interleaved(
                {
                    "moves": lambda d, w: load.open_loop([pair], rate, d, w),
                    "baseline": lambda d, w: load.open_loop([bare], rate, d, w),
                },
                args.duration,
                args.warmup,
                args.segments,
            )
            for name, (outcomes, seconds) in merged.items():
                result[name] = load.moves_result(outcomes, seconds)
                result[name]["offered_per_s"] = rate
                result[name]["pushes_expected"] = result[name]["moves"] * count
            for name, label in (("moves", "ours"), ("baseline", "bare")):
                res = result[name]
                last = res.get("last_listener")
                progress(
                    f"    {label}: to the last of {count}: "
                    + (
                        f"p50 {last['p50_ms']:.1f} ms, p99 {last['p99_ms']:.1f} ms, "
                        f"max {last['max_ms']:.1f} ms"
                        if last
                        else "nothing arrived"
                    )
                    + f"; {res['moves']} moves, {res.get('pushes', 0)} of "
                    f"{res['pushes_expected']} pushes, errors {res['errors']}, late {res['late']}"
                )
            await asyncio.gather(pair.close(), bare.close())
        result["server_tracebacks"] = server.tracebacks()
        return result
    finally:
        server.stop()


# ---- 2b. the lobby ------------------------------------------------------------------------

# The benchmark's challenges are never closed by time or by their creators' absence (no
# creator opens a page): a sweep's removals would be fan-outs of their own, mid-run.
LOBBY_ENV = {"BITSITE_LOBBY_TTL": "86400", "BITSITE_LOBBY_AWAY": "86400"}


async def lobby_fanout_run(env: dict, args) -> dict:
    """``--lobby-pages`` pages watching the lobby; each new challenge timed from its POST to
    its row reaching the last of them; against one bare group of as many listeners."""
    count = args.lobby_pages
    rate = min(args.fanout_rate, 1 / args.min_interval)
    progress(
        f"Lobby fan-out: {count} pages watching the lobby, and a bare group of {count} listeners"
    )
    server = BenchServer(env | LOBBY_ENV, name="bench-lobby-fanout").start()
    try:
        await asyncio.sleep(1.0)
        result = {"pages": count, "offered_per_s": rate}
        async with load.Client() as client:
            target = load.Target(server.port)
            pages = lobby.LobbyPages(client, target, count)
            await pages.open()
            bare = load.BarePair(client, "lobby", {1: target, 2: target})
            await bare.open(listeners=count - 1)  # as many timed as the pages after the first
            await asyncio.sleep(1.0)
            result["memory_kib"] = server.memory()
            progress(
                f"  new challenges and the bare insert + group send, open loop at {rate:g}/s, "
                f"{args.duration:g} s each in {args.segments} turns"
            )
            merged = await load.interleaved(
                {
                    "challenges": lambda d, w: load.open_loop([pages], rate, d, w),
                    "baseline": lambda d, w: load.open_loop([bare], rate, d, w),
                },
                args.duration,
                args.warmup,
                args.segments,
            )
            for name, (outcomes, seconds) in merged.items():
                result[name] = load.moves_result(outcomes, seconds)
                result[name]["offered_per_s"] = rate
                result[name]["pushes_expected"] = result[name]["moves"] * (count - 1)
            for name, label in (("challenges", "ours"), ("baseline", "bare")):
                res = result[name]
                last = res.get("last_listener")
                progress(
                    f"    {label}: to the last of {count}: "
                    + (
                        f"p50 {last['p50_ms']:.1f} ms, p99 {last['p99_ms']:.1f} ms, "
                        f"max {last['max_ms']:.1f} ms"
                        if last
                        else "nothing arrived"
                    )
                    + f"; {res['moves']} sent, errors {res['errors']}, late {res['late']}"
                )
            await asyncio.gather(pages.close(), bare.close())
        result["server_tracebacks"] = server.tracebacks()
        return result
    finally:
        server.stop()


async def lobby_churn_run(env: dict, args, *, split: bool = False) -> dict:
    """Move latency of ``--churn-n`` matches in play, without and with challenges made and
    accepted at ``--churn-rate`` beside them (interleaved turns). On one server; or, with
    ``split`` (PostgreSQL + Redis in ``env``), the matches on one daphne process and the
    lobby (its pages and the challenges' requests) on a second, as a proxy would route the
    lobby's paths to processes of their own."""
    n, rate = args.churn_n, offered_rate(args, args.churn_n)
    where = "the matches and the lobby on two processes" if split else "one process"
    progress(
        f"Lobby churn ({where}): {n} matches at {rate:g} moves/s, without and with "
        f"{args.churn_rate:g} challenges made and accepted a second ({args.churn_pages} lobby "
        "and watch pages open)"
    )
    rows = make_matches(env, n)
    server = BenchServer(env | LOBBY_ENV, name="bench-lobby-churn").start()
    lobby_server = (
        BenchServer(env | LOBBY_ENV, name="bench-lobby-churn-lobby").start() if split else server
    )
    rng = random.Random(args.seed)
    try:
        await asyncio.sleep(1.0)
        result = {"n": n, "offered_per_s": rate, "churn_rate": args.churn_rate, "split": split}
        async with load.Client() as client:
            target = load.Target(server.port)
            lobby_target = load.Target(lobby_server.port)
            pairs = [load.MatchPair(client, row, {1: target, 2: target}, rng) for row in rows]
            await load.open_all(pairs, lambda p: p.open())
            watchers = []
            for path, parse in (("/ws/lobby/", lobby.parse_row), ("/ws/watch/", lobby.parse_cards)):
                for _ in range(args.churn_pages):
                    sock = await client.socket(lobby_target, path, parse)
                    await asyncio.wait_for(asyncio.shield(sock.first), load.PUSH_TIMEOUT)
                    watchers.append(sock)
            if not split:
                for _ in range(2 * args.churn_pages):  # the bare churn's listeners
                    sock = await client.socket(
                        target, f"/ws/bench/group/{lobby.BareChurn.key}/", load.parse_seq
                    )
                    watchers.append(sock)
            await asyncio.sleep(1.0)
            churned: dict[str, list[dict]] = {"churn": [], "bare_churn": []}
            churns = {
                "churn": lobby.Churn(client, lobby_target, args.churn_rate),
                "bare_churn": lobby.BareChurn(client, target, args.churn_rate),
            }

            def beside(name):
                async def run(duration, warmup):
                    until = load.now() + 0.2 + warmup + duration
                    churning = asyncio.create_task(churns[name].run(until))
                    moved = await load.open_loop(pairs, rate, duration, warmup)
                    churned[name].append(await churning)
                    return moved

                return run

            configs = {
                "quiet": lambda d, w: load.open_loop(pairs, rate, d, w),
                "churn": beside("churn"),
            }
            if not split:  # for scale: what any two writes a cycle cost the one process
                configs["bare_churn"] = beside("bare_churn")
            merged = await load.interleaved(configs, args.duration, args.warmup, args.segments)
            for name, (outcomes, seconds) in merged.items():
                result[name] = load.moves_result(outcomes, seconds)
                result[name]["offered_per_s"] = rate
            for name, key in (("churn", "challenges"), ("bare_churn", "bare_cycles")):
                done = churned[name]
                if not done:
                    continue
                result[key] = {k: sum(c[k] for c in done) for k in ("offered", "done", "errors")}
                kinds = {kind for c in done for kind in c["error_kinds"]}
                result[key]["error_kinds"] = sorted(kinds)
            result["watchers_open"] = sum(1 for s in watchers if not s.task.done())
            for name, label in (
                ("quiet", "without"),
                ("churn", "with the churn"),
                ("bare_churn", "with as many bare inserts + sends"),
            ):
                if name in result:
                    res = result[name]
                    progress(f"    moves {label}: {describe(res)}, late {res['late']}")
            c = result["challenges"]
            progress(
                f"    challenges made and accepted: {c['done']} of {c['offered']}, "
                f"errors {c['errors']} {c['error_kinds'] or ''}"
            )
            await asyncio.gather(
                *(p.close() for p in pairs), *(s.close() for s in watchers), return_exceptions=True
            )
        result["server_tracebacks"] = server.tracebacks()
        if split:
            result["server_tracebacks"] += lobby_server.tracebacks()
        return result
    finally:
        server.stop()
        if split:
            lobby_server.stop()


def lobby_split_run(args) -> dict:
    """The lobby churn with the matches and the lobby on two processes (PostgreSQL + Redis)."""
    problem = services_problem()
    if problem:
        progress(f"Lobby churn on two processes skipped: {problem}")
        return {"skipped": problem}
    with PostgresDatabase() as db:
        env = bench_env(db.url, REDIS_URL)
        run_module(env, "benchmarks.fixtures", "prepare")
        result = asyncio.run(lobby_churn_run(env, args, split=True))
        result["database"] = "PostgreSQL (fresh database, dropped after)"
        result["redis"] = REDIS_URL
        return result


# ---- 3. a storm of sockets from one seat ----------------------------------------------


STORM_KINDS = {
    "capped": "sockets of seat 1 of one match, the caps on",
    "uncapped": "sockets of seat 1 of one match, the caps lifted",
    "bare": "bare echo sockets, each answering one frame (the framework's own cost)",
}


async def storm_config(env: dict, args, kind: str, rows: list[dict]) -> dict:
    """On a fresh server: the probe match's connect time while quiet, then ``--storm``
    sockets at once (``kind``: see STORM_KINDS), with the probe's connects timed again
    meanwhile and the server's CPU time counted until it is quiet again. ``rows``: two
    fresh matches, the probe's and the storm's."""
    caps = ("BITSITE_SOCKETS_PER_MATCH", "BITSITE_SOCKETS_PER_PROCESS")
    if kind == "uncapped":
        env = env | dict.fromkeys(caps, str(args.lifted_cap))
    probe_row, storm_row = rows
    server = BenchServer(env, name=f"bench-storm-{kind}").start()
    rng = random.Random(args.seed)
    gap = args.probe_gap
    try:
        await asyncio.sleep(1.0)
        result = {"kind": kind, "sockets": args.storm, "probe_gap": gap}
        result["env"] = {k: env.get(k, "(the settings' default)") for k in caps}
        async with load.Client() as client:
            target = load.Target(server.port)
            probe = load.MatchPair(client, probe_row, {1: target, 2: target}, rng)
            await probe.open()
            path = "/ws" + probe.path  # a probe is a new spectator socket of the probe match
            if kind == "bare":
                storm_args = ("/ws/bench/echo/", "", load.parse_seq, "1")
                opponent = None
            else:
                storm_path = f"/ws/m/{storm_row['public_id']}/"
                seat1 = f"sessionid={storm_row['sessions']['1']}"
                storm_args = (storm_path, seat1, load.parse_ply, None)
                # The storm match's seat 2 watches: it should see seat 1 come and go, once each.
                opponent = await client.socket(
                    target, storm_path, load.parse_ply, f"sessionid={storm_row['sessions']['2']}"
                )
                await asyncio.wait_for(asyncio.shield(opponent.first), load.PUSH_TIMEOUT)
            await load.connect_probes(client, target, path, gap, count=3)  # warm-up
            await wait_quiet(server)
            quiet = await load.connect_probes(client, target, path, gap, count=args.probes)
            result["quiet"] = load.connects_result(quiet)
            await wait_quiet(server)

            progress(
                f"  {args.storm} {STORM_KINDS[kind]}: opened at once, held {args.storm_hold:g} s, "
                "another match's connect timed meanwhile"
            )
            frames = opponent.frames if opponent else 0
            cpu0, t0 = server.cpu_seconds(), time.perf_counter()
            storm = asyncio.ensure_future(
                load.storm(client, target, *storm_args, count=args.storm, hold=args.storm_hold)
            )
            during = await load.connect_probes(client, target, path, gap, until=storm)
            result.update(await storm)
            probing = time.perf_counter() - t0
            result["went_quiet"] = await wait_quiet(server)
            window = time.perf_counter() - t0
            cpu = server.cpu_seconds() - cpu0
            result["during"] = load.connects_result(during)
            if opponent:
                result["opponent_frames"] = opponent.frames - frames
                result["opponent_open"] = not opponent.task.done()

            # An equally long quiet window with as many probe connects, paced the same way.
            cpu1, t1 = server.cpu_seconds(), time.perf_counter()
            await load.connect_probes(client, target, path, gap, count=len(during))
            await asyncio.sleep(max(0.0, window - (time.perf_counter() - t1)))
            quiet_cpu = server.cpu_seconds() - cpu1
            quiet_window = time.perf_counter() - t1
            result["cpu"] = {
                "storm_s": cpu,
                "window_s": window,
                "probing_s": probing,
                "quiet_s": quiet_cpu,
                "quiet_window_s": quiet_window,
                "net_s": cpu - quiet_cpu * window / quiet_window,
            }
            result["probes_during"] = len(during)
            result["connect_added_ms"] = result["during"]["max_ms"] - result["quiet"]["p50_ms"]
            result["connect_added_p50_ms"] = result["during"]["p50_ms"] - result["quiet"]["p50_ms"]
            await asyncio.gather(
                probe.close(), *([opponent.close()] if opponent else []), return_exceptions=True
            )
        result["server_tracebacks"] = server.tracebacks()
        c, q, d = result["cpu"], result["quiet"], result["during"]
        progress(
            f"    {result['opened']} opened, {result['refused']} refused (4409), other "
            f"{result['other'] or 'none'}; server CPU {c['storm_s']:.3f} s in "
            f"{c['window_s']:.1f} s ({c['net_s']:.3f} s above an equally long quiet window "
            "with the same probes)"
        )
        progress(
            f"    another match's connect: quiet p50 {q['p50_ms']:.1f} / max {q['max_ms']:.1f} "
            f"ms; during the storm ({len(during)} connects) p50 {d['p50_ms']:.1f} / max "
            f"{d['max_ms']:.1f} ms: {result['connect_added_ms']:+.1f} ms at worst"
            + (
                f"; the opponent got {result['opponent_frames']} presence updates"
                if opponent
                else ""
            )
        )
        if result["server_tracebacks"]:
            progress(f"    server tracebacks: {result['server_tracebacks'][:5]}")
        return result
    finally:
        server.stop()


async def storm_run(env: dict, args) -> dict:
    progress(
        f"Presence storm: {args.storm} sockets of one seat, with the caps, then without; "
        f"then {args.storm} bare sockets"
    )
    rows = make_matches(env, 2 * len(STORM_KINDS))
    return {
        kind: await storm_config(env, args, kind, rows[2 * i : 2 * i + 2])
        for i, kind in enumerate(STORM_KINDS)
    }


# ---- the solver's memory ----------------------------------------------------------------


def memory_run(env: dict, args) -> dict:
    games, length = args.memory_games, 16 if args.tiny else 64
    progress(
        f"Solver memory: {games} games against the perfect computer, each with another "
        f"Bitwise Battle divisor ({length} bits), on a fresh server"
    )
    server = BenchServer(env, name="bench-memory").start()
    try:
        time.sleep(1.0)
        result = asyncio.run(memory.solver_memory(server, games, length, args.seed))
    finally:
        server.stop()
    progress(
        f"  server RSS {result['rss_before_mib']:.0f} MiB before, "
        f"{result['rss_after_mib']:.0f} MiB after ({result['peak_mib']:.0f} MiB at its peak)"
    )
    return result


# ---- 4. idle sockets ------------------------------------------------------------------


async def idle_run(env: dict, args) -> dict:
    n, idle = args.idle_n, args.idle
    per_match = 10
    progress(f"Idle sockets: {n} matches in play plus {idle} idle websockets on one process")
    rows = make_matches(env, n)
    idle_rows = make_matches(env, max(1, math.ceil(idle / per_match)))
    server = BenchServer(env, name="bench-idle").start()
    rng = random.Random(args.seed)
    try:
        await asyncio.sleep(1.0)
        result = {"n": n, "idle": idle}
        async with load.Client() as client:
            target = load.Target(server.port)
            pairs = [load.MatchPair(client, row, {1: target, 2: target}, rng) for row in rows]
            await load.open_all(pairs, lambda p: p.open(args.spectators))
            bare = [load.BarePair(client, f"idle{i}", {1: target, 2: target}) for i in range(n)]
            await load.open_all(bare, lambda p: p.open())
            bare_frames = [
                load.BarePair(client, f"idlew{i}", {1: target, 2: target}, frames=True)
                for i in range(n)
            ]
            await load.open_all(bare_frames, lambda p: p.open())
            await asyncio.sleep(2.0)
            before = server.memory()
            progress(
                f"  opening {idle} idle spectator websockets (RSS {before['VmRSS'] / 1024:.0f} MiB)"
            )
            idle_socks: list[load.Socket] = []

            async def open_idle(i: int) -> None:
                row = idle_rows[i // per_match]
                sock = await client.socket(target, f"/ws/m/{row['public_id']}/", load.parse_ply)
                await asyncio.wait_for(asyncio.shield(sock.first), load.PUSH_TIMEOUT)
                idle_socks.append(sock)

            t = time.perf_counter()
            await load.open_all(range(idle), open_idle, concurrency=50)
            opened_s = time.perf_counter() - t
            await asyncio.sleep(3.0)
            after = server.memory()
            per_socket = (after["VmRSS"] - before["VmRSS"]) / idle
            result["memory_kib"] = {"before": before, "after": after}
            result["kib_per_idle_socket"] = per_socket
            result["open_seconds"] = opened_s
            progress(
                f"  {idle} idle sockets open in {opened_s:.1f} s: RSS {after['VmRSS'] / 1024:.0f} "
                f"MiB, {per_socket:.1f} KiB each"
            )
            result.update(
                await moves_and_baseline(pairs, bare, bare_frames, args, n, server, "idle")
            )
            open_still = sum(1 for s in idle_socks if not s.task.done())
            result["idle_still_open"] = open_still
            result["memory_kib"]["end"] = server.memory()
            await asyncio.gather(*(s.close() for s in idle_socks), return_exceptions=True)
            await asyncio.gather(*(p.close() for p in [*pairs, *bare, *bare_frames]))
        return result
    finally:
        server.stop()


# ---- 5. scale-out ---------------------------------------------------------------------


async def scale_config(env: dict, processes: int, args) -> dict:
    n = args.scale_n
    rows = make_matches(env, n)
    servers = [
        BenchServer(env, name=f"bench-scale{processes}-{i}").start() for i in range(processes)
    ]
    rng = random.Random(args.seed + processes)
    try:
        await asyncio.sleep(1.0)
        targets = [load.Target(s.port) for s in servers]
        split = {1: targets[0], 2: targets[-1]}  # seat 1 on the first process, seat 2 on the last
        result = {"processes": processes, "n": n}
        async with load.Client() as client:
            pairs = [load.MatchPair(client, row, split, rng) for row in rows]
            await load.open_all(pairs, lambda p: p.open(args.spectators))
            await asyncio.sleep(1.0)
            rate = offered_rate(args, n)
            progress(f"  {processes} process(es): open loop at {rate:g} moves/s")
            result["moves"] = load.moves_result(
                *await load.open_loop(pairs, rate, args.duration, args.warmup)
            )
            result["moves"]["offered_per_s"] = rate
            progress(f"    {describe(result['moves'])}, late {result['moves']['late']}")
            clients = min(n, args.scale_clients)
            progress(f"    throughput: closed loop, {clients} clients")
            merged = await load.interleaved(
                {
                    "moves_max": lambda d, w: load.closed_loop(pairs[:clients], d, w),
                    "get": lambda d, w: load.get_loop(client, targets, clients, d, w),
                },
                args.closed,
                1.0,
                args.closed_segments,
            )
            result["moves_max"] = load.moves_result(*merged["moves_max"])
            result["get"] = load.requests_result(*merged["get"], workers=clients)
            result["clients"] = clients
            progress(f"    closed loop: {describe(result['moves_max'])}")
            progress(f"    bare GET: {describe(result['get'], 'requests')}")
            await asyncio.gather(*(p.close() for p in pairs))
        return result
    finally:
        for server in servers:
            server.stop()


def scale_run(args) -> dict:
    problem = services_problem()
    if problem:
        progress(f"Scale-out skipped: {problem}")
        return {"skipped": problem}
    progress(f"Scale-out: PostgreSQL + Redis, {args.scale_n} matches, one process then two")
    with PostgresDatabase() as db:
        env = bench_env(db.url, REDIS_URL)
        run_module(env, "benchmarks.fixtures", "prepare")
        result = {"database": "PostgreSQL (fresh database, dropped after)", "redis": REDIS_URL}
        result["one"] = asyncio.run(scale_config(env, 1, args))
        result["two"] = asyncio.run(scale_config(env, 2, args))
    return result


# ---- 6. length ------------------------------------------------------------------------


def length_run(args, tmp: Path) -> dict:
    progress(f"Length: one Last Bit Standing match to {args.plies:,} plies through the write path")
    env = bench_env(f"sqlite:///{tmp / 'length.sqlite3'}")
    run_module(env, "benchmarks.fixtures", "prepare")
    out = tmp / "length.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmarks.length",
            "--plies",
            str(args.plies),
            "--edge",
            str(args.edge),
            "--out",
            str(out),
        ],
        cwd=HERE.parent,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in proc.stdout:
        progress(line.rstrip())
    if proc.wait() != 0:
        raise RuntimeError("benchmarks.length failed")
    result = json.loads(out.read_text())
    progress(
        f"  per move: first {args.edge:,} {result['first_ms']['total']:.2f} ms, last {args.edge:,} "
        f"{result['last_ms']['total']:.2f} ms (ratio {result['ratio']:.2f}; CPU time "
        f"{result['first_ms']['cpu']:.2f} and {result['last_ms']['cpu']:.2f} ms, "
        f"ratio {result['cpu_ratio']:.2f})"
    )
    return result


def push_sizes_run(args) -> dict:
    """The bytes of a move's push per game and kind of viewer, in a process of its own (on a
    throwaway SQLite database: the figures depend on the boards, not on the server)."""
    plies = 8 if args.tiny else 30
    progress(f"Push sizes: each game through the write path, up to {plies} moves")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.push_sizes", "--plies", str(plies), "--json"],
        cwd=HERE.parent,
        env={**os.environ, "DJANGO_DEBUG": "0", "DJANGO_SECURE_SSL": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmarks.push_sizes failed:\n{done.stderr}")
    *text, figures = done.stdout.strip().splitlines()
    progress("\n".join(text))
    return json.loads(figures)


def analysis_run(args) -> dict:
    progress("Rules-only analysis times (benchmarks.analysis)")
    from benchmarks import analysis

    rows = analysis.run(quick=args.tiny)
    text = analysis.table(rows)
    print(text, flush=True)
    return {"rows": rows, "table": text}


# ---- main -----------------------------------------------------------------------------


# ---- 8. the private hooks --------------------------------------------------------------


def hooks_settings(tiny: bool = False) -> list[tuple[str, str]]:
    """(label, BITSITE_HOOKS) of each server of the hooks run: a tiny run (CI's check that
    the phase works, whose figures mean nothing) takes the two ends, all on and all off."""
    from bitsite.runtime import HOOKS, REDIS_ONLY

    if tiny:
        return [("all on", "all"), ("all off", "none")]
    # The run serves the embedded default: a hook of the Redis layer changes nothing there
    # (the tournaments' two-process run measures it).
    return [
        ("all on", "all"),
        *(
            (f"all but {hook}", ",".join(h for h in HOOKS if h != hook) or "none")
            for hook in HOOKS
            if hook not in REDIS_ONLY
        ),
        ("all off", "none"),
    ]


async def hooks_config(env: dict, label: str, hooks: str, args) -> dict:
    n = args.hooks_n
    rate = offered_rate(args, n)
    env = env | {"BITSITE_HOOKS": hooks}
    rows = make_matches(env, n)
    server = BenchServer(env, name=f"bench-hooks-{hooks.replace(',', '+')[:40]}").start()
    rng = random.Random(args.seed + n)
    cpu: dict[str, float] = {}

    def timed(name, run):
        async def go(duration, warmup):
            before = server.cpu_seconds()
            items, seconds = await run(duration, warmup)
            cpu[name] = cpu.get(name, 0.0) + server.cpu_seconds() - before
            return items, seconds

        return go

    try:
        await asyncio.sleep(1.0)
        result = {"label": label, "hooks": hooks, "n": n, "offered_per_s": rate}
        async with load.Client(compress=15) as client:
            target = load.Target(server.port)
            pairs = [load.MatchPair(client, row, {1: target, 2: target}, rng) for row in rows]
            await load.open_all(pairs, lambda p: p.open())
            bare = [load.BarePair(client, f"h{i}", {1: target, 2: target}) for i in range(n)]
            await load.open_all(bare, lambda p: p.open())
            await asyncio.sleep(1.0)
            merged = await load.interleaved(
                {
                    "moves": timed("moves", lambda d, w: load.open_loop(pairs, rate, d, w)),
                    "baseline": timed("baseline", lambda d, w: load.open_loop(bare, rate, d, w)),
                },
                args.hooks_duration,
                args.warmup,
                2 if not args.tiny else 1,
            )
            closed = await load.interleaved(
                {
                    "moves_max": lambda d, w: load.closed_loop(pairs, d, w),
                    "baseline_max": lambda d, w: load.closed_loop(bare, d, w),
                },
                args.hooks_duration / 2,
                1.0,
                1,
            )
            for name, (outcomes, seconds) in [*merged.items(), *closed.items()]:
                result[name] = load.moves_result(outcomes, seconds)
            for name in ("moves", "baseline"):
                moved = result[name]["moves"]
                result[name]["cpu_ms_per_move"] = 1000 * cpu[name] / moved if moved else math.nan
            await asyncio.gather(*(p.close() for p in [*pairs, *bare]), return_exceptions=True)
        result["server_tracebacks"] = server.tracebacks()
        ours, bare_ = result["moves"], result["baseline"]
        progress(
            f"  {label} (BITSITE_HOOKS={hooks}): p50 {ours['p50_ms']:.1f} / "
            f"{bare_['p50_ms']:.1f} ms, p99 {ours['p99_ms']:.1f} / {bare_['p99_ms']:.1f} ms, "
            f"CPU {ours['cpu_ms_per_move']:.1f} / {bare_['cpu_ms_per_move']:.1f} ms a move, "
            f"closed loop {result['moves_max']['moves_per_s']:.0f} / "
            f"{result['baseline_max']['moves_per_s']:.0f} moves/s (ours / bare)"
        )
        return result
    finally:
        server.stop()


async def hooks_run(env: dict, args) -> dict:
    """What each private hook buys: the same load on a fresh server for each setting."""
    progress(
        f"Private hooks: N = {args.hooks_n}, ours and the bare path, "
        f"{args.hooks_duration:g} s each, for each setting of BITSITE_HOOKS"
    )
    return {
        "n": args.hooks_n,
        "configs": [
            await hooks_config(env, label, hooks, args)
            for label, hooks in hooks_settings(args.tiny)
        ],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.report:
        results = json.loads(Path(args.report).read_text())
        results["targets"] = report.targets(results)
        print(report.table(results), flush=True)
        publish(results)
        return 0
    raise_fd_limit()
    RAW.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC)
    results: dict = {
        "started": started.isoformat(timespec="seconds"),
        "tiny": args.tiny,
        "machine": machine(),
        "config": {k: v for k, v in vars(args).items() if k != "ns"} | {"ns": args.ns},
        "load": {},
    }
    m = results["machine"]
    progress(
        f"bitsite benchmark{' (tiny)' if args.tiny else ''}: {m.get('nproc')} cores "
        f"({m.get('cpu', '?')}), {m.get('memory_gib', '?')} GiB; the load generator runs here "
        "too and shares those cores"
    )
    with tempfile.TemporaryDirectory(prefix="bitsite-bench-") as tmpdir:
        tmp = Path(tmpdir)
        env = bench_env(f"sqlite:///{tmp / 'bench.sqlite3'}")
        progress("Preparing a fresh SQLite database (migrate, bare table)")
        run_module(env, "benchmarks.fixtures", "prepare")
        for n in args.ns:
            phase(
                results,
                f"N = {n}",
                lambda n=n: asyncio.run(load_run(env, n, args)),
                into=results["load"],
                key=str(n),
            )
        if not args.skip_fanout:
            phase(results, "fan-out", lambda: asyncio.run(fanout_run(env, args)), key="fanout")
        if not args.skip_api_streams:
            phase(
                results,
                "API streams",
                lambda: asyncio.run(api_streams.api_streams_run(env, args, make_matches, progress)),
                key="api_streams",
            )
        if not args.skip_watched:
            phase(
                results,
                "watched",
                lambda: asyncio.run(api_streams.watched_run(env, args, make_matches, progress)),
                key="watched",
            )
        if not args.skip_layers:
            phase(
                results,
                "scale-out layers",
                lambda: api_streams.layers_run(args, make_matches, progress),
                key="layers",
            )
        if not args.skip_lobby:
            phase(
                results,
                "lobby fan-out",
                lambda: asyncio.run(lobby_fanout_run(env, args)),
                key="lobby_fanout",
            )
            phase(
                results,
                "lobby churn",
                lambda: asyncio.run(lobby_churn_run(env, args)),
                key="lobby_churn",
            )
            phase(
                results,
                "lobby churn on two processes",
                lambda: lobby_split_run(args),
                key="lobby_churn_split",
            )
        if not args.skip_tournaments:
            phase(
                results,
                "tournaments",
                lambda: asyncio.run(tournaments.tournaments_run(env, args, tmp)),
                key="tournaments",
            )
        if not args.skip_storm:
            phase(results, "presence storm", lambda: asyncio.run(storm_run(env, args)), key="storm")
        quick = ["--quick", "--sockets", "10", "--ghost-wait", "1"] if args.tiny else []
        # A tiny run storms each page once with a cookie and once without, half of the six
        # straight to daphne and the other half through nginx: every kind and both ways in.
        direct = ["--kinds", "match-cookie,lobby-no-cookie,watch-cookie"] if args.tiny else []
        proxied = ["--kinds", "match-no-cookie,lobby-cookie,watch-no-cookie"] if args.tiny else []
        if not args.skip_storms:
            phase(
                results,
                "hostile storms",
                lambda: asyncio.run(storms.storms_run(env, storms.parse_args([*quick, *direct]))),
                key="storms",
            )
        if not args.skip_storms_nginx and not Path(storms.NGINX).exists():
            # make bench installs no system package (.ci/run does): say so rather than fail.
            results["storms_nginx"] = {
                "skipped": f"nginx is not installed ({storms.NGINX}); apt-get install nginx"
            }
            progress(
                f"  hostile storms through nginx: skipped, {results['storms_nginx']['skipped']}"
            )
        elif not args.skip_storms_nginx:
            via = storms.parse_args([*quick, *proxied, "--via", "nginx"])
            phase(
                results,
                "hostile storms through nginx",
                lambda: asyncio.run(storms.storms_run(env, via)),
                key="storms_nginx",
            )
        if not args.skip_flood:
            flood_args = flood.parse_args(
                ["--quick", "--duration", "2", "--kinds", "cold-analysis,bare-get"]
                if args.tiny
                else []
            )
            phase(
                results, "flood", lambda: asyncio.run(flood.flood_run(env, flood_args)), key="flood"
            )
        if not args.skip_memory:
            phase(results, "solver memory", lambda: memory_run(env, args), key="memory")
        if not args.skip_idle:
            phase(results, "idle sockets", lambda: asyncio.run(idle_run(env, args)), key="idle")
        if not args.skip_scale:
            phase(results, "scale-out", lambda: scale_run(args), key="scale")
        if not args.skip_length:
            phase(results, "length", lambda: length_run(args, tmp), key="length")
        if not args.skip_push_sizes:
            phase(results, "push sizes", lambda: push_sizes_run(args), key="push_sizes")
        if not args.skip_hooks:
            phase(results, "private hooks", lambda: asyncio.run(hooks_run(env, args)), key="hooks")
    if not args.skip_analysis:
        phase(results, "analysis", lambda: analysis_run(args), key="analysis")
    results["seconds"] = time.monotonic() - T0
    results["targets"] = report.targets(results)

    stamp = started.strftime("%Y%m%dT%H%M%SZ")
    name = "tiny" if args.tiny else ("full" if args.publish else "partial")
    raw_path = RAW / f"{name}-{stamp}.json"
    raw_path.write_text(json.dumps(results, indent=1, default=str))
    print()
    print(report.table(results), flush=True)
    if args.tiny:
        report.write(
            results, RAW / "tiny-latest.json", RAW / "tiny-latest.md", RAW / "tiny-latency.png"
        )
        problems = report.sanity(results)
        if problems:
            print("\nThe tiny benchmark is not sane:", *problems, sep="\n  ", flush=True)
            return 1
        progress(f"The tiny benchmark ran and its numbers are sane ({raw_path.name})")
        return 0
    if not args.publish:
        report.write(
            results,
            RAW / "partial-latest.json",
            RAW / "partial-latest.md",
            RAW / "partial-latency.png",
        )
        progress(f"Wrote {raw_path} and raw/partial-latest.* (not published)")
        return failed(results)
    publish(results)
    return failed(results)


def failed(results: dict) -> int:
    """The run's exit status: 1 when a phase failed (its traceback was printed and is in the
    raw results), after every other phase's figures were written."""
    if results.get("failed"):
        progress(f"Phases that failed: {', '.join(results['failed'])}")
        return 1
    return 0


def publish(results: dict) -> None:
    """The full run's outputs: latest.json, latest.md, latency.png and the figures of
    benchmarks/README.md."""
    report.write(results, RESULTS / "latest.json", RESULTS / "latest.md", RESULTS / "latency.png")
    progress(f"Wrote {RESULTS / 'latest.json'}, latest.md and latency.png")
    if report.update_readme(results, HERE / "README.md"):
        progress("Updated the figures in benchmarks/README.md")


if __name__ == "__main__":
    sys.exit(main())
