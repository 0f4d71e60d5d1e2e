"""PostgreSQL's connection pool empty: a request is answered 503 with Retry-After, never
500 (bitsite/database.py). A real daphne with a pool of one connection and a short wait:
a join waits for the match's row, which the test holds, so it keeps the only connection;
other requests meanwhile find none, whether their view or a middleware asks first."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import urllib.error
import urllib.request

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.utils import OperationalError
from django.test import Client

from bitsite.database import RETRY_AFTER, pool_exhausted
from games.models import Match
from tests.factories import make_match, until_sync
from tests.servers import DaphneServer, database_url, server_env


def fetch(url: str, data: bytes | None = None, headers: dict | None = None):
    """(status, headers, body) of a request; an error status is an answer too."""
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def waiting_on_a_lock() -> bool:
    """Whether another connection to this database waits for a row lock (the join)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


def socket_close_code(url: str, origin: str) -> int | None:
    """Open a websocket, read until it closes: its close code (None: it sent a frame)."""
    import aiohttp

    async def run():
        async with aiohttp.ClientSession() as http, http.ws_connect(url, origin=origin) as ws:
            message = await ws.receive(timeout=30)
            if message.type == aiohttp.WSMsgType.TEXT:
                return None
            return ws.close_code

    return asyncio.run(run())


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("hooks", ["all", "none"])  # Django's sync chain, and its async one
def test_an_empty_pool_is_a_503_with_retry_after_not_a_500(hooks):
    assert connection.vendor == "postgresql"
    match, _, _ = make_match(joined=False)
    browser = Client()
    browser.force_login(get_user_model().objects.create_user("ada", password="pw-Ada-12345"))
    signed_in = (
        f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    )
    env = server_env(
        database_url(connection.settings_dict),
        DJANGO_DB_POOL_SIZE="1",
        DJANGO_DB_POOL_TIMEOUT="0.5",
        BITSITE_HOOKS=hooks,
    )
    server = DaphneServer(env, name=f"pool-{hooks}").start()
    try:
        status, headers, page = fetch(server.url + "/")
        assert status == 200
        csrf = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"]).group(1)
        token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
        joined = {}

        def join():
            opener = urllib.request.build_opener(NoRedirects)
            request = urllib.request.Request(
                f"{server.url}/m/{match.public_id}/join",
                data=b"name=Bob",
                headers={"Cookie": f"csrftoken={csrf}", "X-CSRFToken": token},
            )
            try:
                opener.open(request, timeout=30)
            except urllib.error.HTTPError as error:
                joined["status"] = error.code

        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match.pk)
            joiner = threading.Thread(target=join)
            joiner.start()
            until_sync(waiting_on_a_lock)  # the join holds the pool's only connection
            busy = {
                # The view is the first to read the database (the lobby's challenges).
                "a page": fetch(server.url + "/"),
                # A middleware is: the account's (accounts/signin.py) reads the user.
                "signed in": fetch(
                    server.url + "/accounts/logout/", data=b"", headers={"Cookie": signed_in}
                ),
            }
            # The API answers JSON, as every error of its own.
            api = fetch(server.url + "/api/players/ada")
            # A match's socket reads the match: it is closed with "try again later".
            ws_url = server.url.replace("http", "ws", 1) + f"/ws/m/{match.public_id}/"
            socket_code = socket_close_code(ws_url, server.url)
        joiner.join(timeout=30)
    finally:
        server.stop()
    for status, headers, page in busy.values():
        assert status == 503, (busy.keys(), status, page[:300])
        assert headers["Retry-After"] == str(RETRY_AFTER)
        assert "Too busy for a moment" in page
    status, headers, answer = api
    assert status == 503 and headers["Retry-After"] == str(RETRY_AFTER)
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(answer)["error"] == "unavailable"
    assert socket_code == 4503
    assert joined == {"status": 303}  # the join went on once the row was free
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    log = server.log_path.read_text()
    assert "Traceback" not in log, log[-3000:]
    assert "no database connection free in time" in log


def test_what_an_empty_pool_raises_is_told_from_other_errors():
    from psycopg_pool import PoolTimeout

    cause = PoolTimeout("couldn't get a connection after 5.00 sec")
    error = OperationalError(str(cause))
    error.__cause__ = cause  # as Django wraps the driver's errors
    assert pool_exhausted(error)
    assert not pool_exhausted(OperationalError("connection refused"))
    assert not pool_exhausted(None)
