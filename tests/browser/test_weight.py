"""What a player downloads, counted in bytes on the wire from a real daphne server.

- A first page load (the page and every stylesheet and script it names) stays under
  40 KB gzipped, from a server set up as `make run` sets it up (static files collected,
  so WhiteNoise serves them precompressed; pages gzipped by Django's GZipMiddleware).
- A move's push to the opponent stays under 2 KB on the wire: a websocket client that
  offers permessage-deflate, as browsers do, reads the frames raw and counts them (with
  the deflate hook on: bitsite/runtime/deflate.py; off, the frames come plain). That
  client (``RawSocket``) is here; it weighs every move of a whole game of each kind in
  tests/browser/test_live_matches.py's whole live match, which plays it anyway.
"""

from __future__ import annotations

import base64
import http.client
import os
import re
import socket
import subprocess
import sys
import threading
import zlib
from contextlib import closing
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from games.rules import GAMES
from tests.browser.helpers import SCRIPTS, Actions, create_match, join, play, wait_for_ply
from tests.factories import make_match
from tests.replays import long_last_bit_match, played
from tests.servers import ROOT, server_env

pytestmark = pytest.mark.browser

FIRST_LOAD_LIMIT = 40_000  # bytes, gzipped, the page and its assets
PUSH_LIMIT = 2_000  # bytes on the wire, a move's push


def fetch(base: str, path: str, cookie: str = "") -> tuple[int, bytes, dict]:
    """GET ``path`` as a browser would (accepting gzip): status, the body's bytes as they
    came over the wire (not decompressed), and the headers."""
    parts = urlsplit(base)
    with closing(http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)) as conn:
        headers = {"Accept-Encoding": "gzip, deflate, br", "Accept": "text/html,*/*"}
        if cookie:
            headers["Cookie"] = cookie
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}


def assets(html: str) -> list[str]:
    """The stylesheets and scripts a page names (its icon is inline)."""
    found = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
    found += re.findall(r'<script src="([^"]+)"', html)
    return found


def seat_cookie(token: str) -> str:
    """A session holding ``token``, as the cookie a browser holding that seat sends."""
    from importlib import import_module

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["token"] = token
    store.save()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> str:
    """The static files collected once, as `make run` collects them."""
    root = tmp_path_factory.mktemp("static")
    env = server_env("sqlite:///unused.sqlite3", DJANGO_STATIC_ROOT=str(root))
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return str(root)


@pytest.fixture
def made_like_make_run(transactional_db, servers, collected) -> str:
    """A daphne server serving the collected static files, as `make run` serves them."""
    return servers(DJANGO_STATIC_ROOT=collected).url


def test_a_first_page_load_stays_under_40_kb_gzipped(made_like_make_run):
    base = made_like_make_run
    match, token1, _ = make_match("bit-flip", name="Ada", opponent="Bob")
    pages = {
        "home": ("/", ""),
        "rules": (f"/games/{GAMES[0].slug}/", ""),
        "new match": (f"/games/{GAMES[0].slug}/new/", ""),
        "a match, as its player": (match.get_absolute_url(), seat_cookie(token1)),
        "a match, as a spectator": (match.get_absolute_url(), ""),
    }
    # A replay holds every ply's board (games/review_views.HELD): a whole game of each.
    for game in GAMES:
        done = played(game.slug, SCRIPTS[game.slug][0])
        pages[f"the replay of a {game.slug} game"] = (f"{done.get_absolute_url()}replay/", "")
    report = []
    for name, (path, cookie) in pages.items():
        total, line = first_load(base, path, cookie)
        report.append(f"{name}: {line}")
        assert total < FIRST_LOAD_LIMIT, report[-1]
    print("\n".join(report))


def test_the_collected_scripts_are_minified_and_play_live(made_like_make_run, new_page):
    """The scripts `make run` serves are the minified ones (bitsite/storage.py), and a
    match plays on them: moves by frame on the socket, each seen live by the opponent."""
    base = made_like_make_run
    ada, bob = new_page(), new_page()
    sent = Actions(ada)
    url = create_match(ada, base, "last-bit-standing", name="Ada")
    scripts = [s for s in assets(ada.content()) if "/site/" in s and s.endswith(".js")]
    assert scripts, "the page names the site's script"
    for script in scripts:
        status, body, _ = fetch(base, script)
        text = zlib.decompress(body, 16 + zlib.MAX_WBITS).decode()
        assert status == 200 and "\n//" not in text and "// " not in text[:200], script
    join(bob, url, name="Bob")
    for ply, move in enumerate(["0", "1", "1"], start=1):
        mover, other = (ada, bob) if ply % 2 else (bob, ada)
        play(mover, "last-bit-standing", move)
        wait_for_ply(other, ply)
    assert sent.moves() == ["0", "1"] and not any(p.endswith("/move") for p in sent.posts)
    for page in (ada, bob):
        assert page.console_errors == []


def first_load(base: str, path: str, cookie: str = "") -> tuple[int, str]:
    """The bytes on the wire of a first load of ``path`` (gzipped: the page and every
    stylesheet and script it names), and what each part weighed."""
    status, body, headers = fetch(base, path, cookie)
    assert status == 200, (path, status)
    assert headers.get("content-encoding") == "gzip", (path, headers)
    html = zlib.decompress(body, 16 + zlib.MAX_WBITS).decode()
    total, parts = len(body), [f"page {len(body):,}"]
    named = assets(html)
    assert len(named) >= 3, named  # the stylesheet, htmx, site.js (and, with a socket, ws)
    for url in named:
        status, asset, asset_headers = fetch(base, url)
        assert status == 200, url
        assert asset_headers.get("content-encoding") == "gzip", (url, asset_headers)
        total += len(asset)
        parts.append(f"{url.rsplit('/', 1)[-1]} {len(asset):,}")
    return total, f"{total:,} bytes ({', '.join(parts)})"


def test_a_replays_boards_come_after_its_first_load(made_like_make_run):
    """The replay of the longest match whose page holds every ply's board
    (games/review_views.HELD): the boards are not in its first load but come after it, in
    one request (the whole games' replays above are under the limit with them asked for)."""
    from games.review_views import HELD

    match = long_last_bit_match(HELD - 2)  # and a losing move (after an even count of safe)
    path = f"{match.get_absolute_url()}replay/"
    status, body, _ = fetch(made_like_make_run, path)
    assert status == 200 and match.ply == HELD - 1
    page = zlib.decompress(body, 16 + zlib.MAX_WBITS).decode()
    assert "<template data-frame" not in page and f'data-frames="{path}frames"' in page
    status, body, _ = fetch(made_like_make_run, f"{path}frames")
    assert status == 200
    assert zlib.decompress(body, 16 + zlib.MAX_WBITS).decode().count("<template data-frame") == HELD
    # Its first load (the page with its move list and strip of 199 plies, and its assets).
    total, line = first_load(made_like_make_run, path)
    print(line)
    assert total < FIRST_LOAD_LIMIT, line


class RawSocket:
    """A websocket client that offers permessage-deflate and counts each frame's bytes as
    they came over the wire (header and payload), then inflates them to check what came."""

    def __init__(self, base: str, path: str, cookie: str):
        parts = urlsplit(base)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=20)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
            f"Origin: {base}\r\nCookie: {cookie}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.file = self.sock.makefile("rb")
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += self.file.read(1)
        self.handshake = head.decode("latin-1")
        assert self.handshake.startswith("HTTP/1.1 101"), self.handshake
        self.deflate = "permessage-deflate" in self.handshake.lower()
        bits = re.search(r"server_max_window_bits=(\d+)", self.handshake)
        self.inflater = zlib.decompressobj(-int(bits.group(1)) if bits else -15)
        self.messages: list[tuple[int, str]] = []  # (bytes on the wire, text)
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                wire, _, text = self._message()
                with self.arrived:
                    self.messages.append((wire, text))
                    self.arrived.notify_all()
        except (OSError, ValueError, EOFError):
            return

    def _frame(self):
        b0, b1 = self.file.read(2)
        length, wire = b1 & 0x7F, 2
        if length == 126:
            length, wire = int.from_bytes(self.file.read(2), "big"), wire + 2
        elif length == 127:
            length, wire = int.from_bytes(self.file.read(8), "big"), wire + 8
        payload = self.file.read(length)
        if len(payload) < length:
            raise EOFError
        return b0 & 0x80, b0 & 0x40, b0 & 0x0F, payload, wire + length

    def _message(self):
        fin, rsv1, opcode, payload, wire = self._frame()
        if opcode == 8:
            raise EOFError
        while not fin:
            fin, _, _, more, more_wire = self._frame()
            payload, wire = payload + more, wire + more_wire
        if rsv1:
            payload = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
        return wire, bool(rsv1), payload.decode()

    def wait_for(self, pattern: str, timeout: float = 10) -> tuple[int, str]:
        """The first message (from the start) whose text matches ``pattern``."""
        regex = re.compile(pattern)
        with self.arrived:
            found = self.arrived.wait_for(
                lambda: next((m for m in self.messages if regex.search(m[1])), None),
                timeout=timeout,
            )
        assert found, f"no message matched {pattern!r}: {[m[1][:80] for m in self.messages]}"
        return next(m for m in self.messages if regex.search(m[1]))

    def close(self) -> None:
        self.sock.close()
