"""Servers and services for the benchmark: daphne as `make run` starts it, less its access log.

Reuses tests.servers (free port, wait for the port, TERM-then-KILL stop). Daphne
writes an access log to stdout unless started with ``-v 0`` (its default
verbosity 1 turns it on), so the benchmark's server passes ``-v 0``: the issue
asks for the access log off.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.servers import ROOT, DaphneServer, server_env

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/13"  # a database index the tests do not use
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name (which may hold spaces): field 3 of proc(5)
    is the first."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu_seconds(pid: int) -> float:
    """CPU time a process has used (user + system, all its threads); 0 once it is gone."""
    try:
        fields = stat_fields(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # fields 14 and 15 of proc(5)


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if int(stat_fields(int(proc.name))[1]) == pid:  # field 4: the parent's pid
                found.append(int(proc.name))
        except OSError:
            continue  # gone meanwhile
    return found


class BenchServer(DaphneServer):
    """One daphne process with debug off, the access log off, and the bare baseline on."""

    daphne_args = ("-v", "0")
    application = "benchmarks.asgi:application"
    log_offset = 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self) -> BenchServer:
        self.log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        super().start()
        return self

    def cpu_seconds(self) -> float:
        """CPU time the process has used (user + system, all its threads), from /proc."""
        return process_cpu_seconds(self.pid)

    def children_cpu_seconds(self) -> float:
        """CPU time of its live child processes (the analysis pool's workers), from /proc."""
        return sum(process_cpu_seconds(pid) for pid in children(self.pid))

    def tracebacks(self) -> list[str]:
        """The last line of each traceback this server logged since it started."""
        if not self.log_path.exists():
            return []
        with open(self.log_path, "rb") as log:
            log.seek(self.log_offset)
            lines = log.read().decode(errors="replace").splitlines()
        out, inside = [], False
        for line in lines:
            if line.startswith("Traceback"):
                inside = True
            elif inside and line and not line[0].isspace():
                out.append(line.strip()[:200])
                inside = False
        return out

    def memory(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak RSS) in KiB, from /proc."""
        out = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                out[name] = int(value.split()[0])
        return out


async def wait_quiet(server: BenchServer, window: float = 0.5, timeout: float = 20.0) -> bool:
    """Until the server (with its child processes) uses under 2% of a core over ``window``
    seconds (False: timed out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = server.cpu_seconds() + server.children_cpu_seconds()
        await asyncio.sleep(window)
        if server.cpu_seconds() + server.children_cpu_seconds() - before < 0.02 * window:
            return True
    return False


# The load generator moves far faster than a person (a closed loop with one match moves
# each player dozens of times a second): the rate limits' thresholds are lifted for it.
# Every request is still counted, so their cost is in the figures.
LIFTED_RATES = {
    f"BITSITE_RATE_{action}": "1000000/m,1000000/m"
    for action in ("CREATE", "JOIN", "MOVE", "SOCKET", "LOBBY")
}


def bench_env(database_url: str, redis_url: str = "") -> dict[str, str]:
    env = server_env(
        database_url,
        DJANGO_SETTINGS_MODULE="benchmarks.settings",
        DJANGO_LOG_LEVEL="WARNING",
        # The load generator's own address: no address is exempt by default, and the
        # generator opens hundreds of connections from 127.0.0.1 (the storms come from
        # other addresses, as X-Forwarded-For behind the proxy, or say when they are loopback).
        BITSITE_RATE_EXEMPT="127.0.0.1,::1",
        **LIFTED_RATES,
    )
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def run_module(env: dict[str, str], module: str, *args: str) -> str:
    """Run ``python -m module args`` with ``env``; its stdout, or an error with its stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


# ---- PostgreSQL and Redis for the scale-out run -------------------------------------------


def services_problem() -> str:
    """Why PostgreSQL or Redis cannot be used, or "" if both answer."""
    for name, port in (("PostgreSQL", 5432), ("Redis", 6379)):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2):
                pass
        except OSError as error:
            return f"{name} does not answer on 127.0.0.1:{port} ({error})"
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except Exception as error:
        return f"PostgreSQL refused user postgres at 127.0.0.1:5432 ({error})"
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except Exception as error:
        return f"Redis did not answer PING ({error})"
    return ""


class PostgresDatabase:
    """A fresh database for one run, dropped at the end."""

    def __init__(self):
        self.name = f"bitsite_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:5432/{self.name}"

    def __enter__(self) -> PostgresDatabase:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def run_alone(phase, args, banner: str) -> int:
    """A phase of benchmarks.run on its own (``python -m benchmarks.flood``, ``.storms``):
    a fresh SQLite database, the server's extra ``--env KEY=VALUE``, the phase's results in
    ``--json`` if asked; 1 if the server logged a traceback."""
    extra = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory(prefix="bitsite-phase-") as tmp:
        env = bench_env(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}") | extra
        run_module(env, "benchmarks.fixtures", "prepare")
        print(banner, flush=True)
        results = asyncio.run(phase(env, args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    if results["server_tracebacks"]:
        print("server tracebacks:", *results["server_tracebacks"][:5], sep="\n  ")
        return 1
    return 0
