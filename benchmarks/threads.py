"""Where the server's CPU goes per move, by thread, from /proc (no profiler needed).

    python -m benchmarks.threads [--n 100] [--seconds 15] [--rounds 2]

On a fresh benchmark server (SQLite, as the load run's), N friend matches with both
players' sockets open, N bare pairs and N bare ws pairs; then each of the load run's
four rows alone (benchmarks/run.py ``ROWS``: our move POSTed, the bare insert, our move
sent on the socket, the bare ws move), open loop at 10 moves/s, in turns, with every
thread's CPU time read from ``/proc/<pid>/task`` before and after each turn. Printed
per move: the event loop's thread (daphne, Twisted, Channels, the consumers: the main
thread), the write path's two threads (games/play.py: the SQLite writer, which runs a
move's transaction, and the pusher, which reads and draws its pushes' boards and sends
them), and every other thread (Django's per-request threads, ``database_sync_to_async``).

Python 3.11 names no thread for the kernel, so the write path's threads are found by
what makes them: once the sockets are open, one move sent on a socket starts the writer
(its job) and then the pusher (from the writer's first commit), and nothing else; the
bare rows, which never use them, show ~0 there. A turn's CPU (its second of warm-up
included) is divided by its moves, counted at the offered rate over the same time.
py-spy's profiles (``python -m benchmarks.run --profile``) say which functions; this says
which thread, with a tenth of the machinery.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from pathlib import Path

from benchmarks import load, run
from benchmarks.servers import CLOCK_TICKS, BenchServer, bench_env, run_module

PARTS = ("event loop", "writer", "pusher", "other threads")


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of each live thread of ``pid``."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return out


async def measure(n: int, seconds: float, rounds: int, rate: float, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bitsite-threads-") as tmp:
        env = bench_env(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        run_module(env, "benchmarks.fixtures", "prepare")
        rows = run.make_matches(env, n)
        server = BenchServer(env, name="bench-threads").start()
        try:
            await asyncio.sleep(1.0)
            async with load.Client() as client:
                target = load.Target(server.port)
                sides = {1: target, 2: target}
                rng = random.Random(seed)
                pairs = [load.MatchPair(client, row, sides, rng) for row in rows]
                await load.open_all(pairs, lambda p: p.open())
                before = set(thread_cpu(server.pid))
                first = await pairs[0].move(load.now(), via=load.Via.SOCKET)
                if first.error:
                    raise RuntimeError(f"the first socket move failed: {first.error}")
                await asyncio.sleep(0.5)
                made = sorted(set(thread_cpu(server.pid)) - before)
                if len(made) != 2:
                    raise RuntimeError(f"the first socket move made threads {made}, not two")
                writer, pusher = made
                bare = [load.BarePair(client, f"b{i}", sides) for i in range(n)]
                frames = [load.BarePair(client, f"w{i}", sides, frames=True) for i in range(n)]
                await load.open_all([*bare, *frames], lambda p: p.open())
                ways = run.move_rows(pairs, bare, frames)
                spent = {name: dict.fromkeys((*PARTS, "all", "moves"), 0.0) for name in ways}
                for _ in range(rounds):
                    for name, movers in ways.items():
                        threads0, cpu0 = thread_cpu(server.pid), server.cpu_seconds()
                        outcomes, _ = await load.open_loop(movers, rate, seconds, 1.0)
                        threads1, cpu1 = thread_cpu(server.pid), server.cpu_seconds()
                        errors = sorted({o.error for o in outcomes if o.error})
                        if errors:
                            raise RuntimeError(f"{name}: {errors[:3]}")

                        def used(tid, before=threads0, after=threads1):
                            return after.get(tid, 0.0) - before.get(tid, 0.0)

                        row = spent[name]
                        row["moves"] += rate * (seconds + 1.0)
                        row["event loop"] += used(server.pid)
                        row["writer"] += used(writer)
                        row["pusher"] += used(pusher)
                        row["all"] += cpu1 - cpu0
                await asyncio.gather(*(p.close() for p in [*pairs, *bare, *frames]))
        finally:
            server.stop()
    out = {}
    for name, row in spent.items():
        row["other threads"] = row["all"] - row["event loop"] - row["writer"] - row["pusher"]
        out[name] = {part: 1000 * row[part] / row["moves"] for part in (*PARTS, "all")} | {
            "moves": row["moves"]
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100, help="matches (and bare pairs of each kind)")
    p.add_argument("--seconds", type=float, default=15.0, help="measured seconds of each turn")
    p.add_argument("--rounds", type=int, default=2, help="turns of each row")
    p.add_argument("--rate", type=float, default=10.0, help="moves/s offered")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)
    figures = asyncio.run(measure(args.n, args.seconds, args.rounds, args.rate, args.seed))
    print(f"server CPU per move, ms (N = {args.n}, {args.rate:g} moves/s):")
    print(f"{'':14}" + "".join(f"{part:>15}" for part in (*PARTS, "all")))
    for name, row in figures.items():
        label = run.ROWS[name]
        print(f"{label:14}" + "".join(f"{row[part]:15.2f}" for part in (*PARTS, "all")))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
