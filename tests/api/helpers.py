"""Tokens and clients for the API tests."""

from __future__ import annotations

import json

from django.test import Client

from api import tokens


def token_for(user, *scopes: str, name: str = "test") -> str:
    return tokens.create(user, name, list(scopes or ("read", "play", "challenge")))[1]


class Api:
    """The test client speaking JSON with a bearer token (no cookies)."""

    def __init__(self, token: str | None = None):
        self.client = Client(enforce_csrf_checks=True)
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str, **params):
        return self.client.get(f"/api{path}", params, headers=self.headers)

    def post(self, path: str, data=None, *, raw: str | None = None):
        body = raw if raw is not None else json.dumps(data or {})
        return self.client.post(
            f"/api{path}", body, content_type="application/json", headers=self.headers
        )
