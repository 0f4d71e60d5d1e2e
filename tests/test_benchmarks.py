"""The benchmark's own checks (the tiny run in CI is its real guard: make bench-ci).

The bare baseline is never part of the site (only the benchmark's own server mounts it,
and nothing in bitsite/ imports the benchmark), and the tiny run's sanity check must
catch a run that lost pushes or measured nothing.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.urls import Resolver404, resolve

from benchmarks import load, report
from bitsite.routing import routes


def test_the_bare_baseline_is_never_part_of_the_site():
    assert settings.ROOT_URLCONF == "bitsite.urls"
    for path in ("/bench/get", "/bench/insert/k"):
        with pytest.raises(Resolver404):
            resolve(path)
    assert not [p for p in routes() if "bench" in str(p.pattern)]
    # (No served module imports the benchmark: tests/test_layout.py, over every app.)


def test_the_benchmarks_server_mounts_the_baseline(tmp_path):
    """The benchmark's settings and application add the bare routes to the site's."""
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'benchmarks.settings'; "
        "import django; django.setup(); from django.urls import resolve; "
        "from benchmarks.asgi import application; "
        "print(resolve('/bench/get').url_name, resolve('/games/bit-flip/').url_name)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "benchmarks.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["bench-get", "rules"]


def test_percentiles_interpolate_between_ranks():
    ordered = [1.0, 2.0, 3.0, 4.0]
    assert load.percentile(ordered, 50) == 2.5
    assert load.percentile(ordered, 100) == 4.0
    assert math.isnan(load.percentile([], 50))


def _moves(**changes) -> dict:
    result = load.moves_result(
        [load.Outcome(scheduled=0.0, sent=0.0, arrived=0.02, answered=0.01)] * 10, 1.0
    )
    result.update(changes)
    return result


def _run() -> dict:
    get = load.requests_result([(0.004, "")] * 50, 1.0, workers=2)
    echo = {"round_trips": 5, "round_trips_per_s": 5.0, "errors": 0}
    echo.update(p50_ms=0.5, p99_ms=0.9, max_ms=1.0)
    return {
        "moves": _moves(),
        "baseline": _moves(),
        "socket": _moves(),
        "bare_socket": _moves(),
        "moves_max": _moves(),
        "baseline_max": _moves(),
        "socket_max": _moves(),
        "bare_socket_max": _moves(),
        "get": get,
        "echo": echo,
        "memory_kib": {"end": {"VmHWM": 80_000}},
    }


def test_the_sanity_check_passes_a_sane_run_and_names_what_is_wrong():
    assert report.sanity({"load": {"2": _run()}}) == []

    lost = _run()
    lost["moves"] = _moves(moves=8, sent=10)
    assert any("pushes arrived" in p for p in report.sanity({"load": {"2": lost}}))

    failed = _run()
    failed["moves"] = _moves(errors=1, error_kinds=["HTTP 403"])
    assert any("HTTP 403" in p for p in report.sanity({"load": {"2": failed}}))

    assert report.sanity({"load": {}}) == ["no load run"]


def test_a_failed_phase_loses_no_other_phase_and_fails_the_run(capsys):
    from benchmarks import run

    results = {"load": {}}

    def crash():
        raise FileNotFoundError("/usr/sbin/nginx")

    run.phase(results, "hostile storms through nginx", crash, key="storms_nginx")
    run.phase(results, "N = 2", _run, into=results["load"], key="2")
    assert "storms_nginx" not in results
    assert results["load"]["2"]["moves"]["moves"] == _run()["moves"]["moves"]
    assert "FileNotFoundError" in results["failed"]["hostile storms through nginx"]
    assert [p[0] for p in results["load_average"]] == ["hostile storms through nginx", "N = 2"]
    assert "hostile storms through nginx: failed" in report.sanity(results)
    assert run.failed(results) == 1 and run.failed({"load": {}}) == 0

    shown = report.table(
        {"failed": results["failed"], "storms": {"skipped": "nginx is not installed"}}
    )
    assert "Phases not measured in this run" in shown
    assert "FAILED: FileNotFoundError: /usr/sbin/nginx" in shown
    assert "skipped: nginx is not installed" in shown


def test_the_lobby_benchmark_reads_rows_and_its_sanity_check_names_lost_rows():
    from benchmarks import lobby

    assert lobby.parse_row('<ul class="challenges" id="challenge-list"></ul>') == 0
    row = '<li id="c-x"><span class="challenge-by">by seq17</span></li>'
    assert lobby.parse_row(row) == 17
    assert lobby.parse_row('<li id="c-x" hx-swap-oob="delete"></li>') is None
    moves = _moves()
    fanout = {
        "pages": 3,
        "challenges": {**moves, "pushes": 20, "pushes_expected": 20},
        "baseline": {**moves, "pushes": 20, "pushes_expected": 20},
    }
    churn = {
        "n": 2,
        "churn_rate": 4.0,
        "quiet": _moves(),
        "churn": _moves(),
        "challenges": {"offered": 4, "done": 4, "errors": 0, "error_kinds": []},
        "watchers_open": 8,
    }
    config = {
        "skip_fanout": True,
        "skip_storm": True,
        "skip_storms": True,
        "skip_storms_nginx": True,
        "skip_flood": True,
        "skip_hooks": True,
        "skip_tournaments": True,
        "churn_pages": 2,
    }
    sane = {"load": {"2": _run()}, "config": config, "lobby_fanout": fanout, "lobby_churn": churn}
    assert report.sanity(sane) == []
    lost = {**sane, "lobby_fanout": {**fanout, "challenges": {**moves, "pushes": 19}}}
    assert any("rows reached the pages" in p for p in report.sanity(lost))
    failed = {**churn, "challenges": {**churn["challenges"], "errors": 1, "done": 3}}
    assert any(
        "challenges made and accepted" in p for p in report.sanity({**sane, "lobby_churn": failed})
    )
    assert report.sanity({"load": {"2": _run()}, "config": config}) == ["lobby: did not run"]
    assert report.targets(sane)["lobby_churn"]["met"]  # the same latency with and without
    split = {**churn, "split": True, "watchers_open": 4}
    both = {**sane, "lobby_churn_split": split}
    assert report.sanity(both) == []
    assert report.targets(both)["lobby_churn_split"]["met"]
    slower = {**split, "churn": _moves(p50_ms=_moves()["p50_ms"] * 1.5)}
    assert not report.targets({**sane, "lobby_churn_split": slower})["lobby_churn_split"]["met"]
    closed = {**sane, "lobby_churn_split": {**split, "watchers_open": 3}}
    assert any("two processes: a lobby or watch page" in p for p in report.sanity(closed))
    skipped = {**sane, "lobby_churn_split": {"skipped": "Redis does not answer"}}
    assert report.targets(skipped)["lobby_churn_split"]["met"] is None


def _hooks_config(hooks: str, **changes) -> dict:
    config = {
        "label": hooks,
        "hooks": hooks,
        "n": 2,
        "offered_per_s": 8.0,
        "moves": _moves(cpu_ms_per_move=20.0),
        "baseline": _moves(cpu_ms_per_move=10.0),
        "moves_max": _moves(),
        "baseline_max": _moves(),
        "server_tracebacks": [],
    }
    config.update(changes)
    return config


def test_the_hooks_run_is_reported_and_its_sanity_check_names_what_is_wrong():
    config = {
        "skip_fanout": True,
        "skip_storm": True,
        "skip_storms": True,
        "skip_storms_nginx": True,
        "skip_flood": True,
        "skip_lobby": True,
        "skip_tournaments": True,
    }
    hooks = {"n": 2, "configs": [_hooks_config("all"), _hooks_config("none")]}
    sane = {"load": {"2": _run()}, "config": config, "hooks": hooks}
    assert report.sanity(sane) == []
    rows = report.hooks_rows(hooks)
    assert [row[1] for row in rows] == ["`all`", "`none`"]
    assert rows[0][5] == "20.0 / 10.0"  # the server's CPU a move, ours / bare
    assert report.sanity({"load": {"2": _run()}, "config": config}) == ["hooks: did not run"]
    broken = {
        "n": 2,
        "configs": [
            _hooks_config("all", moves=_moves(cpu_ms_per_move=math.nan)),
            _hooks_config("none", server_tracebacks=["KeyError: 'x'"]),
        ],
    }
    problems = report.sanity({"load": {"2": _run()}, "config": config, "hooks": broken})
    assert problems == ["hooks all: no CPU figure", "hooks none: tracebacks [\"KeyError: 'x'\"]"]


def _storm_kind(**changes) -> dict:
    result = {
        "quiet": {"moves": _moves(), "connects": {"p99_ms": 30.0}},
        "storm": {"moves": _moves(), "connects": {"p99_ms": 60.0}},
        "sockets": {"opened": 8, "refused": 400, "busy": 92, "other": {}},
        "move_p99_ratio": 1.5,
        "connect_p99_ratio": 2.0,
        "cpu_s": 1.25,
    }
    result.update(changes)
    return result


def test_the_storms_and_the_flood_are_reported_and_checked():
    config = {
        "skip_fanout": True,
        "skip_storm": True,
        "skip_lobby": True,
        "skip_hooks": True,
        "skip_tournaments": True,
    }
    ghosts = {"waited_s": 60, "seat1_shown_online": False, "idle_cpu_before": 0.001}
    ghosts["idle_cpu_after"] = 0.002
    storms = {"sockets": 500, "hold_s": 3, "kinds": {"match-cookie": _storm_kind()}}
    storms.update(ghosts=ghosts, server_tracebacks=[])
    flood_kind = {"quiet": _moves(), "flood": _moves(), "p50_ratio": 1.0, "p99_ratio": 1.2}
    flood_kind.update(answers={"200": 10, "429": 30}, requests=40)
    flood = {"rate": 10.0, "kinds": {"cold-analysis": flood_kind}, "server_tracebacks": []}
    sane = {"load": {"2": _run()}, "config": config, "storms": storms, "flood": flood}
    sane["storms_nginx"] = {**storms, "via": "nginx"}
    assert report.sanity(sane) == []
    targets = report.targets(sane)
    assert targets["storms"]["met"] and targets["storms_nginx"]["met"]  # 1.5x, 2.0x, 1.25 s
    assert targets["flood"] == {
        "p50_ratio": 1.0,
        "kinds": 1,
        "floor_p50_ratio": None,
        "met": True,
        "target": report.TARGETS["flood"],
    }
    # The floors (a flood of bare GETs or 404s) are shown beside the target, not judged by it.
    floored = {**flood, "kinds": {**flood["kinds"], "bare-get": {**flood_kind, "p50_ratio": 3.0}}}
    target = report.targets({**sane, "flood": floored})["flood"]
    assert target["met"] and target["floor_p50_ratio"] == 3.0
    slow = {**flood, "kinds": {"long-line": {**flood_kind, "p50_ratio": 2.5}}}
    assert not report.targets({**sane, "flood": slow})["flood"]["met"]
    slow = {**storms, "kinds": {"watch-no-cookie": _storm_kind(move_p99_ratio=2.5)}}
    assert not report.targets({**sane, "storms": slow})["storms"]["met"]
    costly = {**storms, "kinds": {"lobby-cookie": _storm_kind(cpu_s=2.0)}}
    assert not report.targets({**sane, "storms": costly})["storms"]["met"]
    assert not report.targets({**sane, "storms": haunted_storms(storms)})["storms"]["met"]
    assert "through deploy/nginx.conf" in report.storms_via(sane["storms_nginx"])
    assert report.storms_rows(storms)[0][-1] == "8 / 400 / 92 / 0"
    assert report.flood_rows(flood)[0][-1] == "10 x 200, 30 x 429"
    assert "read as gone" in report.storms_ghosts(storms)
    haunted = {**storms, "ghosts": {**ghosts, "seat1_shown_online": True}}
    assert any("a ghost" in p for p in report.sanity({**sane, "storms": haunted}))
    assert report.sanity({"load": {"2": _run()}, "config": config}) == [
        "storms: did not run",
        "storms_nginx: did not run",
        "flood: did not run",
    ]


def haunted_storms(storms: dict) -> dict:
    return {**storms, "ghosts": {**storms["ghosts"], "seat1_shown_online": True}}


def _tournaments() -> dict:
    repair_side = {**load.summarize([0.4, 0.5, 1.2]), "still_waiting": 0}
    outcome = load.Outcome(scheduled=0.0, sent=0.0, arrived=0.02, answered=0.01, extra=[0.03, 0.04])
    moves = load.moves_result([outcome] * 10, 1.0)
    return {
        "repair": {
            "players": 20,
            "think_s": 0.2,
            "measured_s": 8.0,
            "games_per_s": 5.0,
            "server_cpu_share": 0.5,
            "errors": 0,
            "error_kinds": [],
            "sockets_closed": 0,
            "frames_per_page_per_s": 2.0,
            "frame_kib": 4.0,
            "server": repair_side,
            "client": repair_side,
            "panel_delivery": load.summarize([0.1, 0.2, 0.3]),
        },
        "fanout": {
            "pages": 3,
            "entrants": 5,
            "offered_per_s": 2.0,
            "frame_kib": 2.0,
            "joins": {**moves, "pushes": 20, "pushes_expected": 20},
            "baseline": {**moves, "pushes": 20, "pushes_expected": 20},
        },
        "swiss": {"players": 200, "round": 5, "runs": 1, "wall_s": 0.1, "cpu_s": 0.1, "pairs": 100},
        "server_tracebacks": [],
    }


def test_the_tournaments_benchmark_reads_its_frames_and_is_reported_and_checked():
    from benchmarks import tournaments

    frame = '<div id="t-live" hx-swap-oob="true" data-live-part data-version="12">'
    assert tournaments.parse_version(frame) == 12
    assert tournaments.parse_version('<div id="t-panel" class="panel t-panel">') is None
    panel = '<a class="btn" id="your-game" href="/m/abcdefgh12345678/">Go to your game</a>'
    assert tournaments.GAME_RE.search(panel).group(1) == "abcdefgh12345678"

    phase = _tournaments()
    assert report.tournaments_sanity(phase) == []
    targets = report.tournaments_targets(phase)
    assert targets["tournament_repair"]["met"] and targets["swiss_pairing"]["met"]
    assert targets["tournament_fanout"]["p99_ratio"] == 1.0
    results = {"load": {"2": _run()}, "config": {}, "tournaments": phase}
    results["targets"] = report.targets(results)
    text = report.tournaments_text(results)
    assert "Arena repair: 20 players" in text
    assert "to its panel on the page, p50 / p99: 200 / 298 ms" in text
    assert "Standings fan-out" in report.readme_tournaments(
        {**results, "machine": {}, "started": "now"}
    )

    lost = {
        **phase,
        "fanout": {**phase["fanout"], "joins": {**phase["fanout"]["joins"], "pushes": 19}},
    }
    assert any("frames reached the pages" in p for p in report.tournaments_sanity(lost))
    broken = {**phase, "repair": {**phase["repair"], "errors": 2, "error_kinds": ["HTTP 409"]}}
    assert any("HTTP 409" in p for p in report.tournaments_sanity(broken))
    slow = {
        **phase,
        "repair": {**phase["repair"], "server": {**load.summarize([3.0]), "still_waiting": 1}},
    }
    assert not report.tournaments_targets(slow)["tournament_repair"]["met"]
    config = {"skip_fanout": True, "skip_storm": True, "skip_lobby": True, "skip_hooks": True}
    config |= {"skip_storms": True, "skip_storms_nginx": True, "skip_flood": True}
    assert report.sanity({"load": {"2": _run()}, "config": config}) == ["tournaments: did not run"]


@pytest.mark.services
def test_the_arena_repair_runs_on_two_processes_over_postgresql_and_redis(tmp_path):
    """``--t-processes 2``: the scale-out configuration (a fresh PostgreSQL database,
    Redis), the players spread over two daphne processes, the figures read from
    PostgreSQL after the run."""
    import json

    from benchmarks import tournaments

    out = tmp_path / "repair.json"
    argv = ["--tiny", "--skip-t-fanout", "--skip-swiss", "--t-processes", "2"]
    code = tournaments.main([*argv, "--no-readme", "--json", str(out)])
    repair = json.loads(out.read_text())["tournaments"]["repair"]
    assert code == 0, report.tournaments_sanity({"repair": repair})
    assert repair["processes"] == 2 and repair["database"].startswith("PostgreSQL")
    assert repair["games"] > 0 and repair["server"]["count"] > 0
    assert repair["errors"] == 0 and repair["panels_missed"] == 0
    assert "2 daphne processes on PostgreSQL and Redis" in report.tournaments_text(
        {"tournaments": {"repair": repair}}
    )


def _watched(arrivals: list[float]) -> dict:
    outcome = load.Outcome(scheduled=0.0, sent=0.0, arrived=0.01, answered=0.01, extra=arrivals)
    result = load.moves_result([outcome] * 10, 1.0)
    result["pushes_expected"] = 10 * len(arrivals)
    return result


def test_the_api_streams_row_is_reported_and_checked():
    streams = {
        "count": 3,
        "offered_per_s": 2.0,
        "streams": _watched([0.01, 0.02, 0.03]),
        "sockets": _watched([0.01, 0.01, 0.02]),
    }
    target = report.targets({"api_streams": streams})["api_streams"]
    assert target["p50_ms"] == pytest.approx(30) and target["socket_p50_ms"] == pytest.approx(20)
    assert target["p50_ratio"] == pytest.approx(1.5) and target["met"] is True
    assert "3" in report._target_figure("api_streams", target)
    assert not [p for p in report.sanity({"api_streams": streams}) if "API" in p]
    lost = {**streams, "streams": {**streams["streams"], "pushes": 20}}
    assert any("lines or pushes arrived" in p for p in report.sanity({"api_streams": lost}))
    config = {"config": {"skip_api_streams": False}}
    assert "API streams: did not run" in report.sanity(config)


def _pushed(opponent: float, listeners: int) -> dict:
    """Ten moves whose opponent's push took ``opponent`` s, each line reaching ``listeners``."""
    extra = [opponent + 0.01] * listeners
    outcome = load.Outcome(scheduled=0.0, sent=0.0, arrived=opponent, answered=0.005, extra=extra)
    result = load.moves_result([outcome] * 10, 1.0)
    result["pushes_expected"] = 10 * listeners
    return result


def test_the_watched_row_compares_the_players_push_with_a_quiet_match():
    watched = {
        "count": 4,
        "offered_per_s": 2.0,
        "watched": _pushed(0.03, 4),
        "quiet": _pushed(0.02, 0),
    }
    target = report.targets({"watched": watched})["watched"]
    assert target["p50_ms"] == pytest.approx(30) and target["quiet_p50_ms"] == pytest.approx(20)
    assert target["ratio"] == pytest.approx(1.5) and target["met"] is True
    assert "under 4 streams" in report._target_figure("watched", target)
    slow = {**watched, "watched": _pushed(0.031, 4)}
    assert report.targets({"watched": slow})["watched"]["met"] is False
    assert not [p for p in report.sanity({"watched": watched}) if "watched" in p]
    lost = {**watched, "watched": {**watched["watched"], "pushes": 39}}
    assert any("39 of 40 lines arrived" in p for p in report.sanity({"watched": lost}))
    assert "watched: did not run" in report.sanity({"config": {"skip_watched": False}})


# ---- the socket path: moves sent as frames on the mover's match socket ---------------------


def _table_run() -> dict:
    """A run with what the printed tables read besides."""
    run = {**_run(), "sockets": 12}
    run["memory_kib"] = {"start": {"VmRSS": 70_000}, "end": {"VmHWM": 80_000}}
    for key in ("moves", "baseline", "socket", "bare_socket"):
        run[key] = {**run[key], "offered_per_s": 8.0}
    return run


def test_the_socket_rows_are_reported_judged_and_checked():
    run = _table_run()
    sane = {"load": {"2": run}, "config": {"skip_lobby": True}}
    assert not [p for p in report.sanity(sane) if "socket" in p]
    assert run["socket"]["answered"] == run["socket"]["moves"] == 10

    # The targets: socket move against the bare ws move at N = 100 (1.2x, 1.5x, 0.7x).
    slow = {**run, "socket": _moves(p50_ms=run["bare_socket"]["p50_ms"] * 1.3)}
    bench = {"load": {"100": slow, "500": _table_run()}}
    targets = report.targets(bench)
    assert not targets["socket_latency"]["met"] and targets["socket_latency"]["n"] == 100
    assert targets["socket_latency"]["p50_ratio"] == pytest.approx(1.3)
    assert targets["socket_throughput"]["met"] and targets["socket_throughput"]["ratio"] == 1.0
    assert targets["socket_latency_500"]["met"] and targets["socket_throughput_500"]["n"] == 500
    assert targets["latency"]["met"]  # the POST path's targets stay, judged on their own rows
    idle = {**run, "n": 100, "idle": 2000, "idle_still_open": 2000, "kib_per_idle_socket": 40.0}
    assert report.targets({"idle": idle})["socket_idle"]["met"]
    text = report.table({**bench, "targets": targets})
    assert "ours, socket" in text and "bare ws move" in text and "socket/bare ws" in text
    figures = report.readme_figures(
        {
            **bench,
            "targets": targets,
            "machine": {"python": "3.11"},
            "started": "now",
            "seconds": 60,
        }
    )
    assert "socket move p50 / p95 / p99 / max" in figures
    # A run from before the socket path (an old raw JSON given to --report) still reports.
    old = {k: v for k, v in run.items() if k not in report.SOCKET_ROWS}
    assert "socket_latency" not in report.targets({"load": {"100": old}})
    assert "ours, socket" not in report.table({"load": {"100": old}})

    # What the sanity check names: a move pushed but never answered, a refused frame, a
    # socket row that did not run.
    unanswered = {**run, "socket": _moves(answered=9)}
    assert any("9 answered" in p for p in report.sanity({"load": {"2": unanswered}}))
    refused = {**run, "socket_max": _moves(errors=1, refused=1, error_kinds=["move refused: x"])}
    problems = report.sanity({"load": {"2": refused}})
    assert any("1 move frames refused" in p for p in problems)
    lost = {**run, "bare_socket": _moves(moves=8, sent=10)}
    assert any(
        "bare_socket" in p and "pushes arrived" in p for p in report.sanity({"load": {"2": lost}})
    )
    missing = {**old, "memory_kib": run["memory_kib"]}
    assert "N=2: the socket path was not measured" in report.sanity(
        {"load": {"2": missing}, "config": {"skip_lobby": True}}
    )


def test_the_bare_ws_move_answers_with_the_sites_marker():
    from benchmarks import baseline
    from games.consumers import ANSWER

    assert load.ANSWER == baseline.ANSWER == ANSWER
    assert [str(p.pattern) for p in baseline.websocket_urlpatterns][
        -1
    ] == "ws/bench/move/<str:key>/"


def test_a_refused_move_frame_and_a_closed_socket_are_failures_not_moves(live_server_url):
    """Against a real server: a move frame is timed to the opponent's push and answered on
    the mover's socket; a frame for a ply already played is refused (its answer shows the
    current board, at the very ply the mover expected, with the refusal's words) and counts
    as an error; so do moves whose opponent's socket, or own socket, is closed."""
    import asyncio
    import random

    from benchmarks.fixtures import make_matches

    row = next(make_matches(1))
    port = int(live_server_url.rsplit(":", 1)[1])

    async def scenario():
        target = load.Target(port)
        async with load.Client() as client:
            pair = load.MatchPair(client, row, {1: target, 2: target}, random.Random(3))
            await pair.open()
            moves = [await pair.move(load.now(), via=load.Via.SOCKET)]
            moves.append(await pair.move(load.now()))  # POSTed: the socket's frames stay apart
            before = pair.pos
            moves.append(await pair.move(load.now(), via=load.Via.SOCKET))
            after = pair.pos
            pair.pos = before  # the same frame again: a ply already played
            stale = await pair.move(load.now(), via=load.Via.SOCKET)
            pair.pos = after
            moves.append(await pair.move(load.now(), via=load.Via.SOCKET))  # still sane after
            mover = pair._mover()
            await pair.sockets[3 - mover].close()
            opponent_gone = await pair.move(load.now(), via=load.Via.SOCKET)
            await pair.sockets[mover].close()
            mover_gone = await pair.move(load.now(), via=load.Via.SOCKET)
            await pair.close()
            return moves, stale, opponent_gone, mover_gone

    moves, stale, opponent_gone, mover_gone = asyncio.run(scenario())
    for out in moves:
        assert not out.error and out.arrived >= out.sent and out.answered >= out.sent
    assert stale.error.startswith(load.REFUSED) and stale.arrived is None
    assert opponent_gone.error.startswith("push missing") and opponent_gone.arrived is None
    assert mover_gone.error and mover_gone.arrived is None
    result = load.moves_result([*moves, stale, opponent_gone, mover_gone], 1.0)
    assert (result["moves"], result["answered"], result["errors"], result["refused"]) == (
        4,
        4,
        3,
        1,
    )
    problems = report.sanity({"load": {"2": {**_run(), "socket": result}}})
    assert any("N=2 socket: 3 errors" in p for p in problems)
    assert any("1 move frames refused" in p for p in problems)


def test_the_lobby_churn_names_the_reason_a_challenge_was_not_accepted(live_server_url):
    """A refused accept answers 303 to the home page; the churn's error names the message
    that page shows (``accept refused: ...``), not only the status."""
    import asyncio

    from benchmarks import lobby

    port = int(live_server_url.rsplit(":", 1)[1])

    async def own_challenge() -> tuple[str, str]:
        async with load.Client() as client:
            target = load.Target(port)
            churn = lobby.Churn(client, target, rate=1)
            creator = churn.idle[0]
            status, location = await creator.post(
                client, target, f"/games/{lobby.GAME}/new/", lobby.form("mine")
            )
            assert status == 303, status
            public_id = lobby.MATCH_PATH_RE.match(location).group(1)
            status, location = await creator.post(client, target, f"/lobby/{public_id}/accept")
            assert status == 303 and location == "/", (status, location)
            return await creator.notice(client, target, location), location

    why, _ = asyncio.run(own_challenge())
    assert why and not why.startswith("HTTP"), why
    assert "own" in why.lower(), why


def test_the_lobby_churn_never_gives_a_browser_two_cycles_at_once(monkeypatch):
    """A browser has one open challenge of a game at a time (a new one replaces it), so a
    cycle that outlasts the churn's interval on a busy machine must not lend its creator
    to the next cycle (CI's tiny run once lost a challenge so: "no longer open")."""
    import asyncio

    from benchmarks import lobby

    churn = lobby.Churn(client=None, target=None, rate=4.0)
    busy: set[int] = set()
    clashes: list[int] = []
    seen: set[int] = set()

    async def slow_cycle(n, creator, taker):
        for browser in (creator, taker):
            if id(browser) in busy:
                clashes.append(n)
            busy.add(id(browser))
            seen.add(id(browser))
        await asyncio.sleep(0.05 * (n % 3))  # some cycles outlast others
        busy.difference_update({id(creator), id(taker)})
        return ""

    monkeypatch.setattr(churn, "_cycle", slow_cycle)

    async def main():
        return await asyncio.gather(*(churn.cycle(n) for n in range(12)))

    assert asyncio.run(main()) == [""] * 12
    assert clashes == []
    assert len(seen) == 24  # twelve cycles at once: the pool of 8 grew by 16 newcomers
    assert len(churn.idle) == 24  # and every browser came back to it


def test_the_scale_out_layers_are_compared_and_checked():
    run = {"count": 4, "offered_per_s": 2.0, "watched": _pushed(0.03, 4), "quiet": _pushed(0.02, 0)}
    layers = {"database": "PostgreSQL", "redis": "redis://", "list": run, "pubsub": run}
    line = report.layers_line(layers)
    assert "the list layer" in line and "the pub/sub layer" in line and "last of 4" in line
    assert not [p for p in report.sanity({"layers": layers}) if "layer" in p]
    lost = {**layers, "pubsub": {**run, "watched": {**run["watched"], "pushes": 39}}}
    assert any("pubsub layer, watched: 39 of 40" in p for p in report.sanity({"layers": lost}))
    missing = {k: v for k, v in layers.items() if k != "list"}
    assert "scale-out layers: list did not run" in report.sanity({"layers": missing})
    assert "scale-out layers: did not run" in report.sanity({"config": {"skip_layers": False}})
    assert "not compared" in report.layers_line({"skipped": "no Redis"})


@pytest.mark.django_db
def test_the_push_sizes_are_measured_reported_and_judged():
    """benchmarks/push_sizes.py draws each kind's boards through the write path and
    compares the whole board with what changed; the report judges the largest push."""
    from benchmarks import push_sizes

    figures = {"plies": 4, "games": [push_sizes.measure("bit-flip", 4)]}
    kinds = figures["games"][0]["kinds"]
    assert set(kinds) == {"spectator", "seat1", "seat2"}
    for row in kinds.values():
        assert len(row["changed"]) == len(row["whole"]) == len(row["changed_wire"]) >= 3
        assert all(c < w for c, w in zip(row["changed"], row["whole"], strict=True))
        wire_and_text = zip(row["changed_wire"], row["changed"], strict=True)
        assert all(0 < wire < text for wire, text in wire_and_text)
    target = report.targets({"push_sizes": figures})["push_sizes"]
    largest = max(max(row["changed"]) for row in kinds.values())
    assert target["largest"] == largest and target["met"] is (largest <= 1024)
    assert "largest" in report._target_figure("push_sizes", target)
    titles = [title for title, _ in report.sections({"push_sizes": figures}, markdown=True)]
    assert any(title.startswith("A move's push in bytes") for title in titles)
