"""deploy/nginx.conf in front of daphne does what docs/operations.md says the proxy must.

The file is run as it is, but for what only a deployment has: it listens on a free port
of 127.0.0.1 with plain HTTP (no certificate), and its upstream is one daphne started
with --proxy-headers, as `make scale` starts them behind a proxy. nginx runs from a
temporary prefix (its pid, logs and temporary files there), in the foreground. The
limits are read from the file, so the test checks the values it ships with:

- a page and a websocket pass through, and daphne sees the client's address, never an
  X-Forwarded-For the client made up;
- a client that sends its request header too slowly is cut off within
  ``client_header_timeout``;
- a body over ``client_max_body_size`` is refused with 413, before daphne reads it;
- one address holds at most ``limit_conn`` connections: the next request is a 429.
"""

from __future__ import annotations

import asyncio
import http.client
import re
import select
import shutil
import socket
import subprocess
import time

import pytest
from django.db import connection

from tests.factories import until_sync
from tests.servers import NGINX_CONF as CONF
from tests.servers import DaphneServer, Nginx, command, database_url, prepared, server_env

pytestmark = pytest.mark.django_db(transaction=True)


def directive(name: str) -> str:
    """The value of a directive in deploy/nginx.conf (there is one of each)."""
    found = re.findall(rf"^\s*{name}\s+([^;]+);", CONF.read_text(), re.MULTILINE)
    assert len(found) == 1, (name, found)
    return found[0].strip()


def seconds(value: str) -> float:
    assert value.endswith("s"), value
    return float(value[:-1])


def size(value: str) -> int:
    units = {"k": 1024, "m": 1024 * 1024}
    return int(value[:-1]) * units[value[-1].lower()] if value[-1].isalpha() else int(value)


class ProxiedDaphne(DaphneServer):
    daphne_args = ("--proxy-headers",)  # as make scale runs it with DJANGO_BEHIND_PROXY=1


@pytest.fixture
def proxy(nginx_binary):
    env = server_env(database_url(connection.settings_dict), DJANGO_BEHIND_PROXY="1")
    daphne = ProxiedDaphne(env, name="proxied").start()
    nginx = Nginx(nginx_binary, daphne.port)
    yield nginx, daphne
    nginx.stop()
    daphne.stop()


def request(port: int, method: str, path: str, source: str = "127.0.0.1", headers=None, body=None):
    """(status, body) of one request to 127.0.0.1:``port`` from the address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_page_and_a_websocket_pass_and_daphne_sees_the_clients_address(proxy):
    nginx, daphne = proxy
    status, page = request(
        nginx.port, "GET", "/", source="127.0.0.2", headers={"X-Forwarded-For": "203.0.113.9"}
    )
    assert status == 200 and b"<html" in page
    log = daphne.log_path.read_text()
    assert re.search(r'127\.0\.0\.2:\d+ - - \[[^]]+\] "GET /" 200', log), log[-2000:]
    assert "203.0.113.9" not in log  # the client's own X-Forwarded-For is replaced
    first = asyncio.run(first_frame(nginx.port))
    assert 'id="challenge-list"' in first  # the lobby's list, pushed on connect


async def first_frame(port: int) -> str:
    import aiohttp

    origin = f"http://127.0.0.1:{port}"
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"ws://127.0.0.1:{port}/ws/lobby/", origin=origin) as ws,
    ):
        message = await ws.receive(timeout=10)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        return message.data


def test_a_client_sending_its_header_too_slowly_is_cut_off(proxy):
    nginx, _ = proxy
    limit = seconds(directive("client_header_timeout"))
    client = socket.create_connection(("127.0.0.1", nginx.port))
    start = time.monotonic()
    client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    closed = False
    while not closed and time.monotonic() - start < limit + 10:
        # A byte of the header, then up to half a second for the proxy to hang up.
        try:
            client.sendall(b"a")
        except OSError:
            closed = True
            break
        readable, _, _ = select.select([client], [], [], 0.5)
        if readable:
            try:
                closed = client.recv(1024) == b""
            except OSError:
                closed = True
    elapsed = time.monotonic() - start
    client.close()
    assert closed, f"still open after {elapsed:.1f} s"
    assert limit - 1 <= elapsed <= limit + 3, elapsed


def test_a_body_over_the_limit_is_a_413_before_daphne_reads_it(proxy):
    nginx, daphne = proxy
    limit = size(directive("client_max_body_size"))
    status, _ = request(
        nginx.port,
        "POST",
        "/accounts/login/",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body=b"username=" + b"x" * limit,
    )
    assert status == 413
    assert "/accounts/login/" not in daphne.log_path.read_text()


def test_one_address_holds_at_most_its_share_of_connections(proxy):
    nginx, _ = proxy
    cap = int(directive("limit_conn").split()[-1])
    held = []

    def hold() -> None:
        """A request whose header is in and whose body never comes: nginx counts it."""
        sock = socket.create_connection(("127.0.0.1", nginx.port), source_address=("127.0.0.3", 0))
        sock.sendall(
            b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\r\n"
        )
        held.append(sock)

    def status_from(source: str) -> int:
        return request(nginx.port, "GET", "/healthz", source=source)[0]

    try:
        for _ in range(cap - 1):
            hold()
        assert status_from("127.0.0.3") == 200  # the last one this address may have
        hold()
        until_sync(lambda: status_from("127.0.0.3") == 429, timeout=5)
        assert status_from("127.0.0.4") == 200  # another address is not held back
        held.pop().close()
        until_sync(lambda: status_from("127.0.0.3") == 200, timeout=5)
    finally:
        for sock in held:
            sock.close()
    assert 'limiting connections by zone "per_address"' in nginx.error_log()


def test_a_storm_of_websockets_from_one_address_is_cut_off_at_the_proxy(proxy):
    """Past the burst, one address's websocket handshakes get 429 from nginx and never
    reach daphne; another address, and the host itself, still open theirs."""
    nginx, daphne = proxy
    burst = int(re.search(r"burst=(\d+)", directive("limit_req")).group(1))
    statuses = asyncio.run(handshakes(nginx.port, "127.0.0.2", burst * 3))
    opened, refused = statuses.count(101), statuses.count(429)
    assert burst <= opened < burst * 2 and opened + refused == burst * 3, statuses
    reached = daphne.log_path.read_text().count('"WSCONNECT /ws/lobby/"')
    assert reached == opened  # the refused ones never reached daphne
    assert asyncio.run(handshakes(nginx.port, "127.0.0.3", 2)) == [101, 101]
    assert asyncio.run(handshakes(nginx.port, "127.0.0.1", burst * 2)).count(101) == burst * 2
    assert "limiting requests, excess" in nginx.error_log()


async def handshakes(port: int, source: str, count: int) -> list[int]:
    """``count`` lobby websockets opened at once from ``source``: each one's status (101
    opened), then all closed."""
    import aiohttp

    origin = f"http://127.0.0.1:{port}"
    connector = aiohttp.TCPConnector(limit=0, local_addr=(source, 0))
    async with aiohttp.ClientSession(connector=connector) as http:

        async def one():
            try:
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/ws/lobby/", origin=origin)
            except aiohttp.WSServerHandshakeError as error:
                return error.status, None
            return 101, ws

        results = await asyncio.gather(*(one() for _ in range(count)))
        await asyncio.gather(*(ws.close() for _, ws in results if ws is not None))
    return [status for status, _ in results]


def test_the_example_is_valid_as_shipped(nginx_binary):
    """``nginx -t`` on the file as it is (its TLS lines too, with a throwaway certificate)."""
    site = CONF.read_text()
    root = prepared("", "bitsite-nginx-t-")
    try:
        for path, kind in ((r"\S+/fullchain\.pem", "c"), (r"\S+/privkey\.pem", "k")):
            site, found = re.subn(path, str(root / kind), site)
            assert found == 1, path
        (root / "bitsite.conf").write_text(site)
        subprocess.run(
            [
                *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
                *("-subj", "/CN=bitsite.example.org"),
                *("-keyout", str(root / "k"), "-out", str(root / "c")),
            ],
            check=True,
            capture_output=True,
        )
        checked = subprocess.run(command(nginx_binary, root, "-t"), capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)
