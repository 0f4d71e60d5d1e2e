"""Each game's theory page: why its perfect-play result holds, with a picture drawn
from the rules module itself.

    from learn.theory import theory_for
    theory = theory_for(game, {"width": "12"})   # ValueError: options out of bounds
    theory.template, theory.picture, theory.caps

One function per game, registered by slug (as the presenters are): it takes the
game and its cleaned options, asks the rules (``start``, ``legal_moves``,
``play``, ``analyse``) for every number it draws, and returns a ``Theory``. Its
template, ``learn/theory/<slug>.html``, draws the numbers as inline SVG with a
table beside it for screen readers. Nothing here imports Django and nothing
outside this package and the rules chooses by slug.

Every picture is bounded so that a page answers well under a second cold; the
bounds are said on the page (``Theory.caps``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games.rules import Game


@dataclass(frozen=True)
class Theory:
    """What a theory page draws: the game's cleaned options, the picture's numbers
    (for its template) and the bounds the picture keeps to, in words."""

    game: Game
    options: dict[str, Any]
    picture: dict[str, Any]
    caps: tuple[str, ...] = ()
    start_summary: str = ""

    @property
    def template(self) -> str:
        return f"learn/theory/{self.game.slug}.html"


Builder = Callable[[Game, dict[str, Any]], Theory]
_BUILDERS: dict[str, Builder] = {}


def register(slug: str) -> Callable[[Builder], Builder]:
    """Decorator: this function draws the theory of the game ``slug``."""

    def decorate(builder: Builder) -> Builder:
        _BUILDERS[slug] = builder
        return builder

    return decorate


def has_theory(game: Game) -> bool:
    return game.slug in _BUILDERS


def clean(game: Game, query: Mapping[str, str]) -> dict[str, Any]:
    """The game's options from a query string, with the new-match form's bounds
    (``Game.clean_options``): defaults filled in; ValueError in plain words for an
    unknown option or a value out of bounds."""
    return game.clean_options({name: query[name] for name in query})


def theory_for(game: Game, query: Mapping[str, str] | None = None) -> Theory:
    """The theory of ``game`` with the options in ``query``; KeyError if the game has
    none, ValueError (a plain message) if the options are not allowed."""
    try:
        builder = _BUILDERS[game.slug]
    except KeyError:
        raise KeyError(f"No theory page for the game {game.slug!r}.") from None
    options = clean(game, query or {})
    return builder(game, options)


# The five games' theories register themselves on import.
from . import (  # noqa: E402
    bit_flip,
    bit_flip_divisor,
    bitwise_battle,
    last_bit_standing,
    last_digit_standing,
)

__all__ = [
    "Theory",
    "bit_flip",
    "bit_flip_divisor",
    "bitwise_battle",
    "clean",
    "has_theory",
    "last_bit_standing",
    "last_digit_standing",
    "register",
    "theory_for",
]
