"""The learn app's expensive answers (learn/answers.py, learn/pool.py): limited by their
cost, cached by their canonical form, computed in a bounded pool, never a 500."""

from __future__ import annotations

import itertools
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.core.cache import caches
from django.test import Client, RequestFactory, override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import limits
from games.rules import get_game
from learn import analysis_board, answers, puzzles, solutions
from learn.pool import Busy, Pool
from learn.views.puzzles import record_of
from tests.factories import client_with_token, until_sync
from tests.servers import ROOT

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
BIG = "/games/bitwise-battle/analysis/?target={k}&max_length=64"  # a position of its own


def an_address() -> str:
    """An address of this test's own: the counts live in a cache shared by the tests."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def rates(**changed):
    from django.conf import settings as django_settings

    return {**django_settings.RATE_LIMITS, **changed}


_targets = itertools.count(991, -1)


def a_big_target() -> int:
    """A divisor for BIG that no other test asks for (its solve is cold in every worker:
    the memos are per set of options)."""
    return next(_targets)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """No answer kept from another test, and refusals sent without their hold."""
    caches[answers.CACHE].clear()
    monkeypatch.setattr(answers, "HOLD_SECONDS", 0)


class Spy:
    """What the pool is asked: ``submits``, the askers, and ``computed``, the tasks it ran
    (an asker that joins a pending task adds none). ``hold``: the tasks wait until
    ``release`` is set (a thread pool only: the task is a function of this process)."""

    def __init__(self, monkeypatch, hold: bool = False):
        self.submits, self.futures, self.started, self.keys = 0, [], [], []
        self.release = threading.Event()
        submit = Pool.submit

        def counted_submit(pool, key, *args, **kwargs):
            self.submits += 1
            future = submit(pool, key, *args, **kwargs)
            if all(future is not seen for seen in self.futures):
                self.futures.append(future)
                self.keys.append(key)
            return future

        monkeypatch.setattr(Pool, "submit", counted_submit)
        if hold:
            work = solutions.work

            def held_work(*args):
                self.started.append(args)
                self.release.wait(30)
                return work(*args)

            monkeypatch.setattr(solutions, "work", held_work)

    @property
    def computed(self) -> int:
        return len(self.futures)

    def solved(self, kind: str) -> int:
        """The tasks of one kind it ran: "position", "theory", or "line" (the analysis
        board's strip, solved once per line)."""
        return sum(1 for key in self.keys if key.startswith(f"{kind}:"))


def kept(game, **options):
    """The answer kept in the cache for the start of ``game`` with ``options``, if any."""
    canonical = solutions.position_key(game, game.start(**options))
    return caches[answers.CACHE].get(answers.cache_key(canonical))


THREADS = override_settings(ANALYSIS_POOL="thread", ANALYSIS_WORKERS=1, ANALYSIS_QUEUE=0)


# ---- the limits --------------------------------------------------------------------------


def test_past_the_analysis_limit_answers_429_with_retry_after_and_computes_nothing(monkeypatch):
    address = an_address()
    client = Client(REMOTE_ADDR=address)
    spy = Spy(monkeypatch)
    with override_settings(RATE_LIMITS=rates(analysis=("100/m", "3/m"))):
        for width in (3, 4, 5):
            assert client.get(f"/games/bit-flip/analysis/?width={width}").status_code == 200
        asked = spy.submits
        for extra in ({}, HTMX):
            response = client.get("/games/bit-flip/analysis/?width=6", **extra)
            assert response.status_code == 429
            assert 1 <= int(response["Retry-After"]) <= 60
            content = response.content.decode()
            assert "a lot of analysis in a short time" in content
            assert "Nothing was changed." in content
            # htmx: in place of the part it swaps; otherwise a page of its own
            assert content.lstrip().startswith('<section class="panel" id="analysis"') == bool(
                extra
            )
        # Decided before anything was computed: the pool was never asked, nothing kept.
        assert spy.submits == asked
        assert kept(get_game("bit-flip"), width=6) is None
        # Another address is not affected.
        other = Client(REMOTE_ADDR=an_address()).get("/games/bit-flip/analysis/?width=6")
        assert other.status_code == 200


def test_a_refusal_is_held_before_it_is_sent(monkeypatch):
    monkeypatch.setattr(answers, "HOLD_SECONDS", 0.5)
    client = Client(REMOTE_ADDR=an_address())
    with override_settings(RATE_LIMITS=rates(analysis=("100/m", "1/m"))):
        assert client.get("/games/bit-flip/theory/").status_code == 200
        began = time.monotonic()
        assert client.get("/games/bit-flip/theory/").status_code == 429
        assert time.monotonic() - began >= 0.5


def test_cache_hits_are_free_and_cold_solves_count_against_the_solve_limit(monkeypatch):
    # The subject is which answers count, not what drawing one costs in CPU (on a busy
    # machine, with the private hooks off, a cached big page once took over 50 ms to draw,
    # and counted): an answer that solved costs more than the threshold, one that did not,
    # nothing.
    monkeypatch.setattr(
        answers.Meter,
        "seconds",
        property(lambda meter: answers.COSTLY_SECONDS * 10 if meter.solving else 0.0),
    )
    client = Client(REMOTE_ADDR=an_address())
    spy = Spy(monkeypatch)
    hot, cold1, cold2 = (BIG.format(k=a_big_target()) for _ in range(3))
    with override_settings(RATE_LIMITS=rates(solve=("100/m", "2/m"))):
        assert client.get(hot).status_code == 200  # cold: counts 1
        for _ in range(5):  # cached: free
            assert client.get(hot).status_code == 200
        assert client.get(cold1).status_code == 200  # counts 2
        response = client.get(cold2)  # would be a third
        assert response.status_code == 429
        assert int(response["Retry-After"]) >= 1
        # Hits are still answered; the refused position was never computed.
        assert client.get(hot, **HTMX).status_code == 200
        assert spy.solved("position") == 2
        assert spy.solved("line") == 2  # each page's strip, once: the refused one never


def test_a_long_line_needs_the_solve_limits_leave_even_when_cached(monkeypatch):
    # What an answer's CPU costs is not this test's subject (a busy machine takes longer to
    # draw even a short line): only the solve limit's count, which the test sets.
    monkeypatch.setattr(answers, "COSTLY_SECONDS", 3600.0)
    game = get_game("last-bit-standing")
    pos, moves = game.start(), []
    while len(moves) <= answers.LONG_LINE:
        moves.append(game.safe_moves(pos)[0])
        pos = game.play(pos, moves[-1])
    long = analysis_board.url(analysis_board.build(game, {}, moves))
    short = analysis_board.url(analysis_board.build(game, {}, moves[:10]))
    address = an_address()
    client = Client(REMOTE_ADDR=address)
    with override_settings(RATE_LIMITS=rates(solve=("100/m", "1/m"))):
        assert client.get(long).status_code == 200
        assert client.get(short).status_code == 200
        limits.charge(RequestFactory().get("/", REMOTE_ADDR=address), "solve")  # at the limit
        assert client.get(long).status_code == 429  # cached, but as costly as a solve
        assert client.get(short).status_code == 200  # cached and short: free


def test_a_refused_puzzle_answer_changes_nothing():
    slug = "bit-flip"
    puzzle = puzzles.puzzle(slug, 1)
    game = get_game(slug)
    move = puzzles.accepted_moves(game, puzzle.position())[0]
    client = client_with_token("a-puzzle-solver", REMOTE_ADDR=an_address())
    url = f"/games/{slug}/puzzles/1/"
    with override_settings(RATE_LIMITS=rates(analysis=("2/m", "100/m"))):
        assert client.get(url).status_code == 200
        assert client.get(url).status_code == 200
        before = record_of(client.session, slug)
        response = client.post(url, {"move": move, "at": 0}, **HTMX)
        assert response.status_code == 429
        assert re.search(r'<section class="panel" id="puzzle"', response.content.decode())
        assert record_of(client.session, slug) == before


# ---- the cache -------------------------------------------------------------------------


def test_equivalent_requests_share_one_solve(monkeypatch):
    spy = Spy(monkeypatch)
    client = Client()
    same = [
        "/games/bit-flip/analysis/?width=7&moves=1.3",
        "/games/bit-flip/analysis/?moves=3.1&width=07",  # another order, another line
        "/games/bit-flip/analysis/?width=+7&moves=1.3.5&ply=2",  # a longer line, back 1
    ]
    pages = [client.get(url) for url in same]
    assert [p.status_code for p in pages] == [200, 200, 200]
    assert spy.solved("position") == 1
    assert spy.solved("line") == 3  # the strips of three different lines
    verdicts = [re.findall(r'class="verdict[^"]*">([^<]*)<', p.content.decode()) for p in pages]
    assert verdicts[0] == verdicts[1] == verdicts[2] != []
    # The theory page by its cleaned options: defaults written or left out are one answer.
    for query in ("", "?width=8", "?width=%208", "?width=008"):
        assert client.get(f"/games/bit-flip/theory/{query}").status_code == 200
    assert spy.solved("theory") == 1


# ---- the pool --------------------------------------------------------------------------


def test_a_full_pool_answers_busy_at_once(monkeypatch):
    spy = Spy(monkeypatch, hold=True)
    first = {}
    with THREADS:
        worker = threading.Thread(
            target=lambda: first.update(r=Client().get("/games/bit-flip/analysis/?width=9"))
        )
        worker.start()
        until_sync(lambda: len(spy.started) == 1)  # the one worker is busy, nothing waits
        for extra in ({}, HTMX):
            began = time.monotonic()
            response = Client(REMOTE_ADDR=an_address()).get(
                "/games/bit-flip/analysis/?width=10", **extra
            )
            assert time.monotonic() - began < 5  # at once, not after the first solve
            assert response.status_code == 503
            assert response["Retry-After"] == str(answers.BUSY_RETRY)
            assert "The solver is busy" in response.content.decode()
        spy.release.set()
        worker.join(30)
        assert first["r"].status_code == 200
        assert Client().get("/games/bit-flip/analysis/?width=10").status_code == 200


def test_identical_concurrent_requests_compute_once(monkeypatch):
    spy = Spy(monkeypatch, hold=True)
    answered = []
    with THREADS:
        workers = [
            threading.Thread(
                target=lambda: answered.append(Client().get("/games/bit-flip/theory/?width=20"))
            )
            for _ in range(3)
        ]
        for worker in workers:
            worker.start()
        until_sync(lambda: spy.submits == 3)  # all three asked while the first computes
        spy.release.set()
        for worker in workers:
            worker.join(30)
    assert [r.status_code for r in answered] == [200, 200, 200]  # none was "busy"
    assert spy.computed == 1
    assert len({r.content.count(b"<td") for r in answered}) == 1


def test_the_process_pool_is_bounded_shares_pending_tasks_and_survives_a_dead_worker():
    pool = Pool("process", workers=1, queue=0)
    try:
        slow = pool.submit("slow", time.sleep, 1.0)
        assert pool.submit("slow", time.sleep, 1.0) is slow  # single flight
        began = time.monotonic()
        with pytest.raises(Busy):
            pool.submit("other", time.sleep, 0)
        assert time.monotonic() - began < 0.5
        slow.result(30)
        until_sync(lambda: pool.pending() == 0)
        with pytest.raises(Busy):  # the worker dies with its task
            pool.run("die", os._exit, 1)
        assert pool.run("after", pow, 2, 10) == 1024  # a new worker
    finally:
        pool.shutdown()


def test_worker_processes_yield_to_their_server():
    pool = Pool("process", workers=1, queue=0)
    try:
        assert pool.run("nice", os.nice, 0) == min(19, os.nice(0) + solutions.NICE)
    finally:
        pool.shutdown()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_worker_processes_end_with_their_server_even_when_it_is_killed():
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os; from learn.pool import Pool; "
            "print(Pool('process', 1, 0).run('pid', os.getpid), flush=True); "
            "os.kill(os.getpid(), 9)",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    worker = int(server.stdout.readline())
    server.wait(30)
    until_sync(lambda: not alive(worker), timeout=10)


# ---- never a 500 ---------------------------------------------------------------------------

junk = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "0",
            "-1",
            "1e3",
            "64",
            "65",
            "1000",
            "1001",
            "99999999999999999999",
            "3.5",
            " 5 ",
            "divisible",
            "ones",
            "equals",
            "\x00",
            "٣",
            "0x10",
            "",
            "true",
        ]
    ),
)
NAMES = ["width", "divisor", "highest", "target", "condition", "max_length", "moves", "ply", "x"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    slug=st.sampled_from(
        [
            "bit-flip",
            "bit-flip-divisor",
            "bitwise-battle",
            "last-digit-standing",
            "last-bit-standing",
        ]
    ),
    page=st.sampled_from(["analysis", "theory"]),
    data=st.lists(st.tuples(st.sampled_from(NAMES), junk), max_size=5),
)
def test_odd_option_values_never_500(slug, page, data):
    for extra in ({}, HTMX):
        response = Client().get(f"/games/{slug}/{page}/?{urlencode(data)}", **extra)
        assert response.status_code in (200, 400), (data, response.status_code)


# ---- PostgreSQL + Redis ------------------------------------------------------------------


@pytest.mark.services
def test_solved_answers_and_their_counts_are_shared_through_redis(monkeypatch):
    """What one process solved, another finds in Redis (here: through a connection of its
    own), and what it cost is counted there."""
    from bitsite.caches import ForgivingRedisCache

    assert isinstance(caches[answers.CACHE], ForgivingRedisCache)
    # The subject is where the count lives, not what a solve costs: Bitwise Battle is
    # answered by its closed rule now, in a few ms, so a solve is made to cost more than
    # the threshold (as in test_cache_hits_are_free_and_cold_solves_count...).
    monkeypatch.setattr(
        answers.Meter,
        "seconds",
        property(lambda meter: answers.COSTLY_SECONDS * 10 if meter.solving else 0.0),
    )
    spy = Spy(monkeypatch)
    k = a_big_target()
    address = an_address()
    with override_settings(RATE_LIMITS=rates(solve=("100/m", "1/m"))):
        assert Client(REMOTE_ADDR=address).get(BIG.format(k=k)).status_code == 200
        game = get_game("bitwise-battle")
        canonical = solutions.position_key(game, game.start(target=k, max_length=64))
        another = caches.create_connection(answers.CACHE)
        found = another.get(answers.cache_key(canonical))
        assert found == solutions.solve_position(game, game.start(target=k, max_length=64))
        assert Client(REMOTE_ADDR=address).get(BIG.format(k=k)).status_code == 200  # free
        # The cold solve was counted in Redis: the next one is refused.
        assert Client(REMOTE_ADDR=address).get(BIG.format(k=a_big_target())).status_code == 429
    assert spy.solved("position") == 1
