"""One client storming a page with sockets, and another match's moves and connects.

    python -m benchmarks.storms                # about three minutes
    python -m benchmarks.storms --quick        # fewer sockets, shorter

On a fresh server (daphne as `make run` starts it, less its access log; SQLite, the
in-process channel layer), one friend match is played by its two players as
benchmarks/load.py plays it (moves POSTed, each timed from its POST to the opponent's
socket receiving the board that shows it; open loop, ``--rate`` moves a second), and a
new spectator socket of that match is opened every ``--probe-gap`` seconds (its connect
timed until its first board). Meanwhile one client opens ``--sockets`` (500) websockets at
once to one page, holds them ``--hold`` seconds and closes them: a match's page (another
match), the lobby or the watch page, with one session cookie (the storm match's seat 1's)
or without any. Where the storm comes from (``--via``):

- ``address`` (the default): a client of its own address, 127.0.0.2, straight to daphne,
  as `make run` serves (the connections it may open are counted per address as they are
  accepted: bitsite/connections.py);
- ``nginx``: from 127.0.0.2 through deploy/nginx.conf as shipped (on a free port, plain
  HTTP) to daphne with ``--proxy-headers``; the match's players and probes go through
  nginx too (from 127.0.0.1, which the file does not count);
- ``proxy-header``: from 127.0.0.1 with an address of its own in ``X-Forwarded-For``
  (daphne's ``--proxy-headers``), as behind a proxy that limits nothing itself: only the
  site's own admission (games/admission.py) stands in the way;
- ``loopback``: from 127.0.0.1, which no per-address limit counts (``BITSITE_RATE_EXEMPT``).

Each storm alternates with a quiet turn of the same length; before each turn the server
is let go quiet. Printed: the other match's move p99 and connect p99 during the storm
against quiet, as ratios (the targets: within 2x), the server's CPU time for the storm
(until it is quiet again; the target: under 2 s), and what became of the storm's sockets.
At the end, after ``--ghost-wait`` seconds (60), the storm match's seat 2 opens its page:
seat 1 (whose sockets stormed it) must read as gone, and the idle server's CPU over a few
seconds is compared with the same window before the storms (no ghost heartbeats).

``storms_run(env, args)`` is the phase for benchmarks.run; ``main`` runs it alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time

from benchmarks import load
from benchmarks.servers import (
    BenchServer,
    children,
    process_cpu_seconds,
    run_alone,
    run_module,
    wait_quiet,
)
from tests.servers import Nginx

STORM_ADDRESS = "127.0.0.2"  # the storming client's own address (Linux routes 127/8 to lo)
PROXIED_ADDRESS = "203.0.113.66"  # the storming client, as a proxy would pass it (TEST-NET-3)
VIAS = ("address", "nginx", "proxy-header", "loopback")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PAGES = {"match": "a match's page", "lobby": "the lobby", "watch": "the watch page"}
KINDS = [f"{page}-{cookie}" for page in PAGES for cookie in ("cookie", "no-cookie")]
IDLE_WINDOW = 3.0  # seconds of idle CPU measured before the storms and after the ghost wait


class StormServer(BenchServer):
    """The benchmark's server, reading the client's address from X-Forwarded-For."""

    daphne_args = (*BenchServer.daphne_args, "--proxy-headers")


async def storm_elsewhere(spec: dict) -> dict:
    """``load.storm`` run by a process of its own: the hostile client is another program
    (as an attacker is), so its work never runs on the event loop that times the other
    match; it shares the machine's cores with everything else."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "benchmarks.storms",
        "--child",
        json.dumps(spec),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"the storming process failed ({proc.returncode})")
    return json.loads(out.decode().strip().splitlines()[-1])


async def storm_here(spec: dict) -> dict:
    """The storming process's work: one storm, from ``spec["address"]`` when it has one."""
    async with load.Client(address=spec["address"]) as stormer:
        return await load.storm(
            stormer,
            load.Target(spec["port"]),
            spec["path"],
            spec["cookie"],
            load.parse_ply if spec["page"] == "match" else any_frame,
            count=spec["count"],
            hold=spec["hold"],
            headers=spec["headers"],
        )


def any_frame(text: str) -> int | None:
    """A lobby or watch page's socket: its first frame is its snapshot."""
    return 0


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def server_cpu(server: BenchServer, nginx: Nginx | None) -> float:
    """CPU seconds of the server: daphne, and nginx (its master and workers) in front."""
    total = server.cpu_seconds()
    if nginx is not None:
        pids = [nginx.proc.pid, *children(nginx.proc.pid)]
        total += sum(process_cpu_seconds(pid) for pid in pids)
    return total


async def idle_cpu(server: BenchServer) -> float:
    """CPU seconds a second, over IDLE_WINDOW seconds."""
    before = server.cpu_seconds()
    await asyncio.sleep(IDLE_WINDOW)
    return (server.cpu_seconds() - before) / IDLE_WINDOW


async def turn(pair, client, target, probe_path, args, storm=None) -> dict:
    """The match's moves and connect probes for one turn, with ``storm`` (a coroutine)
    beside them; the turn lasts as long as the storm, or ``--hold`` + 2 s when quiet."""
    if storm is None:
        timer = asyncio.ensure_future(asyncio.sleep(args.hold + 2.0))
    else:
        timer = asyncio.ensure_future(storm)
    t0 = time.perf_counter()
    moves = asyncio.ensure_future(moving_until(pair, args.rate, timer))
    probes = await load.connect_probes(client, target, probe_path, args.probe_gap, until=timer)
    outcomes = await moves
    seconds = time.perf_counter() - t0
    return {
        "moves": load.moves_result(outcomes, seconds),
        "connects": load.connects_result(probes),
        "storm": timer.result() if storm is not None else None,
    }


async def moving_until(pair, rate: float, until: asyncio.Future) -> list:
    """The match's moves, one every 1/rate seconds, until ``until`` is done."""
    outcomes = []
    interval = 1.0 / rate
    next_at = load.now()
    while not until.done():
        outcomes.append(await pair.move(next_at))
        next_at += interval
        delay = next_at - load.now()
        if delay > 0:
            await asyncio.wait([until], timeout=delay)
        else:
            outcomes[-1].late = True
    return outcomes


async def storm_kind(server, nginx, client, target, pair, probe_path, row, kind, args) -> dict:
    page, _, cookie = kind.partition("-")
    path = {"match": f"/ws/m/{row['public_id']}/", "lobby": "/ws/lobby/", "watch": "/ws/watch/"}
    cookie_header = f"sessionid={row['sessions']['1']}" if cookie == "cookie" else ""
    headers = {"X-Forwarded-For": PROXIED_ADDRESS} if args.via == "proxy-header" else {}
    await wait_quiet(server)
    quiet = await turn(pair, client, target, probe_path, args)
    await wait_quiet(server)
    cpu0, t0 = server_cpu(server, nginx), time.perf_counter()
    storm = storm_elsewhere(
        {
            "port": target.port,
            "path": path[page],
            "cookie": cookie_header,
            "page": page,
            "count": args.sockets,
            "hold": args.hold,
            "headers": headers,
            "address": STORM_ADDRESS if args.via in ("address", "nginx") else None,
        }
    )
    during = await turn(pair, client, target, probe_path, args, storm)
    went_quiet = await wait_quiet(server, timeout=30.0)
    cpu = server_cpu(server, nginx) - cpu0
    window = time.perf_counter() - t0
    q, d = quiet, during
    return {
        "kind": kind,
        "what": f"{args.sockets} sockets to {PAGES[page]}, "
        + ("one session cookie" if cookie == "cookie" else "no cookie"),
        "quiet": {"moves": q["moves"], "connects": q["connects"]},
        "storm": {"moves": d["moves"], "connects": d["connects"]},
        "sockets": d["storm"],
        "move_p99_ratio": ratio(d["moves"]["p99_ms"], q["moves"]["p99_ms"]),
        "connect_p99_ratio": ratio(d["connects"]["p99_ms"], q["connects"]["p99_ms"]),
        "cpu_s": cpu,
        "window_s": window,
        "went_quiet": went_quiet,
    }


def line(result: dict) -> str:
    q, s, sockets = result["quiet"], result["storm"], result["sockets"]
    other = ", ".join(f"{n} {what}" for what, n in sorted(sockets["other"].items()))
    return (
        f"  {result['kind']:<15} moves p99 {q['moves']['p99_ms']:.1f} -> "
        f"{s['moves']['p99_ms']:.1f} ms ({result['move_p99_ratio']:.2f}x), connect p99 "
        f"{q['connects']['p99_ms']:.1f} -> {s['connects']['p99_ms']:.1f} ms "
        f"({result['connect_p99_ratio']:.2f}x); server CPU {result['cpu_s']:.2f} s; sockets "
        f"{sockets['opened']} opened, {sockets['refused']} refused (4409), "
        f"{sockets['busy']} busy (4503)"
        + (f", {other}" if other else "")
        + f"; move errors {q['moves']['errors'] + s['moves']['errors']}"
    )


async def ghost_check(server, client, target, row, args, idle_before: float) -> dict:
    """After the wait: seat 1 of the storm match reads as gone on seat 2's page, and the
    idle server works no more than before the storms."""
    await asyncio.sleep(args.ghost_wait)
    idle_after = await idle_cpu(server)
    path = f"/ws/m/{row['public_id']}/"
    sock = await client.socket(target, path, load.parse_ply, f"sessionid={row['sessions']['2']}")
    await asyncio.wait_for(asyncio.shield(sock.first), load.PUSH_TIMEOUT)
    html = sock.last_text
    await sock.close()
    return {
        "waited_s": args.ghost_wait,
        "seat1_shown_online": 'data-online="yes"' in html,
        "idle_cpu_before": idle_before,
        "idle_cpu_after": idle_after,
    }


async def storms_run(env: dict, args) -> dict:
    """The phase: a fresh server, a probe match and a storm match, each kind of storm
    against a quiet turn, then the ghost check."""
    lines = run_module(env, "benchmarks.fixtures", "matches", "2").splitlines()
    probe_row, storm_row = (json.loads(text) for text in lines if text.strip())
    behind_proxy = args.via in ("proxy-header", "nginx")
    server = (StormServer if behind_proxy else BenchServer)(env, name="bench-storms").start()
    nginx = Nginx(NGINX, server.port) if args.via == "nginx" else None
    results = {
        "kinds": {},
        "sockets": args.sockets,
        "hold_s": args.hold,
        "rate": args.rate,
        "via": args.via,
    }
    try:
        await asyncio.sleep(1.0)
        async with load.Client() as client:
            target = load.Target(nginx.port if nginx else server.port)
            pair = load.MatchPair(client, probe_row, {1: target, 2: target}, random.Random(0))
            await pair.open()
            probe_path = "/ws" + pair.path
            await load.connect_probes(client, target, probe_path, args.probe_gap, count=3)
            await wait_quiet(server)
            idle_before = await idle_cpu(server)
            for kind in args.kinds:
                result = await storm_kind(
                    server, nginx, client, target, pair, probe_path, storm_row, kind, args
                )
                results["kinds"][kind] = result
                print(line(result), flush=True)
            results["ghosts"] = await ghost_check(
                server, client, target, storm_row, args, idle_before
            )
            g = results["ghosts"]
            print(
                f"  after {g['waited_s']:g} s: seat 1 of the storm match shown "
                f"{'ONLINE (a ghost)' if g['seat1_shown_online'] else 'gone'}; idle server CPU "
                f"{g['idle_cpu_before'] * 1000:.1f} ms/s before the storms, "
                f"{g['idle_cpu_after'] * 1000:.1f} ms/s after",
                flush=True,
            )
            await pair.close()
        results["server_tracebacks"] = server.tracebacks()
    finally:
        if nginx is not None:
            nginx.stop()
        server.stop()
    return results


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="100 sockets, 1 s held, 2 s ghost wait")
    p.add_argument("--kinds", default=",".join(KINDS), help=f"of {', '.join(KINDS)}")
    p.add_argument("--sockets", type=int, help="sockets of each storm (500; quick 100)")
    p.add_argument("--hold", type=float, help="seconds the storm's sockets stay open (3; quick 1)")
    p.add_argument("--rate", type=float, default=5.0, help="the other match's moves a second")
    p.add_argument("--probe-gap", type=float, default=0.1, help="seconds between connect probes")
    p.add_argument("--ghost-wait", type=float, help="seconds before the ghost check (60; quick 2)")
    p.add_argument(
        "--via",
        choices=VIAS,
        default="address",
        help="the storm from 127.0.0.2 straight to daphne (address) or through "
        "deploy/nginx.conf (nginx), from 127.0.0.1 with X-Forwarded-For as behind a proxy "
        "that limits nothing (proxy-header), or from 127.0.0.1 (loopback)",
    )
    p.add_argument("--env", action="append", default=[], help="KEY=VALUE for the server")
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(args.kinds) - set(KINDS)
    if unknown:
        p.error(f"no such kind: {', '.join(sorted(unknown))}")
    args.sockets = args.sockets or (100 if args.quick else 500)
    args.hold = args.hold or (1.0 if args.quick else 3.0)
    args.ghost_wait = args.ghost_wait if args.ghost_wait is not None else (2 if args.quick else 60)
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # the storming process (storm_elsewhere)
        print(json.dumps(asyncio.run(storm_here(json.loads(argv[1])))), flush=True)
        return 0
    args = parse_args(argv)
    source = {
        "address": f"{STORM_ADDRESS} straight to daphne",
        "nginx": f"{STORM_ADDRESS} through nginx (deploy/nginx.conf)",
        "proxy-header": f"{PROXIED_ADDRESS} (X-Forwarded-For, a proxy that limits nothing)",
    }.get(args.via, "127.0.0.1")
    banner = (
        f"Storms: {args.sockets} sockets at once from {source}, held {args.hold:g} s, beside "
        f"one match at {args.rate:g} moves/s and a new spectator socket every "
        f"{args.probe_gap:g} s"
    )
    return run_alone(storms_run, args, banner)


if __name__ == "__main__":
    sys.exit(main())
