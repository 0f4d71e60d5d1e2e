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


class SignedIn:
    """A browser signed in to a live server as ``user`` (over plain HTTP: its session
    cookie, made as Django's test client makes one, and the CSRF cookie of the pages)."""

    def __init__(self, base: str, user):
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        self.base = base
        self.session = client.cookies[settings.SESSION_COOKIE_NAME].value
        self.name = settings.SESSION_COOKIE_NAME

    def post(self, path: str, csrf_from: str) -> int:
        """POST a form with no fields to ``path``, with the CSRF token of the page
        ``csrf_from``; returns the status (redirects not followed)."""
        cookie = f"{self.name}={self.session}"
        page = urllib.request.Request(self.base + csrf_from, headers={"Cookie": cookie})
        with urllib.request.urlopen(page, timeout=30) as answer:
            found = [h for h in answer.headers.get_all("Set-Cookie") or [] if "csrftoken=" in h]
        assert found, "the page set no CSRF cookie"
        csrf = found[0].split("csrftoken=", 1)[1].split(";", 1)[0]
        request = urllib.request.Request(
            self.base + path,
            data=b"",
            method="POST",
            headers={"Cookie": f"{cookie}; csrftoken={csrf}", "X-CSRFToken": csrf},
        )
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(request, timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
