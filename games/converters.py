"""Path converters for the kinds of id in the site's URLs, registered once for every app.

``<match:public_id>``: a match id, exactly what ``games.models.new_public_id`` makes.
Anything else (a NUL byte, ``%FF``, a 4,000-character id, ``..``) never reaches a query:
the URL does not match, which is a 404 page for HTTP and a clean refusal for a websocket
(games/routing.py).

``<event:public_id>``: an event's id (a tournament's): made the same way, so the same
shape.

``<game:game>``: a known game's slug; the view receives the game itself (the rules
module's ``Game``). An unknown slug is a 404 before any view runs.
"""

from __future__ import annotations

from django.urls import register_converter

from games.models import PUBLIC_ID_RE
from games.rules import Game, get_game


class MatchIdConverter:
    regex = PUBLIC_ID_RE

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class GameConverter:
    regex = r"[a-z0-9]+(?:-[a-z0-9]+)*"

    def to_python(self, value: str) -> Game:
        try:
            return get_game(value)
        except KeyError:
            raise ValueError(value) from None  # no match: a 404

    def to_url(self, value: Game | str) -> str:
        return value if isinstance(value, str) else value.slug


register_converter(MatchIdConverter, "match")
register_converter(MatchIdConverter, "event")
register_converter(GameConverter, "game")
