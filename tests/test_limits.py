"""Rate limits: per session and per address, on creating, joining, moving and sockets."""

from __future__ import annotations

import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from games.models import Match, Move
from tests.factories import client_with_token, make_match

HTMX = {"HTTP_HX_REQUEST": "true"}


def an_address() -> str:
    """An address of this test's own: the counts live in a cache shared by the tests."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def rates(**changed):
    from django.conf import settings

    return {**settings.RATE_LIMITS, **changed}


@pytest.mark.django_db
def test_moves_past_the_per_session_limit_are_refused_with_429_and_change_nothing():
    match, t1, t2 = make_match("last-bit-standing")
    players = {1: client_with_token(t1), 2: client_with_token(t2)}
    with override_settings(RATE_LIMITS=rates(move=("4/m", "1000/m"))):
        for ply in range(4):
            response = players[1 + ply % 2].post(
                f"/m/{match.public_id}/move",
                {"move": "0" if ply % 2 == 0 else "1", "ply": ply},
                **HTMX,
            )
            assert response.status_code == 200
        # Each browser made 2; a stale submission counts as well.
        for _ in range(2):
            assert (
                players[1]
                .post(f"/m/{match.public_id}/move", {"move": "0", "ply": 0}, **HTMX)
                .status_code
                == 409
            )
        response = players[1].post(f"/m/{match.public_id}/move", {"move": "0", "ply": 4}, **HTMX)
        assert response.status_code == 429
        assert "faster than anyone plays" in response.content.decode()
        assert 'id="board"' in response.content.decode()  # the board stays, with the message
    assert Move.objects.filter(match=match).count() == 4


@pytest.mark.django_db
def test_the_per_address_limit_counts_every_browser_of_an_address():
    from tests.test_views import form_data

    address = an_address()
    with override_settings(RATE_LIMITS=rates(create=("100/m", "3/m"))):
        for n in range(4):
            response = Client(REMOTE_ADDR=address).post(
                "/games/bit-flip/new/", form_data("bit-flip")
            )
            assert response.status_code == (303 if n < 3 else 429), n
        assert "Too fast" in response.content.decode()
        # Another address is not affected.
        response = Client(REMOTE_ADDR=an_address()).post(
            "/games/bit-flip/new/", form_data("bit-flip")
        )
        assert response.status_code == 303
    assert Match.objects.count() == 4


@pytest.mark.django_db
def test_loopback_is_not_counted_per_address_but_sessions_still_are():
    with override_settings(RATE_LIMITS=rates(join=("2/m", "1/m"))):
        joins = []
        for _ in range(3):
            match, _, _ = make_match("bit-flip", joined=False)
            joins.append(
                Client(REMOTE_ADDR="127.0.0.1").post(f"/m/{match.public_id}/join").status_code
            )
        assert joins == [303, 303, 303]  # three browsers, one (local) address
        browser = client_with_token("a-browser-that-has-a-session")
        results = []
        for _ in range(3):
            match, _, _ = make_match("bit-flip", joined=False)
            results.append(browser.post(f"/m/{match.public_id}/join").status_code)
        assert results == [303, 303, 429]


@pytest.mark.django_db
def test_when_the_cache_cannot_count_nothing_is_limited():
    gone = {
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_timeout": 0.2, "socket_connect_timeout": 0.2},
    }
    unreachable = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", **gone},
        "sessions": {"BACKEND": "bitsite.caches.ForgivingRedisCache", **gone},
    }
    match, t1, _ = make_match("bit-flip")
    with override_settings(CACHES=unreachable, RATE_LIMITS=rates(move=("1/m", "1/m"))):
        client = client_with_token(t1, REMOTE_ADDR=an_address())
        response = client.post(f"/m/{match.public_id}/move", {"move": "1", "ply": 0}, **HTMX)
        assert response.status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_sockets_opened_past_the_limit_are_closed_with_4429(settings):
    from bitsite.asgi import application
    from games import admission

    settings.RATE_LIMITS = rates(socket=("100/m", "3/m"))
    admission.reset()
    match, _, _ = await database_sync_to_async(make_match)("bit-flip")
    address = an_address()
    outputs = []
    for _ in range(4):
        communicator = WebsocketCommunicator(
            application,
            f"/ws/m/{match.public_id}/",
            headers=[(b"origin", b"http://testserver"), (b"host", b"testserver")],
        )
        communicator.scope["client"] = (address, 50000)
        await communicator.connect()
        outputs.append(await communicator.receive_output(timeout=10))
        await communicator.disconnect()
    assert [o["type"] for o in outputs[:3]] == ["websocket.send"] * 3
    assert outputs[3] == {"type": "websocket.close", "code": 4429}


def test_canary_the_limiter_s_clock_holds_still_in_tests(monkeypatch):
    """``tests/conftest.py``'s ``rate_windows_hold_still`` replaces the ``time`` that
    django-ratelimit's ``core`` module reads. Should the library stop reading the clock
    through that name, the fixture would quietly hold nothing, and the tests that count to
    a limit could again straddle a window's end: this fails first. Moving the held clock
    two periods on must start a new window (counted from one again)."""
    from types import SimpleNamespace

    import django_ratelimit.core
    from django.test import RequestFactory

    request = RequestFactory().get("/", REMOTE_ADDR=an_address())
    count = lambda: django_ratelimit.core.get_usage(  # noqa: E731
        request, group="canary", key="ip", rate="5/m", increment=True
    )["count"]
    held = django_ratelimit.core.time.time()
    assert [count(), count(), count()] == [1, 2, 3]
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: held + 120))
    assert count() == 1
