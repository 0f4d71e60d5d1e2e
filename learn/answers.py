"""The learn app's expensive answers: cached by their canonical form, limited by their
cost, computed in the learn pool.

Every analysis board page and partial, theory page and puzzle page is a view wrapped in
``@answers.costly(target)`` (learn/views/). In order, each step cheaper than the next:

1. The answer counts against the ``analysis`` rate limit (games/limits.py: per session
   and per address, in Django's cache): every answer costs that little, cached or not.
2. The view asks for what it needs solved: ``solution(request, game, pos)`` (a position's
   exact analysis and best line) or ``theory(request, game, options)``. Each is looked up
   in the cache ``learn`` by its canonical key (learn/solutions.py: the game, its options
   and the position as the rules write it); a hit costs nothing more.
3. A miss is decided before anything is computed: at its ``solve`` limit, the browser or
   address is refused (nothing computed, nothing kept); so is an analysis board line
   longer than ``LONG_LINE`` plies, cached or not (``admit``). Otherwise the solve runs in the
   pool (learn/pool.py), never in the request's thread: with its line full the answer is
   "busy" at once (and counts against ``solve``); identical misses in flight share one
   solve; the answer is kept in the
   cache for every process (Redis) or this one (process memory).
4. Once the answer is drawn its cost is known: the CPU time of the request's thread and
   of its solves in the pool. Over ``COSTLY_SECONDS`` (a cold solve of a large position,
   the longest lines drawn) it counts against ``solve`` as well.

A refusal has a Retry-After header and a plain message, as a page or, for htmx, in place
of the part the request swaps (``target``): 429 past a limit, 503 when the pool is busy.
A 429 is answered after at most ``HOLD_SECONDS``: a client that keeps asking gets its
refusals that slowly, so that its flood costs the server next to nothing (measured in
docs/features/learn.md); served, the wait is the event loop's and holds no request thread
(``bitsite.runtime.handler.hold``)."""

from __future__ import annotations

import hashlib
import time
from functools import wraps
from typing import Any

from django.core.cache import caches
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from bitsite.runtime import handler
from games import limits
from games.rules import Analysis, Game, Position

from . import solutions
from .pool import Busy, pool
from .theory import Theory

CACHE = "learn"
# An answer that took the server more CPU than this counts against the "solve" limit.
COSTLY_SECONDS = 0.05
# An analysis board line longer than this costs over COSTLY_SECONDS to draw, cached or
# not (each of its moves links to the whole line): it needs the "solve" limit's leave.
LONG_LINE = 200
# A refusal past a limit is held this long (at most its Retry-After) before it is sent.
HOLD_SECONDS = 1.0
# What a "busy" answer asks the browser to wait, in seconds.
BUSY_RETRY = 2

TOO_MANY = (
    "That was a lot of analysis in a short time: wait {wait}, then try again. "
    "Positions already worked out are shown at once."
)
BUSY = "The solver is busy with other positions just now: try again in a moment."


class Refused(Exception):
    def __init__(self, status: int, message: str, retry_after: int):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def _too_many(wait: int) -> Refused:
    words = f"{wait} second{'s' if wait != 1 else ''}"
    return Refused(429, TOO_MANY.format(wait=words), wait)


class Meter:
    """What one answer costs: its thread's CPU time, and its solves' in the pool."""

    def __init__(self, request):
        self.request = request
        self.began = time.thread_time()
        self.solving = 0.0
        self.admitted = False

    def admit(self) -> None:
        """Before this answer's first costly work: refused if the "solve" limit is reached."""
        if not self.admitted:
            wait = limits.retry_after(self.request, "solve", count=False)
            if wait:
                raise _too_many(wait)
            self.admitted = True

    @property
    def seconds(self) -> float:
        return time.thread_time() - self.began + self.solving


def cache_key(canonical: str) -> str:
    """Where the answer with this canonical form (learn/solutions.py) is kept."""
    return "answer:" + hashlib.sha256(canonical.encode()).hexdigest()


def _keep(key: str):
    def keep(done) -> None:  # in the pool's thread, once the solve succeeded
        caches[CACHE].set(key, done[0])

    return keep


def _solved(request, canonical: str, kind: str, slug: str, payload: dict[str, Any]):
    key = cache_key(canonical)
    found = caches[CACHE].get(key)
    if found is not None:
        return found
    meter = _meter(request)
    meter.admit()
    try:
        found, seconds = pool().run(canonical, solutions.work, kind, slug, payload, done=_keep(key))
    except Busy:
        # Asked, if not computed: a client that keeps asking while the pool is full
        # reaches its limit as if it had been served, and is then held.
        limits.charge(request, "solve")
        raise Refused(503, BUSY, BUSY_RETRY) from None
    meter.solving += seconds
    return found


def _meter(request) -> Meter:
    meter = getattr(request, "learn_meter", None)
    if meter is None:  # asked outside a @costly view: measured from here
        meter = request.learn_meter = Meter(request)
    return meter


def admit(request) -> None:
    """Before work known to be costly without a solve (a long line): Refused (429) if
    this browser or address is at its "solve" limit."""
    _meter(request).admit()


def solution(request, game: Game, pos: Position) -> solutions.Solution:
    """The exact analysis of ``pos`` and its best line (Refused: see the module)."""
    canonical = solutions.position_key(game, pos)
    return _solved(request, canonical, solutions.POSITION, game.slug, game.to_json(pos))


def analysis(request, game: Game, pos: Position) -> Analysis:
    return solution(request, game, pos).analysis


def line(request, game: Game, options: dict[str, Any], moves) -> tuple:
    """Who can force a win after each ply of a line from the start, and its blunders
    (``solutions.solve_line``; Refused: see the module)."""
    canonical = solutions.line_key(game, options, moves)
    payload = {"options": dict(options), "moves": list(moves)}
    return _solved(request, canonical, solutions.LINE, game.slug, payload)


def theory(request, game: Game, options: dict[str, Any]) -> Theory:
    """The theory page's picture for the cleaned ``options`` (Refused: see the module)."""
    canonical = solutions.theory_key(game, options)
    return _solved(request, canonical, solutions.THEORY, game.slug, dict(options))


# ---- the views' side ----------------------------------------------------------------


def refused(request, target: str, refusal: Refused):
    """The refusal as a page, or for htmx in place of the element ``target``."""
    partial = bool(request.htmx) and not request.htmx.history_restore_request
    again = request.get_full_path() if request.method in ("GET", "HEAD") else request.path
    context = {
        "message": refusal.message,
        "target": target,
        "again": again,
        "title": "Too much at once" if refusal.status == 429 else "The solver is busy",
    }
    template = "learn/wait.html" + ("#notice" if partial else "")
    response = render(request, template, context, status=refusal.status)
    response["Retry-After"] = str(refusal.retry_after)
    patch_vary_headers(response, ["HX-Request"])
    if refusal.status == 429:  # held on the event loop, not in a request thread
        return handler.hold(request, response, min(HOLD_SECONDS, refusal.retry_after))
    return response


def costly(target: str):
    """A view of expensive answers: counted, refused, metered and charged as the module
    says. ``target``: the id of the element its htmx requests replace."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            wait = limits.retry_after(request, "analysis")
            if wait:
                return refused(request, target, _too_many(wait))
            meter = request.learn_meter = Meter(request)
            try:
                response = view(request, *args, **kwargs)
            except Refused as refusal:
                return refused(request, target, refusal)
            if meter.seconds >= COSTLY_SECONDS:
                limits.charge(request, "solve")
            return response

        return wrapper

    return decorate
