"""A stand-in Web Push service on 127.0.0.1, which checks what a browser's push service
checks, for real: the VAPID authorization (RFC 8292: the JWT's ES256 signature verified
with the public key ``k``, which must be the key the browser subscribed with; ``aud`` the
endpoint's origin; ``exp`` in the future and at most 24 hours away; ``sub`` a mailto: or
https: contact), the headers (``Content-Encoding: aes128gcm``, ``TTL``), and the body,
decrypted with the browser's private key and auth secret (RFC 8291, ``http_ece``).

A browser (``Browser``) is made as a real one makes its subscription: a P-256 key pair
and a random 16-byte auth secret, and an endpoint on this service. What the service
answers each browser can be set (``mode``): "ok" (201), "gone" (410), "error" (500) or
"hang" (no answer until the service closes). Every request is kept in ``received``.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

AUTHORIZATION = re.compile(r"vapid t=([A-Za-z0-9_\-.]+),\s*k=([A-Za-z0-9_\-]+)")
DAY = 24 * 3600


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One browser's push subscription, with the secrets only the browser holds."""

    endpoint: str
    server_key: str  # the applicationServerKey it subscribed with (base64url)
    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    mode: str = "ok"

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def to_json(self) -> dict:
        """What ``PushSubscription.toJSON()`` gives in the browser."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }


@dataclass
class Received:
    path: str
    status: int
    reason: str
    headers: dict
    claims: dict | None = None
    message: dict | None = None


class PushService:
    def __init__(self):
        self.browsers: dict[str, Browser] = {}
        self.received: list[Received] = []
        self.arrived = threading.Condition()
        self.released = threading.Event()  # lets the "hang" requests go
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                service.handle(self)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def browser(self, server_key: str, mode: str = "ok") -> Browser:
        """A new browser subscribed on this service for ``server_key``."""
        made = Browser(f"{self.origin}/push/{secrets.token_urlsafe(12)}", server_key, mode=mode)
        self.browsers[made.endpoint.rsplit("/", 1)[1]] = made
        return made

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout)
        return list(self.received)

    # ---- one request ------------------------------------------------------------------------

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in request.headers.items()}
        found = Received(request.path, 201, "created", headers)
        try:
            self.check(request.path, headers, body, found)
        except Refusal as refusal:
            found.status, found.reason = refusal.status, refusal.reason
        browser = self.browsers.get(request.path.rsplit("/", 1)[-1])
        if found.status == 201 and browser is not None and browser.mode != "ok":
            if browser.mode == "hang":
                self.released.wait(60)
            found.status, found.reason = {"gone": (410, "gone"), "error": (500, "error")}.get(
                browser.mode, (201, "created")
            )
        with self.arrived:
            self.received.append(found)
            self.arrived.notify_all()
        try:
            request.send_response(found.status)
            if found.status == 201:
                request.send_header("Location", f"{self.origin}/message/{len(self.received)}")
            request.send_header("Content-Length", "0")
            request.end_headers()
        except OSError:  # the sender gave up waiting
            pass

    def check(self, path: str, headers: dict, body: bytes, found: Received) -> None:
        browser = self.browsers.get(path.rsplit("/", 1)[-1]) if path.startswith("/push/") else None
        if browser is None:
            raise Refusal(404, "no such subscription")
        # VAPID (RFC 8292)
        auth = AUTHORIZATION.fullmatch(headers.get("authorization", ""))
        if auth is None:
            raise Refusal(401, "no vapid authorization")
        token, key = auth.groups()
        if key != browser.server_key:
            raise Refusal(403, "signed with another key than the subscription's")
        try:
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
            head, claims_part, signature = token.split(".")
            header = json.loads(unb64url(head))
            claims = json.loads(unb64url(claims_part))
            raw = unb64url(signature)
        except ValueError:
            raise Refusal(401, "a malformed token") from None
        if header.get("alg") != "ES256" or len(raw) != 64:
            raise Refusal(401, "not an ES256 token")
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        try:
            public.verify(
                encode_dss_signature(r, s),
                f"{head}.{claims_part}".encode("ascii"),
                ec.ECDSA(hashes.SHA256()),
            )
        except InvalidSignature:
            raise Refusal(401, "bad signature") from None
        found.claims = claims
        now = time.time()
        if claims.get("aud") != self.origin:
            raise Refusal(401, "aud is not this service's origin")
        if not isinstance(claims.get("exp"), int) or not now < claims["exp"] <= now + DAY:
            raise Refusal(401, "exp not in the next 24 hours")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise Refusal(401, "no sub contact")
        # The message (RFC 8030, RFC 8291)
        if headers.get("content-encoding") != "aes128gcm":
            raise Refusal(415, "not aes128gcm")
        if not headers.get("ttl", "").isdigit():
            raise Refusal(400, "no TTL")
        try:
            plain = http_ece.decrypt(
                body,
                private_key=browser.private_key,
                auth_secret=browser.auth,
                version="aes128gcm",
            )
            found.message = json.loads(plain)
        except Exception:
            raise Refusal(400, "cannot decrypt the body") from None


class Refusal(Exception):
    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (a connection to it is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
