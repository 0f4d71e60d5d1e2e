"""Each game's presentation in one place: ``presenter_for(game)``.

    from games.presenters import presenter_for
    presenter = presenter_for(match.rules)
    presenter.describe("4 5")      # "flipped bits 4 and 5"
    presenter.cells(pos, legal, hinted, touched)

The board (games/boards.py and its templates), the replay, the admin, the export
and the terminal client ask the presenter; none of them chooses by slug.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from games.rules import Game

from .base import Display, Fact, Presenter

_CLASSES: dict[str, type[Presenter]] = {}
_INSTANCES: dict[str, Presenter] = {}


def register(cls: type[Presenter]) -> type[Presenter]:
    """Class decorator: ``cls`` presents the game of its ``slug``."""
    _CLASSES[cls.slug] = cls
    _INSTANCES.pop(cls.slug, None)
    return cls


def presenter_for(game: Game) -> Presenter:
    """The presenter of ``game`` (one per game and process)."""
    found = _INSTANCES.get(game.slug)
    if found is None or found.game is not game:
        try:
            cls = _CLASSES[game.slug]
        except KeyError:
            raise KeyError(f"No presenter for the game {game.slug!r}.") from None
        found = _INSTANCES[game.slug] = cls(game)
    return found


@contextmanager
def registered(cls: type[Presenter]) -> Iterator[type[Presenter]]:
    """Register ``cls`` for the duration of a ``with`` block (tests: a toy game)."""
    before = _CLASSES.get(cls.slug)
    register(cls)
    try:
        yield cls
    finally:
        _INSTANCES.pop(cls.slug, None)
        if before is None:
            _CLASSES.pop(cls.slug, None)
        else:
            _CLASSES[cls.slug] = before


# The five games' presenters register themselves on import.
from . import (  # noqa: E402
    bit_flip,
    bit_flip_divisor,
    bitwise_battle,
    last_bit_standing,
    last_digit_standing,
)

__all__ = [
    "Display",
    "Fact",
    "Presenter",
    "bit_flip",
    "bit_flip_divisor",
    "bitwise_battle",
    "last_bit_standing",
    "last_digit_standing",
    "presenter_for",
    "register",
    "registered",
]
