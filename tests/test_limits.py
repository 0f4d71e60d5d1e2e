"""Rate limits: per session and per address, on creating, joining, moving and sockets."""

from __future__ import annotations

import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client, override_settings

from bitsite import redis_guard
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
def test_no_address_is_exempt_by_default_and_an_exempt_one_is_counted_by_session_only():
    from bitsite.settings import env_list

    assert env_list("BITSITE_RATE_EXEMPT_NOT_SET", "") == []  # the settings' default
    exempt = an_address()
    with override_settings(RATE_LIMITS=rates(join=("2/m", "1/m")), RATE_LIMIT_EXEMPT=[exempt]):
        joins = []
        for _ in range(3):
            match, _, _ = make_match("bit-flip", joined=False)
            joins.append(Client(REMOTE_ADDR=exempt).post(f"/m/{match.public_id}/join").status_code)
        assert joins == [303, 303, 303]  # three browsers, one exempt address
        browser = client_with_token("a-browser-that-has-a-session", REMOTE_ADDR=exempt)
        results = []
        for _ in range(3):
            match, _, _ = make_match("bit-flip", joined=False)
            results.append(browser.post(f"/m/{match.public_id}/join").status_code)
        assert results == [303, 303, 429]
        # Any other address, loopback included, is counted.
        loopback = f"127.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(2, 255)}"
        counted = [
            Client(REMOTE_ADDR=loopback).post(f"/m/{m.public_id}/join").status_code
            for m in (make_match("bit-flip", joined=False)[0] for _ in range(2))
        ]
        assert counted == [303, 429]


@pytest.mark.django_db
def test_when_redis_cannot_count_nothing_is_limited():
    match, t1, t2 = make_match("bit-flip")
    address = an_address()
    players = [client_with_token(t, REMOTE_ADDR=address) for t in (t1, t2)]
    gone = "redis://127.0.0.1:1/0"  # nothing listens there
    with override_settings(REDIS_URL=gone, RATE_LIMITS=rates(move=("1/m", "1/m"))):
        for ply, move in enumerate(("1", "2")):  # two from one address: past 1/m if counted
            answer = players[ply].post(
                f"/m/{match.public_id}/move", {"move": move, "ply": ply}, **HTMX
            )
            assert answer.status_code == 200, ply
    redis_guard.reset()  # it answers again (the guard would wait a while to ask)
    with override_settings(RATE_LIMITS=rates(move=("1/m", "1/m"))):  # counted again
        answer = players[0].post(f"/m/{match.public_id}/move", {"move": "3", "ply": 2}, **HTMX)
        assert answer.status_code == 200
        answer = players[1].post(f"/m/{match.public_id}/move", {"move": "4", "ply": 3}, **HTMX)
        assert answer.status_code == 429


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


def test_a_burst_across_a_windows_end_gets_no_more_than_the_figure(monkeypatch):
    """8 in any 10 s: a fixed window lets 8 through at its end and 8 more at the next
    one's start; a moving window counts the 10 s before each request."""
    from games import limits

    now = [1_000_000.0]
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    store = limits.LocalWindows()
    limiter = limits.MovingWindowRateLimiter(store)
    item = limits.rate("8/10s")
    now[0] += 9.9
    assert [limiter.hit(item, "chat", "a") for _ in range(9)] == [True] * 8 + [False]
    now[0] += 0.2  # a new fixed window would begin here
    assert not limiter.hit(item, "chat", "a")
    now[0] += 9.7  # 9.9 s after the eight: still in the window
    assert not limiter.hit(item, "chat", "a")
    assert limiter.get_window_stats(item, "chat", "a").remaining == 0
    now[0] += 0.15  # 10.05 s after them: all eight have left it
    assert [limiter.hit(item, "chat", "a") for _ in range(9)] == [True] * 8 + [False]
    assert limiter.hit(item, "chat", "b")  # another key counts apart


@pytest.mark.services
def test_on_redis_a_burst_gets_no_more_than_the_figure_in_any_window(settings):
    """The same with the counts in Redis (real time: a 2 s window)."""
    import time
    import uuid

    from games import limits

    key = uuid.uuid4().hex
    checks = [(key, "3/2s")]
    started = time.monotonic()
    assert [limits.wait("bitsite.test", checks, service="test") for _ in range(4)][:3] == [0] * 3
    assert limits.wait("bitsite.test", checks, service="test") >= 1
    time.sleep(max(0.0, started + 1.0 - time.monotonic()))  # past a fixed window of 1 s
    assert limits.wait("bitsite.test", checks, service="test") >= 1
    time.sleep(max(0.0, started + 2.3 - time.monotonic()))
    assert limits.wait("bitsite.test", checks, service="test") == 0


def test_a_rate_is_read_as_written():
    from games import limits

    assert limits.rate("8/10s").amount == 8 and limits.rate("8/10s").get_expiry() == 10
    assert limits.rate("60/m").get_expiry() == 60 and limits.rate("10/h").get_expiry() == 3600
    assert limits.rate("1/d").get_expiry() == 86400
    with pytest.raises(ValueError, match="not a rate"):
        limits.rate("eight a minute")
