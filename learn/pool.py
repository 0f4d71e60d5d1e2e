"""The learn app's own pool: where cold solves run, off the server's request threads.

Under daphne every request runs in a thread of the one server process, and a move is a
few milliseconds of Python in one of them. A cold solve is up to half a second of pure
Python: in a request thread it holds the process's GIL in 1 ms slices against every move
(benchmarks/flood.py measured moves 32 times slower with 8 cold solves in flight). So
they run here instead:

- ``settings.ANALYSIS_POOL = "process"`` (the default): ``ANALYSIS_WORKERS`` worker
  processes (``concurrent.futures.ProcessPoolExecutor``, started by *spawn*: a clean
  interpreter that imports only the rules, never a copy of the server's threads), run at
  a lower priority (``os.nice``), so that the server's own threads come first for the
  cores. Each keeps its own analysis memos (games/rules/base.py).
- ``"thread"``: as many threads of the server process. Cheaper to start, but they share
  its GIL: measured, moves were still slowed several times (docs/features/learn.md).

The line is bounded: at most ``ANALYSIS_WORKERS + ANALYSIS_QUEUE`` different tasks at
once, running or waiting; one more raises ``Busy`` at once instead of waiting behind
them. A task asked again while it is pending is not queued twice: the second asker waits
for the first one's future (single flight). A worker process that dies (killed for its
memory) breaks the executor; the next task starts a new one.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from django.conf import settings

from . import solutions

log = logging.getLogger("bitsite.learn")

# A solve is bounded by the rules' option bounds (under a second cold); past this, the
# asker is answered "busy" and the task goes on, its answer kept for the next one.
WAIT_SECONDS = 10.0


class Busy(Exception):
    """The pool's line is full, or the task took too long: try again in a moment."""


class Pool:
    def __init__(self, kind: str, workers: int, queue: int):
        self.settings = (kind, workers, queue)
        self.kind, self.workers = kind, max(1, workers)
        self.capacity = self.workers + max(0, queue)
        self._executor: Executor | None = None
        self._pending: dict[object, Future] = {}
        self._lock = threading.Lock()

    def _start(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(self.workers, thread_name_prefix="bitsite-solver")
        return ProcessPoolExecutor(
            self.workers, mp_context=get_context("spawn"), initializer=solutions.start_worker
        )

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def submit(self, key, fn, *args, done=None) -> Future:
        """The future of ``fn(*args)``: the pending one of ``key`` if there is one, else a
        new task; Busy if the line is full. ``done(result)`` runs once when it succeeds,
        before the future is: an asker that got the result finds it kept (in the cache)."""
        with self._lock:
            future = self._pending.get(key)
            if future is not None:
                return future
            if len(self._pending) >= self.capacity:
                raise Busy("the solver's line is full")
            if self._executor is None:
                self._executor = self._start()
            try:
                task = self._executor.submit(fn, *args)
            except BrokenProcessPool:  # a worker died since the last task: start afresh
                self._executor = self._start()
                task = self._executor.submit(fn, *args)
            future = self._pending[key] = Future()
            executor = self._executor
        task.add_done_callback(lambda t: self._finished(key, t, future, executor, done))
        return future

    def _finished(self, key, task: Future, future: Future, executor, done) -> None:
        error = task.exception()
        if error is None and done is not None:
            try:
                done(task.result())
            except Exception as failure:  # keeping it failed: the answer still stands
                log.warning("could not keep a solved answer: %r", failure)
        with self._lock:
            if self._pending.get(key) is future:
                del self._pending[key]
            if isinstance(error, BrokenProcessPool) and self._executor is executor:
                executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None
        if error is None:
            future.set_result(task.result())
        else:
            future.set_exception(error)

    def run(self, key, fn, *args, done=None, timeout: float = WAIT_SECONDS):
        """``fn(*args)``'s result, computed in the pool (or by the pending task of ``key``);
        Busy when the line is full, the task takes over ``timeout`` seconds, or its worker
        died."""
        future = self.submit(key, fn, *args, done=done)
        try:
            return future.result(timeout)
        except FutureTimeout:
            raise Busy("the solver took too long") from None
        except BrokenProcessPool:
            raise Busy("the solver's worker stopped") from None

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
            self._pending.clear()
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


_pool: Pool | None = None
_pool_lock = threading.Lock()


def pool() -> Pool:
    """This process's pool, made at first use from the settings (made again if they
    changed, as a test's override does)."""
    global _pool
    wanted = (settings.ANALYSIS_POOL, settings.ANALYSIS_WORKERS, settings.ANALYSIS_QUEUE)
    with _pool_lock:
        if _pool is None or _pool.settings != wanted:
            old, _pool = _pool, Pool(*wanted)
            if old is not None:
                old.shutdown()
        return _pool
