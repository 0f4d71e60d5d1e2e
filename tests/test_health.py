"""/healthz answers 200 only when the database and the channel layer answer: checked on
real daphne processes whose PostgreSQL or Redis is not there (a closed port)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from django.db import connection

from tests.servers import DaphneServer, database_url, server_env

NOTHING_LISTENS = "127.0.0.1:1"


def health(server: DaphneServer) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(server.url + "/healthz", timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def serve(env: dict, name: str) -> DaphneServer:
    return DaphneServer(env, name=name).start()


@pytest.mark.django_db(transaction=True)
def test_healthy():
    server = serve(server_env(database_url(connection.settings_dict)), "health-ok")
    try:
        status, body = health(server)
    finally:
        server.stop()
    assert status == 200
    assert body["status"] == "ok" and body["database"] == "ok" and body["channel_layer"] == "ok"


def test_the_database_down_is_a_503():
    # A request waits DJANGO_DB_POOL_TIMEOUT for a connection of the pool (5 s by default)
    # before it gives up on the database: 1 s here, the answer the same.
    env = server_env(f"postgres://postgres@{NOTHING_LISTENS}/bitsite", DJANGO_DB_POOL_TIMEOUT="1")
    env.pop("REDIS_URL", None)
    server = serve(env, "health-nodb")
    try:
        status, body = health(server)
    finally:
        server.stop()
    assert status == 503
    assert body == {"status": "down", "database": "down", "channel_layer": "ok"}


@pytest.mark.django_db(transaction=True)
def test_redis_down_is_a_503():
    env = server_env(
        database_url(connection.settings_dict), REDIS_URL=f"redis://{NOTHING_LISTENS}/0"
    )
    server = serve(env, "health-noredis")
    try:
        status, body = health(server)
    finally:
        server.stop()
    assert status == 503
    assert body["database"] == "ok"
    assert body["channel_layer"] == "down" and body["cache"] == "down"
