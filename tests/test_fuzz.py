"""Junk in every URL and websocket route, against a real server on PostgreSQL and Redis
(services run): never a 5xx, never a traceback in the server's log.

PostgreSQL refuses a NUL byte in a text query ("text fields cannot contain NUL"), which
SQLite does not, so this runs where that difference shows.
"""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request

import pytest
from django.db import connection

from tests.servers import DaphneServer, database_url, server_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

JUNK_IDS = [
    "%00",
    "a%00b",
    "AAAAAAAA%00AAAAAAA",
    "%FF",
    "%C3%28",
    "x" * 4000,
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e",
    "'%20OR%201=1--",
    "%3Cscript%3E",
    "AAAAAAAAAAAAAAAA",  # the right form, no such match
]
MATCH_PATHS = [
    "/m/{id}/",
    "/m/{id}/join",
    "/m/{id}/move",
    "/m/{id}/computer",
    "/m/{id}/resign",
    "/m/{id}/rematch",
    "/m/{id}/hints",
    "/m/{id}/replay/",
    "/m/{id}/export.json",
]
OTHER_PATHS = ["/games/%00/", "/games/%FF/new", "/games/" + "x" * 4000 + "/", "/%00", "/admin/%00/"]


@pytest.fixture
def server(transactional_db):
    assert connection.vendor == "postgresql"
    env = server_env(database_url(connection.settings_dict))
    assert env.get("REDIS_URL", "").startswith("redis://")
    daphne = DaphneServer(env, name="fuzz").start()
    yield daphne
    daphne.stop()


def status_of(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_junk_match_ids_and_paths_never_give_a_5xx_or_a_traceback(server):
    # A CSRF cookie and header, so that POSTs reach the views.
    with urllib.request.urlopen(server.url + "/", timeout=30) as response:
        cookie = response.headers["Set-Cookie"]
        token = re.search(r'"X-CSRFToken": "([^"]+)"', response.read().decode()).group(1)
    csrf = re.search(r"csrftoken=([^;]+)", cookie).group(1)
    headers = {"Cookie": f"csrftoken={csrf}", "X-CSRFToken": token, "HX-Request": "true"}
    seen = []
    for template in MATCH_PATHS:
        for junk in JUNK_IDS:
            url = server.url + template.format(id=junk)
            for method in ("GET", "POST"):
                data = b"move=1&ply=0&name=x" if method == "POST" else None
                request = urllib.request.Request(url, data=data, method=method, headers=headers)
                seen.append((method, url[:80], status_of(request)))
    # No junk id reaches a match: each is a plain refusal (the admin's login page follows).
    unexpected = [case for case in seen if case[2] not in (400, 403, 404, 405)]
    assert not unexpected, unexpected
    for path in OTHER_PATHS:
        seen.append(("GET", path[:80], status_of(urllib.request.Request(server.url + path))))
    errors = [case for case in seen if case[2] >= 500]
    assert not errors, errors
    closes = asyncio.run(_sockets(server))
    assert all(code == 4404 for code in closes.values()), closes
    log = server.log_path.read_text()
    assert "Traceback" not in log, log[-5000:]
    assert not re.search(r'" 5\d\d ', log), log[-5000:]


async def _sockets(server: DaphneServer) -> dict[str, object]:
    import aiohttp

    base = server.url.replace("http", "ws")
    paths = [f"/ws/m/{junk}/" for junk in JUNK_IDS] + ["/ws/nothing/", "/ws/", "/ws/m/"]
    closes: dict[str, object] = {}
    async with aiohttp.ClientSession() as http:
        for path in paths:
            try:
                async with http.ws_connect(base + path, origin=server.url) as socket:
                    await socket.receive(timeout=10)
                    closes[path[:60]] = socket.close_code
            except aiohttp.WSServerHandshakeError as error:
                closes[path[:60]] = f"handshake {error.status}"
    return closes
