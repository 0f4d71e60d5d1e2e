"""Named locks held to the end of the transaction: for a write that counts, then inserts
(at most so many of something: a player's upcoming tournaments, open challenges, tokens,
push devices), so that two such writes at once cannot both count one under the limit and
both insert, and for a write that must find-or-make as one step (the lobby's listings).

On PostgreSQL, an advisory transaction lock on the name (``pg_advisory_xact_lock``): the
second writer waits for the first to commit, then counts what it made. On SQLite nothing
is needed: every write transaction of the site begins ``IMMEDIATE`` (bitsite/settings.py),
so it holds the database's one write lock from its first statement.
"""

from __future__ import annotations

import hashlib

from django.db import connection


def key(name: str) -> int:
    """The lock's number: a signed 64-bit hash of ``name`` (what PostgreSQL takes)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") - (1 << 63)


def hold(name: str) -> None:
    """Inside a transaction: wait for, then hold until it ends, the lock called ``name``."""
    if not connection.in_atomic_block:
        raise RuntimeError(f"the lock {name!r} is held to a transaction's end: open one first")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key(name)])
