"""Tournaments under load: an arena's players paired again, and its standings' fan-out.

    python -m benchmarks.tournaments            # the full size, alone (about 12 minutes)
    python -m benchmarks.tournaments --tiny     # CI's size
    make bench                                  # runs it too (benchmarks.run)

Each part runs on a fresh server (daphne as benchmarks.run starts it, SQLite and the
in-process layer) over a fresh database of its own, whose accounts and event are made by
``benchmarks.fixtures arena`` through the site's own code:

1. **Repair** (``--t-players``, 1,000): a running arena whose every player is a simulated
   client with a signed-in session and the event's page socket open (``/ws/t/<id>/``), as a
   player keeps the page open between games (an absent player is paused, not paired). A
   player learns of a game from the "Go to your game" panel pushed on that socket. Each game
   is played over HTTP as its two players' browsers play it: both GET the match page (which
   says whose turn it is), the player to move POSTs a real legal move, the other answers
   with one, and one of them resigns (``/m/<id>/resign``), each step after a random pause of
   0.5 to 1.5 x ``--t-think`` seconds (20: at 1,000 players, about 8 games end a second, 5
   requests each, what one server sustains on this machine). Not simulated: the match page's
   own socket (a player's presence is their open event page), and the pages' permessage-
   deflate (the client does not offer it). A finished player is timed from their game's end
   to their next game: on the server, from the finished game's ``finished_at`` to the next
   ``Pairing.created_at`` (read from the database after the run); on the client, from the
   resign's answer to the panel that shows the next game. A player whose game ended in the
   measured window but who had no next game when it closed counts with the time they had
   waited (a lower bound), never dropped.
2. **Standings fan-out** (``--t-pages``, 1,000): that many anonymous pages of one event
   (``--t-entrants`` players joined, so the standings are a full table), and a new
   player joining ``--fanout-rate`` times a second (the Join button's POST, htmx, by a
   signed-in account), each timed from its POST to the standings frame whose
   ``data-version`` shows it reaching the last page; against one bare group of as many
   bare listeners (one INSERT + one group send), interleaved, as the lobby's fan-out is.
3. **Swiss pairing**: ``benchmarks.swiss_pairing`` (round 5 of 1,000 players), in a process
   of its own.

It reports; it never fails on a time (``--tiny``: only that it ran and its numbers are sane).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import secrets
import sqlite3
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import aiohttp

from benchmarks import load
from benchmarks.servers import REDIS_URL, BenchServer, bench_env, run_module
from games.rules import get_game

VERSION_RE = re.compile(r'id="t-live"[^>]*data-version="(\d+)"')
GAME_RE = re.compile(r'id="your-game" href="/m/([\w-]{16})/"')
YOUR_TURN = 'class="state your-turn"'
PLY_RE = load.PLY_RE


def machine_busy_seconds() -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (Linux's
    /proc/stat: all but idle and iowait), or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def parse_version(text: str) -> int | None:
    """The version of the standings a frame of an event's page carries (None: a panel)."""
    found = VERSION_RE.search(text)
    return int(found.group(1)) if found else None


# The server runs the tournaments' scheduler, as `make run` does: it starts the event that
# the fixtures' command made due, and re-pairs and pushes from the server's process (the
# test servers run without it, tests/servers.py).
WITH_SCHEDULER = {"BITSITE_TOURNAMENT_SCHEDULER": "1"}


def make_arena(env: dict, players: int, others: int = 0) -> dict:
    out = run_module(env, "benchmarks.fixtures", "arena", str(players), str(others))
    return json.loads(out)


class Account:
    """A signed-in browser of one account: its session and a CSRF cookie of its own."""

    def __init__(self, row: dict):
        self.user_id = row["user_id"]
        self.name = row["name"]
        self.csrf = secrets.token_hex(16)  # Django's unmasked form of the secret
        self.cookie = f"sessionid={row['session']}; csrftoken={self.csrf}"

    def headers(self, target: load.Target, referer: str = "") -> dict:
        return {
            "Cookie": self.cookie,
            "X-CSRFToken": self.csrf,
            "HX-Request": "true",
            "HX-Current-URL": target.http + referer,
            "Origin": target.origin,
        }


# ---- 1. repair: an arena's players paired again ---------------------------------------------


class Player(Account):
    def __init__(self, row: dict):
        super().__init__(row)
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.task: asyncio.Task | None = None
        self.games: list[str] = []  # the matches its panel showed, in order
        self.shown_at: dict[str, float] = {}  # match -> when its panel arrived (client)
        self.ended_at: dict[str, float] = {}  # match -> its resign's answer (client)
        self.first = asyncio.get_running_loop().create_future()
        self.frames = 0
        self.bytes = 0
        self.closed_code: int | None = None
        self.target: load.Target | None = None  # the server process it talks to


class Arena:
    """The simulated players of one running arena."""

    def __init__(
        self,
        client: load.Client,
        target: load.Target | list[load.Target],
        row: dict,
        think: float,
        moves: int,
    ):
        self.client = client
        self.public_id = row["public_id"]
        self.rules = get_game(row["game"])
        self.players = [Player(p) for p in row["players"]]
        targets = target if isinstance(target, list) else [target]
        for n, player in enumerate(self.players):  # as a balancer spreads browsers
            player.target = targets[n % len(targets)]
        self.think = think
        self.moves = moves
        self.rng = random.Random(1)
        self.seen: dict[str, list[Player]] = {}  # match -> the players who saw its panel
        self.drivers: set[asyncio.Task] = set()
        self.stop_at = math.inf  # no step of a game is taken after this (load.now())
        self.requests: dict[str, list[float]] = {"page": [], "move": [], "resign": []}
        self.games_started = 0
        self.games_ended = 0
        self.errors: list[str] = []

    async def open(self) -> None:
        async def one(player: Player) -> None:
            player.ws = await self.client.session.ws_connect(
                f"{player.target.ws}/ws/t/{self.public_id}/",
                headers={"Origin": player.target.origin, "Cookie": player.cookie},
                autoping=True,
                max_msg_size=0,
            )
            player.task = asyncio.create_task(self._read(player))

        await load.open_all(self.players, one)
        for player in self.players:
            await asyncio.wait_for(asyncio.shield(player.first), load.PUSH_TIMEOUT)

    async def _read(self, player: Player) -> None:
        try:
            async for msg in player.ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                arrived = load.now()
                player.frames += 1
                player.bytes += len(msg.data)
                if not player.first.done():
                    player.first.set_result(arrived)
                found = GAME_RE.search(msg.data)
                if found and found.group(1) not in player.shown_at:
                    self._shown(player, found.group(1), arrived)
        finally:
            player.closed_code = player.ws.close_code
            if not player.first.done():
                player.first.set_exception(ConnectionError(f"closed ({player.ws.close_code})"))

    def _shown(self, player: Player, match: str, arrived: float) -> None:
        player.games.append(match)
        player.shown_at[match] = arrived
        both = self.seen.setdefault(match, [])
        both.append(player)
        if len(both) == 2 and arrived < self.stop_at:
            task = asyncio.create_task(self._play(match, both[0], both[1]))
            self.drivers.add(task)
            task.add_done_callback(self.drivers.discard)

    async def _pause(self) -> bool:
        """A player's pause before a step; False once the run is over."""
        await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
        return load.now() < self.stop_at

    async def _get(self, player: Player, path: str) -> str:
        sent = load.now()
        async with self.client.session.get(
            player.target.http + path, headers={"Cookie": player.cookie}
        ) as r:
            body = await r.text()
            if r.status != 200:
                raise RuntimeError(f"GET match page: HTTP {r.status}")
            self.requests["page"].append(load.now() - sent)
            return body

    async def _post(self, player: Player, path: str, data: dict | None = None) -> str:
        sent = load.now()
        async with self.client.session.post(
            player.target.http + path,
            data=data or {},
            headers=player.headers(player.target, path),
        ) as r:
            body = await r.text()
            if r.status != 200:
                raise RuntimeError(f"POST {path.rsplit('/', 1)[-1]}: HTTP {r.status}")
            self.requests[path.rsplit("/", 1)[-1]].append(load.now() - sent)
            return body

    async def _play(self, match: str, a: Player, b: Player) -> None:
        """One game, as its two players' browsers play it: from 2 to 2 x ``moves`` - 2
        plies (its length drawn at random, so that games end apart), then a resignation."""
        self.games_started += 1
        path = f"/m/{match}/"
        plies = self.rng.randint(2, max(2, 2 * self.moves - 2))
        try:
            pages = await asyncio.gather(self._get(a, path), self._get(b, path))
            if YOUR_TURN in pages[0]:
                seats = (a, b)
            elif YOUR_TURN in pages[1]:
                seats = (b, a)
            else:
                raise RuntimeError("neither page says it is its player's turn")
            pos = self.rules.start()
            for ply in range(plies):
                if not await self._pause():
                    return
                legal = self.rules.legal_moves(pos)
                going_on = [m for m in legal if self.rules.play(pos, m).result is None]
                if not going_on:
                    break  # every move would end it: resign instead
                text = self.rng.choice(going_on)
                body = await self._post(
                    seats[ply % 2], path + "move", {"move": text, "ply": str(ply)}
                )
                found = PLY_RE.search(body)
                if not found or int(found.group(1)) != ply + 1:
                    raise RuntimeError("a move's answer shows the wrong ply")
                pos = self.rules.play(pos, text)
            if not await self._pause():
                return
            await self._post(self.rng.choice((a, b)), path + "resign")
            ended = load.now()
            a.ended_at[match] = b.ended_at[match] = ended
            self.games_ended += 1
        except Exception as error:
            self.errors.append(f"{type(error).__name__}: {error}"[:160])

    def client_repairs(self, measured_from: float, measured_to: float, closed: float) -> dict:
        """From each game's resign answer (in the window) to the panel of the next game;
        one still waiting when the run closed counts with its wait so far."""
        times, waiting = [], 0
        for player in self.players:
            for i, match in enumerate(player.games):
                ended = player.ended_at.get(match)
                if ended is None or not measured_from <= ended < measured_to:
                    continue
                if i + 1 < len(player.games):
                    times.append(max(0.0, player.shown_at[player.games[i + 1]] - ended))
                else:
                    times.append(closed - ended)
                    waiting += 1
        result = load.summarize(times)
        result["still_waiting"] = waiting
        return result

    async def close(self) -> None:
        for task in list(self.drivers):
            task.cancel()
        await asyncio.gather(*self.drivers, return_exceptions=True)

        async def one(player: Player) -> None:
            if player.ws is not None:
                await player.ws.close()
            if player.task is not None:
                await asyncio.gather(player.task, return_exceptions=True)

        await asyncio.gather(*(one(p) for p in self.players), return_exceptions=True)


@contextlib.contextmanager
def reading(db: Path | str):
    """The run's database, read after the run: ``db`` a SQLite file or a PostgreSQL URL.
    Yields ``query(sql, params)`` (``?`` placeholders) -> rows."""
    if isinstance(db, str) and db.startswith("postgres"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            yield lambda sql, params: conn.execute(sql.replace("?", "%s"), params).fetchall()
        return
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        yield lambda sql, params: conn.execute(sql, params).fetchall()


def _when(text: str | datetime | None) -> float | None:
    """A datetime as the database gave it (SQLite: Django's UTC ISO text), as a Unix time."""
    if not text:
        return None
    if isinstance(text, datetime):
        return text.timestamp()
    stamp = datetime.fromisoformat(text.replace(" ", "T"))
    if stamp.tzinfo is None:
        from datetime import UTC

        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()


def missed_panels(
    db: Path | str, public_id: str, players: list[Player], before: float, wall: float
) -> dict:
    """The event's games (made before ``before``, Unix time) whose "Go to your game" never
    reached one of their players' pages, the players paused when the run closed, and how
    long each panel took from its pairing (``Pairing.created_at``) to its page (``wall``:
    the client's clock to Unix time): the pages' repair less the server's."""
    shown = {p.user_id: set(p.shown_at) for p in players}
    shown_at = {p.user_id: p.shown_at for p in players}
    with reading(db) as query:
        rows = query(
            "SELECT m.public_id, m.seat1_user_id, m.seat2_user_id, p.created_at "
            "FROM tournaments_pairing p JOIN tournaments_tournament t ON t.id = p.tournament_id "
            "JOIN games_match m ON m.id = p.match_id WHERE t.public_id = ?",
            [public_id],
        )
        paused = query(
            "SELECT count(*) FROM tournaments_entry e JOIN tournaments_tournament t "
            "ON t.id = e.tournament_id WHERE t.public_id = ? AND NOT e.active",
            [public_id],
        )[0][0]
        endings = dict(
            query(
                "SELECT m.ending, count(*) FROM tournaments_pairing p JOIN tournaments_tournament "
                "t ON t.id = p.tournament_id JOIN games_match m ON m.id = p.match_id "
                "WHERE t.public_id = ? GROUP BY m.ending",
                [public_id],
            )
        )
    missed = sum(
        1
        for match, one, two, created in rows
        for user in (one, two)
        if _when(created) < before and match not in shown.get(user, ())
    )
    delivery = [
        max(0.0, shown_at[user][match] + wall - _when(created))
        for match, one, two, created in rows
        for user in (one, two)
        if match in shown_at.get(user, {})
    ]
    return {
        "panel_delivery": load.summarize(delivery),
        "panels_missed": missed,
        "games": len(rows),
        "paused_at_close": paused,
        "endings": endings,
    }


def server_repairs(
    db: Path | str, public_id: str, measured_from: float, measured_to: float, closed
):
    """From each of the event's games that ended in the window (its ``finished_at``, Unix
    time) to its players' next ``Pairing.created_at``, from the database."""
    with reading(db) as query:
        rows = query(
            "SELECT p.first_id, p.second_id, p.created_at, m.finished_at "
            "FROM tournaments_pairing p JOIN tournaments_tournament t ON t.id = p.tournament_id "
            "JOIN games_match m ON m.id = p.match_id WHERE t.public_id = ? "
            "ORDER BY p.created_at, p.id",
            [public_id],
        )
    games: dict[int, list[tuple[float, float | None]]] = {}
    for first, second, created, finished in rows:
        for entry in (first, second):
            games.setdefault(entry, []).append((_when(created), _when(finished)))
    times, waiting, ended = [], 0, 0
    for played in games.values():
        for i, (_, finished) in enumerate(played):
            if finished is None or not measured_from <= finished < measured_to:
                continue
            ended += 1
            if i + 1 < len(played):
                times.append(max(0.0, played[i + 1][0] - finished))
            else:
                times.append(closed - finished)
                waiting += 1
    result = load.summarize(times)
    result.update(still_waiting=waiting, pairings=len(rows))
    return result


async def repair_run(env: dict, args, tmp: Path) -> dict:
    """The repair on one process (SQLite, the in-process layer), or with ``--t-processes``
    N > 1 on N daphne processes over PostgreSQL and Redis, the scale-out configuration
    (the players spread over them as a balancer would, each process's scheduler running,
    one of them pairing at a time)."""
    processes = args.t_processes
    if processes <= 1:
        return await _repair_on(env, args, tmp / "tournament-repair.sqlite3", 1)
    from benchmarks.servers import PostgresDatabase, services_problem

    problem = services_problem()
    if problem:
        raise RuntimeError(f"the repair on {processes} processes needs them: {problem}")
    with PostgresDatabase() as database:
        result = await _repair_on(
            env | bench_env(database.url, REDIS_URL), args, database.url, processes
        )
    result["database"] = "PostgreSQL (fresh database, dropped after)"
    result["redis"] = REDIS_URL
    return result


async def _repair_on(env: dict, args, db: Path | str, processes: int) -> dict:
    from benchmarks.run import RAW, Profiler

    RAW.mkdir(parents=True, exist_ok=True)
    players = args.t_players
    if processes <= 1:
        env = env | bench_env(f"sqlite:///{db}")
    env = env | WITH_SCHEDULER
    run_module(env, "benchmarks.fixtures", "prepare")
    progress(f"Tournament repair: making an arena of {players} accounts, all joined")
    made = time.monotonic()
    row = await asyncio.to_thread(make_arena, env, players)
    progress(f"  made in {time.monotonic() - made:.0f} s; starting {processes} server process(es)")
    servers = [
        BenchServer(env, name=f"bench-tournament-repair-{n}").start() for n in range(processes)
    ]
    server = servers[0]
    result: dict = {"players": players, "think_s": args.t_think, "processes": processes}

    def cpu_seconds() -> float:
        return sum(s.cpu_seconds() for s in servers)

    try:
        async with load.Client() as client:
            targets = [load.Target(s.port) for s in servers]
            arena = Arena(client, targets, row, args.t_think, args.t_moves)
            await arena.open()
            progress(f"  {players} players have the event's page open; the arena starts")
            start = ("benchmarks.fixtures", "start", row["public_id"])
            await asyncio.to_thread(run_module, env, *start)
            started = load.now()
            measured_from = started + args.t_warmup
            measured_to = measured_from + args.t_duration
            closed_at = measured_to + args.t_tail
            arena.stop_at = measured_to
            wall = time.time() - load.now()  # client clock -> Unix time
            cpu = cpu_seconds()
            await asyncio.sleep(max(0.0, measured_from - load.now()))
            cpu_from, ended_from = cpu_seconds(), arena.games_ended
            machine_from = machine_busy_seconds()
            client_from = time.process_time()
            profilers = [  # every process's (the second and later: -1, -2, ...)
                Profiler(
                    args.t_profile,
                    s.pid,
                    "tournament-repair" + (f"-{n}" if n else ""),
                    args.t_duration,
                )
                for n, s in enumerate(servers)
            ]
            await asyncio.sleep(max(0.0, measured_to - load.now()))
            cpu_to, ended_to = cpu_seconds(), arena.games_ended
            machine_to = machine_busy_seconds()
            client_cpu = time.process_time() - client_from
            profiles = [await asyncio.to_thread(profiler.finish) for profiler in profilers]
            result["profile"] = profiles[0]
            result["profiles"] = profiles
            progress(
                f"  measured {args.t_duration:g} s: {ended_to - ended_from} games ended "
                f"({(ended_to - ended_from) / args.t_duration:.1f}/s); waiting {args.t_tail:g} s "
                "for the last of them to be paired"
            )
            await asyncio.sleep(max(0.0, closed_at - load.now()))
            result["client"] = arena.client_repairs(measured_from, measured_to, closed_at)
            result.update(
                games_started=arena.games_started,
                games_ended=arena.games_ended,
                games_ended_measured=ended_to - ended_from,
                games_per_s=(ended_to - ended_from) / args.t_duration,
                measured_s=args.t_duration,
                warmup_s=args.t_warmup,
                server_cpu_s=cpu_to - cpu_from,
                server_cpu_share=(cpu_to - cpu_from) / args.t_duration,
                server_cpu_total_s=cpu_seconds() - cpu,
                client_cpu_share=client_cpu / args.t_duration,
                # The whole machine (the servers, the players' client, PostgreSQL, Redis and
                # whatever else runs): cores busy on average (None: no /proc/stat).
                machine_busy_cores=None
                if machine_from is None or machine_to is None
                else (machine_to - machine_from) / args.t_duration,
                machine_cores=os.cpu_count(),
                errors=len(arena.errors),
                error_kinds=sorted(set(arena.errors))[:10],
                sockets_closed=sum(1 for p in arena.players if p.task.done()),
                frames_per_page_per_s=sum(p.frames for p in arena.players)
                / players
                / (load.now() - started),
                frame_kib=sum(p.bytes for p in arena.players)
                / max(1, sum(p.frames for p in arena.players))
                / 1024,
                memory_kib=server.memory(),
                requests={k: load.summarize(v) for k, v in arena.requests.items()},
            )
            await arena.close()
        result["server"] = server_repairs(
            db,
            row["public_id"],
            measured_from + wall,
            measured_to + wall,
            closed_at + wall,
        )
        result.update(
            missed_panels(db, row["public_id"], arena.players, closed_at + wall - args.t_tail, wall)
        )
        result["server_tracebacks"] = [t for s in servers for t in s.tracebacks()]
    finally:
        for one in servers:
            one.stop()
    s, c = result["server"], result["client"]
    progress(
        f"  repair, server (finished_at -> next pairing): p50 {s['p50_ms']:.0f} ms, p99 "
        f"{s['p99_ms']:.0f} ms, max {s['max_ms']:.0f} ms of {s['count']}; client (resign "
        f"answer -> next game's panel): p50 {c['p50_ms']:.0f}, p99 {c['p99_ms']:.0f}, max "
        f"{c['max_ms']:.0f} ms; still waiting {c['still_waiting']}; errors {result['errors']}; "
        f"{result['panels_missed']} of {2 * result['games']} panels never shown; from a "
        f"pairing to its panel on the page p50 {result['panel_delivery']['p50_ms']:.0f}, p99 "
        f"{result['panel_delivery']['p99_ms']:.0f} ms; "
        f"{result['paused_at_close']} players paused at the close; endings {result['endings']}; "
        "requests p50 / p99 ms: "
        + ", ".join(
            f"{k} {r['p50_ms']:.0f} / {r['p99_ms']:.0f}" for k, r in result["requests"].items()
        )
    )
    return result


# ---- 2. the standings' fan-out ---------------------------------------------------------------


class StandingsPages:
    """``count`` anonymous pages of one event; a "move" is one more player joining."""

    def __init__(self, client: load.Client, target: load.Target, row: dict, count: int):
        self.client = client
        self.target = target
        self.public_id = row["public_id"]
        self.joiners = [Account(r) for r in row["others"]]
        self.count = count
        self.sockets: list[load.Socket] = []
        self.base = 0
        self.seq = 0

    async def open(self) -> None:
        async def page(_) -> None:
            path = f"/ws/t/{self.public_id}/"
            self.sockets.append(await self.client.socket(self.target, path, parse_version))

        await load.open_all(range(self.count), page)
        firsts = [
            await asyncio.wait_for(asyncio.shield(s.first), load.PUSH_TIMEOUT) for s in self.sockets
        ]
        self.base = max(firsts)

    async def move(self, scheduled: float) -> load.Outcome:
        self.seq += 1
        version = self.base + self.seq  # a join is one change of the event
        waits = [sock.wait_for(version) for sock in self.sockets]
        out = load.Outcome(scheduled=scheduled, sent=load.now())
        account = self.joiners[self.seq - 1]
        path = f"/t/{self.public_id}/join"
        try:
            async with self.client.session.post(
                self.target.http + path, headers=account.headers(self.target, path)
            ) as r:
                body = await r.text()
                out.answered = load.now()
                if r.status != 200 or 'id="t-panel"' not in body:
                    out.error = f"HTTP {r.status}"
        except Exception as error:
            out.error = f"POST failed: {type(error).__name__}"
        if not out.error:
            try:
                out.arrived = await asyncio.wait_for(waits[0], load.PUSH_TIMEOUT)
                for fut in waits[1:]:
                    out.extra.append(await asyncio.wait_for(fut, load.PUSH_TIMEOUT))
            except (TimeoutError, ConnectionError) as error:
                out.error = f"standings missing: {type(error).__name__}"
        for fut in waits:
            if not fut.done():
                fut.cancel()
        return out

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.sockets), return_exceptions=True)


async def fanout_run(env: dict, args, tmp: Path) -> dict:
    count = args.t_pages
    rate = min(args.fanout_rate, 1 / args.min_interval)
    joins = math.ceil(rate * (args.duration + args.warmup + 2 * args.segments)) + 10
    db = tmp / "tournament-fanout.sqlite3"
    env = env | bench_env(f"sqlite:///{db}") | WITH_SCHEDULER
    run_module(env, "benchmarks.fixtures", "prepare")
    progress(
        f"Tournament fan-out: {count} pages of an event with {args.t_entrants} players, and "
        f"a bare group of {count} listeners"
    )
    row = await asyncio.to_thread(make_arena, env, args.t_entrants, joins)
    server = BenchServer(env, name="bench-tournament-fanout").start()
    try:
        await asyncio.sleep(1.0)
        result = {"pages": count, "entrants": args.t_entrants, "offered_per_s": rate}
        async with load.Client() as client:
            target = load.Target(server.port)
            pages = StandingsPages(client, target, row, count)
            await pages.open()
            bare = load.BarePair(client, "tournament", {1: target, 2: target})
            await bare.open(listeners=count - 1)
            await asyncio.sleep(1.0)
            result["frame_kib"] = len(pages.sockets[0].last_text) / 1024
            merged = await load.interleaved(
                {
                    "joins": lambda d, w: load.open_loop([pages], rate, d, w),
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
            await asyncio.gather(pages.close(), bare.close())
        result["server_tracebacks"] = server.tracebacks()
    finally:
        server.stop()
    ours, bare_ = result["joins"].get("last_listener"), result["baseline"].get("last_listener")
    if ours and bare_:
        progress(
            f"  to the last of {count} pages: ours p50 {ours['p50_ms']:.0f} / p99 "
            f"{ours['p99_ms']:.0f} ms, bare p50 {bare_['p50_ms']:.0f} / p99 "
            f"{bare_['p99_ms']:.0f} ms ({result['frame_kib']:.1f} KiB a frame); errors "
            f"{result['joins']['errors']} / {result['baseline']['errors']}"
        )
    return result


# ---- 3. Swiss pairing ------------------------------------------------------------------------


def swiss_run(env: dict, args) -> dict:
    players = args.t_swiss_players
    out = run_module(
        env,
        "benchmarks.swiss_pairing",
        "--players",
        str(players),
        "--runs",
        str(args.t_swiss_runs),
        "--json",
    )
    result = json.loads(out.strip().splitlines()[-1])
    progress(
        f"Swiss pairing of {players} players, round {result['round']}: "
        f"{result['wall_s']:.2f} s wall-clock, {result['cpu_s']:.2f} s CPU (median of "
        f"{result['runs']})"
    )
    return result


# ---- the phase ---------------------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--t-players", type=int, help="players of the arena (1000; tiny 20)")
    p.add_argument(
        "--t-think",
        type=float,
        help="a player's mean pause before each step of a game (a move, the resignation), "
        "seconds (20; tiny 0.2); each pause is drawn from 0.5 to 1.5 times it. At 1,000 "
        "players, 20 s makes about 8 games end a second, 5 requests each: what the server "
        "sustains on this machine (at 3 s its requests queued for 20 s)",
    )
    p.add_argument(
        "--t-moves",
        type=int,
        help="plies of a game on average (2): from 2 to twice that less 2, then a "
        "resignation (a game needs both players' first moves to count)",
    )
    p.add_argument("--t-warmup", type=float, help="seconds after the start not measured (60)")
    p.add_argument("--t-duration", type=float, help="measured seconds of the arena (120; tiny 8)")
    p.add_argument(
        "--t-tail",
        type=float,
        help="seconds the last measured games' players are given to be paired again (10)",
    )
    p.add_argument("--t-pages", type=int, help="open pages of the fan-out's event (1000; tiny 20)")
    p.add_argument("--t-entrants", type=int, help="players of the fan-out's event (100; tiny 5)")
    p.add_argument("--t-swiss-players", type=int, help="players of the Swiss pairing (1000)")
    p.add_argument("--t-swiss-runs", type=int, help="Swiss pairings timed (5; tiny 1)")
    p.add_argument(
        "--t-processes",
        type=int,
        default=1,
        help="daphne processes of the repair (1: SQLite and the in-process layer; more: "
        "PostgreSQL and Redis, the scale-out configuration, each player on one of them)",
    )
    p.add_argument(
        "--t-profile",
        action="store_true",
        help="record the repair's server with py-spy while measured "
        "(raw/profile-tournament-repair.txt; python -m benchmarks.profile reads it)",
    )
    p.add_argument("--skip-repair", action="store_true")
    p.add_argument("--skip-t-fanout", action="store_true")
    p.add_argument("--skip-swiss", action="store_true")


def defaults(args) -> None:
    tiny = args.tiny
    for key, value in {
        "t_players": 20 if tiny else 1000,
        "t_think": 0.2 if tiny else 20.0,
        "t_moves": 2,
        "t_warmup": 3.0 if tiny else 60.0,
        "t_duration": 8.0 if tiny else 120.0,
        "t_tail": 3.0 if tiny else 10.0,
        "t_pages": 20 if tiny else 1000,
        "t_entrants": 5 if tiny else 100,
        "t_swiss_players": 200 if tiny else 1000,
        "t_swiss_runs": 1 if tiny else 5,
    }.items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)


async def tournaments_run(env: dict, args, tmp: Path) -> dict:
    """The three parts (``env``: the benchmark's server environment; each part makes its
    own database in ``tmp``)."""
    out: dict = {}
    if not args.skip_repair:
        out["repair"] = await repair_run(env, args, tmp)
    if not args.skip_t_fanout:
        out["fanout"] = await fanout_run(env, args, tmp)
    if not args.skip_swiss:
        out["swiss"] = await asyncio.to_thread(swiss_run, env, args)
    out["server_tracebacks"] = [
        *out.get("repair", {}).get("server_tracebacks", []),
        *out.get("fanout", {}).get("server_tracebacks", []),
    ]
    return out


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--duration", type=float, help="measured seconds of the fan-out (40; tiny 3)")
    p.add_argument("--warmup", type=float, help="the fan-out's warm-up, seconds (3; tiny 1)")
    p.add_argument("--segments", type=int, help="the fan-out's turns (4; tiny 1)")
    p.add_argument("--fanout-rate", type=float, default=2.0)
    p.add_argument("--min-interval", type=float, default=0.25)
    p.add_argument("--json", help="write the results here")
    p.add_argument(
        "--readme",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write the figures into benchmarks/README.md's tournaments block (default: on "
        "at the full size)",
    )
    add_arguments(p)
    args = p.parse_args(argv)
    for key, full, tiny in (("duration", 40.0, 3.0), ("warmup", 3.0, 1.0), ("segments", 4, 1)):
        if getattr(args, key) is None:
            setattr(args, key, tiny if args.tiny else full)
    defaults(args)
    return args


def main(argv: list[str] | None = None) -> int:
    from benchmarks import report
    from benchmarks.run import machine, raise_fd_limit

    args = parse_args(sys.argv[1:] if argv is None else argv)
    raise_fd_limit()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bitsite-tournaments-") as tmpdir:
        tmp = Path(tmpdir)
        env = bench_env(f"sqlite:///{tmp / 'bench.sqlite3'}")
        phase = asyncio.run(tournaments_run(env, args, tmp))
    results = {
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "tiny": args.tiny,
        "machine": machine(),
        "seconds": time.monotonic() - started,
        "tournaments": phase,
    }
    results["targets"] = report.targets(results)
    print()
    print(report.tournaments_text(results), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    readme = Path(__file__).with_name("README.md")
    # The README's block holds the one-process run that make bench makes.
    wanted = args.readme if args.readme is not None else not args.tiny and args.t_processes == 1
    if wanted and report.update_readme_tournaments(results, readme):
        progress("Updated the tournaments' figures in benchmarks/README.md")
    problems = report.tournaments_sanity(phase)
    if problems:
        print("\nNot sane:", *problems, sep="\n  ", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
