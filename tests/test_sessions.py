"""Sessions read through their cache, and keep working when the cache (Redis) is away
(bitsite/caches.py: a cache backend that answers as a miss when Redis fails)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore
from django.core.cache import caches
from django.test import override_settings

from tests.factories import client_with_token, make_match

pytestmark = pytest.mark.django_db

# Nothing listens on port 1: every cache operation fails at once, as with Redis down.
_GONE = {
    "LOCATION": "redis://127.0.0.1:1/0",
    "OPTIONS": {"socket_timeout": 0.2, "socket_connect_timeout": 0.2},
}
UNREACHABLE = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", **_GONE},
    "sessions": {"BACKEND": "bitsite.caches.ForgivingRedisCache", **_GONE},
}


def test_sessions_use_djangos_own_engine_through_a_cache_of_their_own():
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    assert settings.SESSION_CACHE_ALIAS == "sessions"


def test_a_session_is_read_from_the_cache():
    session = SessionStore()
    session["token"] = "a-seat-secret"
    session.save()
    cached = caches[settings.SESSION_CACHE_ALIAS].get(session.cache_key)
    assert cached == {"token": "a-seat-secret"}


def test_sessions_work_from_the_database_alone_when_the_cache_is_unreachable():
    with override_settings(CACHES=UNREACHABLE):
        session = SessionStore()
        session["token"] = "a-seat-secret"
        session.save()
        again = SessionStore(session_key=session.session_key)
        assert again["token"] == "a-seat-secret"
        assert again.exists(session.session_key)
        again.delete()
        assert not SessionStore(session_key=session.session_key).exists(session.session_key)


def test_a_player_moves_while_the_cache_is_unreachable():
    match, t1, _ = make_match("bit-flip")
    with override_settings(CACHES=UNREACHABLE):
        client = client_with_token(t1)
        response = client.post(
            f"/m/{match.public_id}/move", {"move": "1", "ply": "0"}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200, response.content.decode()
        assert 'data-ply="1"' in response.content.decode()
