"""Junk in every URL pattern, every form and every websocket route: never a 5xx.

Every URL pattern of the site is found by walking its URL resolver (a new one is fuzzed
without being listed here), and each is asked, with GET and with POST, anonymously and
signed in as staff (the admin's pages too):

- with a NUL in each of its path's values, then with a NUL in a query-string field and in
  a form field's name and value: each refused with 400 at the edge (bitsite/edge.py);
- with 300-character values in its path, its query string and every form field the site
  has (longer than any column that holds one, shorter than the edge's limit): whatever the
  view says, never a 5xx.

In process, on whatever database the run has (SQLite, or PostgreSQL in the services run);
and through a real daphne on PostgreSQL and Redis (services), where the raw headers,
cookies and websockets are fuzzed too and the server's log must hold no traceback.
PostgreSQL refuses a NUL byte in a text query ("text fields cannot contain NUL") and a
value longer than its column, which SQLite does not: that is where the difference shows.
"""

from __future__ import annotations

import asyncio
import http.client
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from bitsite.edge import MAX_PATH
from games.rules import GAMES
from tests.factories import make_match
from tests.servers import DaphneServer, database_url, server_env

NUL = "\x00"
LONG = "x" * 300  # longer than any column a value goes into (axes' 255, accounts' 150)
# The names of the site's form and query fields (the forms' own, and the views' reads).
FIELDS = (
    "username",
    "password",
    "password1",
    "password2",
    "email",
    "name",
    "opponent_name",
    "move",
    "ply",
    "answer",
    "result",
    "next",
    "game",
    "level",
    "first",
    "time_control",
    "rated",
    "listed",
    "page",
    "divisor",
    "q",
)
# A hole of a route (``<match:public_id>``) or of a regex (``(?P<app_label>...)``).
HOLE = re.compile(r"<(?:[^>:]+:)?([^>]+)>|\(\?P<(\w+)>[^)]*\)")


def routes() -> list[tuple[str, URLPattern]]:
    """Every URL pattern of the site, with its whole route as a string (signing out
    last, so that a signed-in walk stays signed in)."""

    def walk(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern

    found = list(walk(get_resolver()))
    assert len(found) > 50, found  # the admin's, the apps' and the project's
    return sorted(found, key=lambda item: item[1].name == "logout")


def fill(route: str, value_of) -> str:
    """The path of ``route`` with each hole given ``value_of(its name)``."""
    route = route.replace("^", "").replace("$", "")
    return "/" + HOLE.sub(lambda hole: value_of(hole.group(1) or hole.group(2)), route)


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    fields: dict[str, str]  # the query string of a GET, the form of a POST
    nul: bool  # NUL somewhere: refused at the edge

    def __str__(self) -> str:
        return f"{self.method} {self.path[:70]!r} {'(NUL)' if self.nul else '(long)'}"


def cases(samples: dict[str, str]) -> list[Case]:
    """For every URL pattern: NUL in its fields, long values in its fields; and where its
    path has values, NUL in them and long ones; each with GET and POST. ``samples`` gives
    a real value for each kind of value in a path (a match's id, a game's slug...)."""
    found = []
    for route, _ in routes():
        real = fill(route, lambda name: samples.get(name, "1"))
        variants = [
            (real, {"q": NUL, "a" + NUL: "b", "name": "x" + NUL}, True),
            (real, dict.fromkeys(FIELDS, LONG), False),
        ]
        if HOLE.search(route):
            variants.append((fill(route, lambda name: "a%00b"), {"q": "x"}, True))
            variants.append((fill(route, lambda name: LONG), dict.fromkeys(FIELDS, LONG), False))
        for path, fields, nul in variants:
            for method in ("GET", "POST"):
                found.append(Case(method, path, fields, nul))
    return found


def samples_for(user, match) -> dict[str, str]:
    return {
        "public_id": match.public_id,
        "game": GAMES[0].slug,
        "username": user.get_username(),
        "object_id": str(match.pk),
        "app_label": "games",
    }


def check(seen: list[tuple[Case, int]]) -> None:
    """Never a 5xx; and every request with a NUL refused with 400."""
    errors = [(str(case), status) for case, status in seen if status >= 500]
    assert not errors, errors
    through = [(str(case), status) for case, status in seen if case.nul and status != 400]
    assert not through, through


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser("staff", "staff@example.org", "pw-staff-1")


# ---- in process, on this run's database -----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "staff"])
def test_every_url_pattern_and_form_with_nul_or_long_values_never_gives_a_5xx(signed_in, staff):
    match, _, _ = make_match()
    client = Client(raise_request_exception=False)
    if signed_in:
        client.force_login(staff)
    seen = []
    for case in cases(samples_for(staff, match)):
        send = client.get if case.method == "GET" else client.post
        seen.append((case, send(case.path, case.fields).status_code))
    check(seen)


@pytest.mark.django_db
def test_a_refused_request_says_why_and_changes_nothing(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "ada", "password1": "pw-Ada-12345", "password2": "pw-Ada-12345" + NUL},
    )
    assert not get_user_model().objects.exists()
    assert response.status_code == 400
    assert b"This request was refused: One of its fields holds a NUL character." in (
        response.content
    )


SOCKET_PATHS = ["/ws/lobby/", "/ws/watch/", "/ws/me/games/", "/ws/m/AAAAAAAAAAAAAAAA/"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("path", SOCKET_PATHS)
@pytest.mark.parametrize(
    "junk",
    [
        {"cookie": f'{settings.SESSION_COOKIE_NAME}="abcdefgh\\000ijkl"'},  # unquoted: a NUL
        {"query": "x=%00"},
        {"path": "%00"},
        {"path": "x" * (MAX_PATH + 1)},
    ],
    ids=["cookie", "query", "path", "long path"],
)
async def test_a_socket_with_a_nul_or_an_over_long_path_is_refused_at_the_handshake(path, junk):
    from channels.testing import WebsocketCommunicator

    from bitsite.asgi import application

    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if "cookie" in junk:
        headers.append((b"cookie", junk["cookie"].encode()))
    path += junk.get("path", "")
    if "query" in junk:
        path += "?" + junk["query"]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    assert not connected  # denied before the session, the origin check or the consumer
    await communicator.disconnect()


# ---- through daphne, on PostgreSQL and Redis ------------------------------------------


@pytest.fixture
def server(transactional_db):
    assert connection.vendor == "postgresql"
    env = server_env(database_url(connection.settings_dict))
    assert env.get("REDIS_URL", "").startswith("redis://")
    daphne = DaphneServer(env, name="fuzz").start()
    yield daphne
    daphne.stop()
    if daphne.port in KEPT:
        KEPT.pop(daphne.port).close()


def status_of(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


KEPT: dict[int, http.client.HTTPConnection] = {}  # a kept-alive connection per server port


def raw_status(server, method: str, path: str, headers: dict, body=None, retry=True) -> int:
    """A request sent as written (urllib would quote the path), on the server's kept-alive
    connection (a new one once the server closes it)."""
    if server.port not in KEPT:
        KEPT[server.port] = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn = KEPT[server.port]
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body or b"")))
        conn.endheaders(body)
        response = conn.getresponse()
        response.read()
    except (http.client.RemoteDisconnected, ConnectionError):
        KEPT.pop(server.port).close()
        if not retry:
            raise
        return raw_status(server, method, path, headers, body, retry=False)
    if response.will_close:
        KEPT.pop(server.port).close()
    return response.status


def browser_headers(server: DaphneServer, session_key: str | None = None) -> dict[str, str]:
    """A CSRF cookie and header (so that POSTs reach the views), and a session's cookie."""
    with urllib.request.urlopen(server.url + "/", timeout=30) as response:
        cookie = response.headers["Set-Cookie"]
        token = re.search(r'"X-CSRFToken": "([^"]+)"', response.read().decode()).group(1)
    csrf = re.search(r"csrftoken=([^;]+)", cookie).group(1)
    cookies = f"csrftoken={csrf}"
    if session_key:
        cookies += f"; {settings.SESSION_COOKIE_NAME}={session_key}"
    return {"Cookie": cookies, "X-CSRFToken": token, "HX-Request": "true"}


def signed_in_session(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.mark.services
def test_every_url_pattern_through_daphne_on_postgresql(server, staff):
    match, _, _ = make_match()
    seen = []
    # Signed in as staff (the admin's pages answer); the in-process test walks them both ways.
    headers = browser_headers(server, signed_in_session(staff))
    for case in cases(samples_for(staff, match)):
        query = urlencode(case.fields)
        if case.method == "GET":
            status = raw_status(server, "GET", f"{case.path}?{query}", headers)
        else:
            form = {**headers, "Content-Type": "application/x-www-form-urlencoded"}
            status = raw_status(server, "POST", case.path, form, query.encode())
        seen.append((case, status))
    check(seen)
    log = server.log_path.read_text()
    assert "Traceback" not in log, log[-5000:]
    assert not re.search(r'" 5\d\d ', log), log[-5000:]


@pytest.mark.services
def test_nul_in_a_header_or_a_cookie_is_a_400_not_a_5xx(server):
    headers = browser_headers(server)
    junk = [
        {"User-Agent": "a\x00b"},
        {"Accept": "text/html\x00"},
        {"Cookie": f'{settings.SESSION_COOKIE_NAME}="abcdefgh\\000ijkl"'},  # unquoted: a NUL
        {"Cookie": headers["Cookie"] + f"; {settings.SESSION_COOKIE_NAME}=abcdefgh\x00ijkl"},
    ]
    seen = []
    for extra in junk:
        for method, path in (("GET", "/"), ("GET", "/players/ada/"), ("POST", "/accounts/login/")):
            body = b"username=ada&password=x" if method == "POST" else None
            form = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
            status = raw_status(server, method, path, {**headers, **form, **extra}, body)
            seen.append((extra, method, path, status))
    through = [case for case in seen if case[-1] != 400]
    assert not through, through
    closes = asyncio.run(_sockets(server, cookie=f'{settings.SESSION_COOKIE_NAME}="ab\\000cd"'))
    assert all(code == "handshake 403" for code in closes.values()), closes
    log = server.log_path.read_text()
    assert "Traceback" not in log, log[-5000:]


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


@pytest.mark.services
def test_junk_match_ids_and_paths_never_give_a_5xx_or_a_traceback(server):
    headers = browser_headers(server)
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
    # A path with a NUL, or too long, is refused at the handshake (bitsite/edge.py); any
    # other junk path is closed with 4404.
    for path, code in closes.items():
        refused = "%00" in path or len(path) > MAX_PATH
        assert code == ("handshake 403" if refused else 4404), (path[:60], code)
    log = server.log_path.read_text()
    assert "Traceback" not in log, log[-5000:]
    assert not re.search(r'" 5\d\d ', log), log[-5000:]


async def _sockets(server: DaphneServer, cookie: str | None = None) -> dict[str, object]:
    import aiohttp

    base = server.url.replace("http", "ws")
    paths = [f"/ws/m/{junk}/" for junk in JUNK_IDS] + ["/ws/nothing/", "/ws/", "/ws/m/"]
    if cookie is not None:
        paths = ["/ws/lobby/", "/ws/watch/", "/ws/me/games/", "/ws/m/AAAAAAAAAAAAAAAA/"]
    headers = {"Cookie": cookie} if cookie else None
    closes: dict[str, object] = {}
    async with aiohttp.ClientSession() as http:
        for path in paths:
            try:
                async with http.ws_connect(base + path, origin=server.url, headers=headers) as ws:
                    await ws.receive(timeout=10)
                    closes[path] = ws.close_code
            except aiohttp.WSServerHandshakeError as error:
                closes[path] = f"handshake {error.status}"
    return closes
