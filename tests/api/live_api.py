"""Calling the API of a live server in tests (standard library, real HTTP)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def call(base: str, method: str, path: str, token: str | None = None, body=None):
    """(status, JSON answer) of one API request."""
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    request = urllib.request.Request(f"{base}/api{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
