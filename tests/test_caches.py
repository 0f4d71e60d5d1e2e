"""Clearing one of the site's Redis caches removes that cache's keys and nothing else
(bitsite/caches.py). The caches, the sessions' cache and the channel layer share one
Redis database, and Django's own ``clear()`` is a FLUSHDB: a test clearing the learn
answers once wiped the presence sets and channel groups of a live server running in
the other test worker, and an API stream was never told of a move."""

from __future__ import annotations

import uuid

import pytest
import redis
from django.conf import settings

from bitsite.caches import ForgivingRedisCache, RedisCache, glob_escape

pytestmark = pytest.mark.services


def cache(backend, prefix: str):
    return backend(settings.REDIS_URL, {"KEY_PREFIX": prefix})


@pytest.fixture
def raw():
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    client.close()


@pytest.mark.parametrize("backend", [RedisCache, ForgivingRedisCache])
def test_clear_removes_only_the_caches_own_keys(backend, raw):
    name = f"clear-{uuid.uuid4().hex[:8]}"
    mine, neighbour = cache(backend, name), cache(RedisCache, f"{name}-other")
    layer_key = f"asgi:{name}:group"  # as channels-redis names its keys
    raw.set(layer_key, "a socket's group", ex=60)
    presence_key = f"{name}:presence:a-match"  # games/presence.py: under the cache's prefix
    raw.set(presence_key, "a socket", ex=60)
    many = {f"answer-{i}": i for i in range(2500)}  # more than one batch of SCAN/UNLINK
    mine.set_many(many, timeout=60)
    mine.set("answer", 42, timeout=60, version=2)
    neighbour.set("answer", 7, timeout=60)

    assert mine.clear() is True

    assert mine.get_many(list(many)) == {}
    assert mine.get("answer", version=2) is None
    assert neighbour.get("answer") == 7
    assert raw.get(layer_key) == b"a socket's group"
    assert raw.get(presence_key) == b"a socket"
    raw.delete(layer_key, presence_key)
    neighbour.delete("answer")


def test_a_prefix_with_pattern_characters_is_matched_literally(raw):
    name = f"clear-{uuid.uuid4().hex[:8]}"
    starred, plain = cache(RedisCache, f"{name}*"), cache(RedisCache, f"{name}ab")
    starred.set("k", 1, timeout=60)
    plain.set("k", 2, timeout=60)
    starred.clear()
    assert starred.get("k") is None
    assert plain.get("k") == 2
    plain.delete("k")


def test_glob_escape():
    assert glob_escape("bitsite-learn") == "bitsite-learn"
    assert glob_escape(r"a*b?[c]\d") == r"a\*b\?\[c\]\\d"
