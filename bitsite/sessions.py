"""Sessions: Django's cached_db engine, which never fails because its cache does.

Sessions hold the seat secrets, so they live in the database. Every request that acts
reads its session, and reading it from the cache saves a query (and, under ASGI, often
a whole database connection). With REDIS_URL the cache is Redis; Django's cached_db
store lets a failed cache *read* fall through to the database, but a failed cache
*write* (after a miss) or delete still raises, and a Redis outage would turn every
request into a 500. Here every cache operation of the session store falls back as a
cache miss would, and while Redis is being left alone after a failure
(bitsite/redis_guard.py) the cache is not asked at all.
"""

from __future__ import annotations

from django.contrib.sessions.backends import cached_db

from bitsite import redis_guard


def _failed(error: Exception) -> None:
    redis_guard.failed("sessions", error)


class _Forgiving:
    """The session store's view of the cache: an unreachable cache is an empty one."""

    def __init__(self, cache):
        self.cache = cache

    def get(self, key, default=None):
        if not redis_guard.available():
            return default
        try:
            found = self.cache.get(key, default)
        except Exception as error:
            _failed(error)
            return default
        redis_guard.answered()
        return found

    def set(self, key, value, timeout=None):
        if not redis_guard.available():
            return
        try:
            self.cache.set(key, value, timeout)
        except Exception as error:
            _failed(error)

    def delete(self, key):
        if not redis_guard.available():
            return
        try:
            self.cache.delete(key)
        except Exception as error:
            _failed(error)

    def __contains__(self, key):
        if not redis_guard.available():
            return False
        try:
            return key in self.cache
        except Exception as error:
            _failed(error)
            return False

    async def aget(self, key, default=None):
        if not redis_guard.available():
            return default
        try:
            return await self.cache.aget(key, default)
        except Exception as error:
            _failed(error)
            return default

    async def aset(self, key, value, timeout=None):
        if not redis_guard.available():
            return
        try:
            await self.cache.aset(key, value, timeout)
        except Exception as error:
            _failed(error)

    async def adelete(self, key):
        if not redis_guard.available():
            return
        try:
            await self.cache.adelete(key)
        except Exception as error:
            _failed(error)


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = _Forgiving(self._cache)
