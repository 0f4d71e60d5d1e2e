"""The rules of the five games: pure Python, no Django.

    from games.rules import GAMES, get_game, IllegalMove
    game = get_game("bit-flip")
    pos = game.start(width=8)
    pos = game.play(pos, "4 5")

Every part of the site (views, sockets, admin, replay, computer player, terminal
client, tests, benchmarks) plays through this package.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from .base import (
    Analysis,
    Ending,
    Game,
    GameOver,
    IllegalMove,
    MalformedMove,
    MoveVerdict,
    Option,
    Outcome,
    Position,
    Verdict,
)
from .bit_flip import BitFlip
from .bit_flip_divisor import BitFlipDivisor
from .bitwise_battle import BitwiseBattle
from .last_bit_standing import LastBitStanding
from .last_digit_standing import LastDigitStanding

# In the rule books' order (000 to 004).
GAMES: tuple[Game, ...] = (
    LastBitStanding(),
    BitwiseBattle(),
    BitFlip(),
    BitFlipDivisor(),
    LastDigitStanding(),
)
_BY_SLUG = {game.slug: game for game in GAMES}


def all_games() -> tuple[Game, ...]:
    """The games a player can choose: the five, and any registered for a while."""
    return tuple(_BY_SLUG.values())


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """Make ``game`` known to ``get_game`` and ``all_games`` inside a ``with`` block
    (tests: a toy game shows that nothing else chooses by slug)."""
    if game.slug in _BY_SLUG:
        raise ValueError(f"A game {game.slug!r} is registered already.")
    _BY_SLUG[game.slug] = game
    try:
        yield game
    finally:
        del _BY_SLUG[game.slug]


def get_game(slug: str) -> Game:
    """The game with this slug; KeyError names the known slugs."""
    try:
        return _BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"No game {slug!r}; the games are: {', '.join(_BY_SLUG)}") from None


__all__ = [
    "GAMES",
    "Analysis",
    "Ending",
    "Game",
    "GameOver",
    "IllegalMove",
    "MalformedMove",
    "MoveVerdict",
    "Option",
    "Outcome",
    "Position",
    "Verdict",
    "all_games",
    "get_game",
    "registered",
]
