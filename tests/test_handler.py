"""The ASGI handler: with the sync_chain hook (bitsite/runtime/handler.py) the middleware is
one synchronous chain, run in one thread hop per request; with it or without it, the site
behaves as through Django's own handler. (The served process's warm-up: test_runtime.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading

import pytest
from asgiref import sync
from channels.testing import HttpCommunicator

from bitsite import asgi, runtime
from tests.factories import make_match

HOOKED = runtime.enabled("sync_chain")  # else Django's own handler (BITSITE_HOOKS)


def test_the_middleware_chain_is_built_for_the_sync_mode_with_the_hook():
    chain = asgi.django_asgi_app._middleware_chain
    assert asyncio.iscoroutinefunction(chain) is not HOOKED


def test_the_handler_follows_the_switch():
    from django.core.handlers.asgi import ASGIHandler

    from bitsite.runtime.handler import SyncChainASGIHandler

    handler = asgi.django_asgi_app
    assert isinstance(handler, ASGIHandler)
    assert isinstance(handler, SyncChainASGIHandler) == runtime.enabled("sync_chain")


async def fetch(method: str, path: str, body: bytes = b"", headers=()) -> dict:
    communicator = HttpCommunicator(
        asgi.application,
        method,
        path,
        body=body,
        headers=[(b"host", b"testserver"), *headers],
    )
    return await communicator.get_response(timeout=10)


@pytest.fixture
def hops(monkeypatch):
    """How many times a request crosses from the event loop into a thread."""
    crossings = []
    enter = sync.SyncToAsync.__call__

    async def counted(self, *args, **kwargs):
        crossings.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await enter(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)
    return crossings


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_page_is_served_in_one_hop_into_a_thread_with_the_hook(hops):
    response = await fetch("GET", "/games/bit-flip/")
    assert response["status"] == 200
    assert b"<html" in response["body"]
    request_hops = [name for name in hops if "_respond" in name or "process_" in name]
    if HOOKED:
        assert request_hops == ["SyncChainASGIHandler._respond"]  # no hop per middleware
    else:  # Django's own: a hop for sync middleware steps (how many depends on the chain)
        assert len(request_hops) > 1 and "SyncChainASGIHandler._respond" not in request_hops


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_request_starts_no_thread_with_the_hook(monkeypatch):
    """Served through the hook, requests start no thread once the process has its request
    threads: no thread per request for the request signals and ``response.close`` (Django's
    ``ThreadSensitiveContext``), nor one to join it when the request ends."""
    match, _, _ = await sync.sync_to_async(make_match)("bit-flip")
    paths = ["/games/bit-flip/", f"/m/{match.public_id}/", "/m/AAAAAAAAAAAAAAAA/"]
    for path in paths:  # the process's request threads (and asgiref's own) begin
        await fetch("GET", path)
    started = []
    start = threading.Thread.start

    def counted(self, *args, **kwargs):
        started.append(self.name)
        return start(self, *args, **kwargs)

    monkeypatch.setattr(threading.Thread, "start", counted)
    answers = [await fetch("GET", path) for path in paths * 3]
    assert [a["status"] for a in answers] == [200, 200, 404] * 3
    if HOOKED:
        # The pool may still grow to its size (a worker can finish a request a moment
        # before it counts itself idle, and the next request then starts another), but
        # nothing else starts a thread for a request.
        from django.conf import settings

        from bitsite.runtime.handler import THREAD_NAME

        assert [name for name in started if not name.startswith(THREAD_NAME)] == []
        pool = [t for t in threading.enumerate() if t.name.startswith(THREAD_NAME)]
        assert len(pool) <= settings.REQUEST_THREADS
    else:  # Django's own handler: a thread for each request (and one to join it)
        assert len(started) >= len(answers), started


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_middleware_still_guards_every_request():
    match, _, _ = await sync.sync_to_async(make_match)("bit-flip")
    forged = await fetch(
        "POST",
        f"/m/{match.public_id}/move",
        body=b"move=0",
        headers=[(b"content-type", b"application/x-www-form-urlencoded")],
    )
    assert forged["status"] == 403  # CSRF
    missing = await fetch("GET", "/m/AAAAAAAAAAAAAAAA/")
    assert missing["status"] == 404
    headers = {name.lower(): value for name, value in missing["headers"]}
    assert b"content-security-policy" in headers  # django-csp, outermost but one
    assert headers[b"x-frame-options"] == b"DENY"


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_requests_run_in_the_process_s_request_threads_which_keep_their_connection(
    monkeypatch,
):
    """With the hook, every request runs in one of REQUEST_THREADS threads that outlive it:
    however many come at once, no more threads than that, and a thread's database
    connection serves its next request (CONN_MAX_AGE on SQLite; with PostgreSQL's pool,
    CONN_MAX_AGE 0, it goes back to the pool after each request)."""
    from django.conf import settings
    from django.db import connection

    from bitsite.runtime import handler as handlers

    match, _, _ = await sync.sync_to_async(make_match)("bit-flip")
    served = []  # (thread, its connection after the request)
    respond = handlers.SyncChainASGIHandler._respond

    def watched(self, request):
        response = respond(self, request)
        served.append((threading.current_thread(), connection.connection))
        return response

    monkeypatch.setattr(handlers.SyncChainASGIHandler, "_respond", watched)
    many = 3 * settings.REQUEST_THREADS
    answers = await asyncio.gather(*(fetch("GET", f"/m/{match.public_id}/") for _ in range(many)))
    assert [a["status"] for a in answers] == [200] * many
    if not HOOKED:  # Django's own handler: no _respond, a thread of its own per request
        assert served == []
        return
    threads = {thread for thread, _ in served}
    assert all(t.name.startswith(handlers.THREAD_NAME) for t in threads)
    assert len(threads) <= settings.REQUEST_THREADS
    conns: dict[threading.Thread, set] = {}
    for thread, conn in served:
        conns.setdefault(thread, set()).add(conn)
    if settings.DATABASES["default"]["CONN_MAX_AGE"]:  # one connection a thread, used again
        assert all(len(c) == 1 and None not in c for c in conns.values())
        assert len(served) > len(threads), "no thread served two requests"
    else:  # given back (to PostgreSQL's pool) after each request
        assert all(c == {None} for c in conns.values())


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_held_refusal_holds_no_request_thread(monkeypatch):
    """A 429 of the analysis board is sent late on purpose (learn/answers.py, HOLD_SECONDS).
    With the hook that wait is the event loop's: with a single request thread, another
    page is served while the refusal waits. (Django's handler gives each request a thread
    of its own, which waits.)"""
    from concurrent.futures import ThreadPoolExecutor

    from django.conf import settings
    from django.test import override_settings

    from bitsite.runtime import handler as handlers
    from learn import answers

    held_for = 60 if HOOKED else 0.5
    monkeypatch.setattr(answers, "HOLD_SECONDS", held_for)
    monkeypatch.setattr(handlers, "_threads", ThreadPoolExecutor(1, "bitsite-request-test"))
    holding = threading.Event()
    hold = handlers.hold

    def watched(request, response, seconds):
        holding.set()
        return hold(request, response, seconds)

    monkeypatch.setattr(handlers, "hold", watched)
    address = f"10.9.{random.randrange(256)}.{random.randrange(1, 255)}"  # counts of its own

    async def theory():
        communicator = HttpCommunicator(
            asgi.application, "GET", "/games/bit-flip/theory/", headers=[(b"host", b"testserver")]
        )
        communicator.scope["client"] = (address, 40000)
        return await communicator.get_response(timeout=2 * held_for)

    with override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "analysis": ("100/m", "1/m")}):
        assert (await theory())["status"] == 200
        refused = asyncio.create_task(theory())
        for _ in range(600):  # until it is refused (30 s at most)
            if holding.is_set() or refused.done():
                break
            await asyncio.sleep(0.05)
        assert holding.is_set(), "the second theory page was not refused"
        if not HOOKED:
            assert (await refused)["status"] == 429
            return
        other = await fetch("GET", "/games/bit-flip/")
        assert other["status"] == 200
        assert not refused.done(), "the refusal was sent before its hold ended"
        refused.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await refused
