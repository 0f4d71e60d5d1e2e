"""The ASGI handler: with the sync_chain hook (bitsite/runtime/handler.py) the middleware is
one synchronous chain, run in one thread hop per request; with it or without it, the site
behaves as through Django's own handler. (The served process's warm-up: test_runtime.py.)"""

from __future__ import annotations

import asyncio

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
async def test_a_requests_thread_closes_its_connections_as_it_ends_with_the_hook(monkeypatch):
    """Each request runs in a thread of its own: a connection left open there would be
    closed by the garbage collector, in one of its pauses."""
    from django.db import connections

    from bitsite.runtime import handler as handlers

    match, _, _ = await sync.sync_to_async(make_match)("bit-flip")
    seen = []
    close = handlers.close_connections

    def watched():
        opened = [c for c in connections.all(initialized_only=True) if c.connection is not None]
        close()
        seen.append([(c.alias, c.connection) for c in opened])

    monkeypatch.setattr(handlers, "close_connections", watched)
    response = await fetch("GET", f"/m/{match.public_id}/")
    assert response["status"] == 200
    if not HOOKED:  # Django's own handler leaves them to CONN_MAX_AGE (and the collector)
        assert seen == []
        return
    assert seen and seen[0], "the match page read the database in the request's thread"
    assert all(connection is None for _, connection in seen[0])
