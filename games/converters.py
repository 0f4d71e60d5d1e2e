"""A match id in a URL: exactly what ``games.models.new_public_id`` makes.

Anything else (a NUL byte, ``%FF``, a 4,000-character id, ``..``) never reaches a
query: the URL does not match, which is a 404 page for HTTP and a clean refusal for a
websocket (games/routing.py).
"""

from __future__ import annotations

from django.urls import register_converter

from games.models import PUBLIC_ID_RE


class MatchIdConverter:
    regex = PUBLIC_ID_RE

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


# Registered once, here: games/urls.py and games/routing.py both use ``<match:public_id>``.
register_converter(MatchIdConverter, "match")
