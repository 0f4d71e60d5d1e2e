"""Reading NDJSON streams of a live server in tests: a line at a time, with a timeout."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlsplit


class Stream:
    """One open NDJSON stream (http.client: real HTTP, chunked, read as it comes)."""

    def __init__(self, base: str, path: str, token: str | None = None, timeout: float = 30.0):
        parts = urlsplit(base)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.getheaders())
        self.keepalives = 0

    def error(self) -> dict:
        return json.loads(self.response.read())

    def next(self, timeout: float = 30.0) -> dict | None:
        """The next JSON line (None at the end of the stream); empty lines are counted."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            raw = self.response.readline()
            if not raw:
                return None
            if raw.strip():
                return json.loads(raw)
            self.keepalives += 1
        raise TimeoutError("no line in time")

    def until(self, condition, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.1, deadline - time.monotonic()))
            assert event is not None, "the stream ended first"
            if condition(event):
                return event

    def close(self) -> None:
        """Gone, as a client that quits: the socket closes (the response holds it too)."""
        self.response.close()
        self.connection.close()
