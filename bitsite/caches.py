"""A Redis cache that never fails its caller: an unreachable Redis is an empty cache.

Sessions hold the seat secrets, so they live in the database, read through a cache
(Django's ``cached_db`` engine, with ``SESSION_CACHE_ALIAS = "sessions"``): every request
that acts reads its session, and reading it from the cache saves a query. Django's engine
forgives a failed cache read and a failed save, but not a failed write after a miss, a
delete or an ``exists``: with Redis down, every request would be a 500. This backend is
Django's own Redis cache whose every operation answers as a miss (or does nothing) when
Redis fails, and which does not ask Redis at all while it is being left alone after a
failure (bitsite/redis_guard.py: one timeout, then everyone falls back at once).

The learn app's cache of solved answers (``CACHES["learn"]``) is one too: a Redis that
fails is a cache that holds nothing, and the answer is computed again.

Every cache of the site shares one Redis database with the others and with the channel
layer (channels-redis's groups and queues), and Django's ``clear()`` on a Redis cache is
a FLUSHDB, as its documentation warns: clearing the learn answers would also drop every
socket's group, the presence sets (api streams then go unpublished to) and the cached
sessions. Here ``clear()`` removes only the keys Django made under the cache's own
``KEY_PREFIX`` (its default key function: ``prefix:version:key``, the version a number;
the presence sets' ``bitsite:presence:...`` are not among them, nor are another cache's
keys unless it shares the prefix), found by SCAN and unlinked in batches with redis-py's
own client, made from the cache's ``LOCATION``.

A custom cache backend is Django's documented way to change how a cache behaves; no
private name of Django is touched.
"""

from __future__ import annotations

from functools import wraps

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from bitsite import redis_guard

CLEAR_BATCH = 1000  # keys scanned and unlinked per round trip by clear()


def glob_escape(text: str) -> str:
    """``text`` matched literally in a Redis SCAN pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisCache(DjangoRedisCache):
    """Django's Redis cache whose ``clear()`` removes its own keys only."""

    def __init__(self, server, params):
        super().__init__(server, params)
        servers = server.split(",") if isinstance(server, str) else list(server)
        self.writer = servers[0]  # Django writes to the first server
        self.connection_options = {
            k: v for k, v in params.get("OPTIONS", {}).items() if k.startswith("socket_")
        }

    def clear(self):
        pattern = glob_escape(self.key_prefix) + ":[0-9]*:*"  # prefix:version:key
        client = redis.Redis.from_url(self.writer, **self.connection_options)
        try:
            batch = []
            for key in client.scan_iter(match=pattern, count=CLEAR_BATCH):
                batch.append(key)
                if len(batch) == CLEAR_BATCH:
                    client.unlink(*batch)
                    batch = []
            if batch:
                client.unlink(*batch)
        finally:
            client.close()
        return True


def _forgiving(default):
    """The operation answers ``default`` (a miss) when Redis is away or fails."""

    def decorate(method):
        @wraps(method)
        def wrapper(self, *args, **kwargs):
            if not redis_guard.available():
                return default
            try:
                found = method(self, *args, **kwargs)
            except Exception as error:
                redis_guard.failed("a cache", error)
                return default
            redis_guard.answered()
            return found

        return wrapper

    return decorate


class ForgivingRedisCache(RedisCache):
    @_forgiving(None)
    def get(self, key, default=None, version=None):
        return super().get(key, default, version)

    @_forgiving({})
    def get_many(self, keys, version=None):
        return super().get_many(keys, version)

    @_forgiving(False)
    def has_key(self, key, version=None):
        return super().has_key(key, version)

    @_forgiving(None)
    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().set(key, value, timeout, version)

    @_forgiving(False)
    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().add(key, value, timeout, version)

    @_forgiving(False)
    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return super().touch(key, timeout, version)

    @_forgiving(False)
    def delete(self, key, version=None):
        return super().delete(key, version)

    @_forgiving(None)
    def delete_many(self, keys, version=None):
        return super().delete_many(keys, version)

    @_forgiving(False)
    def clear(self):
        return super().clear()
