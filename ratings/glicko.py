"""Glicko-2, by the ``glicko2`` library (2.1.0, the Python port of Ryan Kirkman's
implementation of Glickman's paper, MIT licence, no dependencies).

The choices (docs/features/ratings.md):

- Every rated game is a rating period of its own for both players, as on lichess: both
  new ratings are computed from the two players' ratings before the game, one game, one
  result. No time decay between games (a period with no games would widen the
  deviation; here no period passes without a game).
- A new player starts at 1500, deviation 350, volatility 0.06 (Glickman's defaults).
- The system constant tau is 0.5 (Glickman suggests 0.3 to 1.2; his worked example uses
  0.5). It is a class attribute of this module's ``_FixedPlayer``, set once when the class
  is made and never changed, so no thread ever mutates a shared global: the library's own
  ``glicko2.Player._tau`` is left alone.
- A rating is provisional while its deviation is above 110 (lichess's mark): about ten
  games against established players from the start, fourteen between two newcomers.

The library's step 5 (the new volatility) evaluates Glickman's f(x) with the player's
rating squared (mu^2) where the paper has the deviation squared (phi^2). Glickman's
worked example hides it only partly (there mu = 0, so f loses phi^2 = 1.33 and the
volatility comes out 0.059993 instead of the paper's 0.059996). ``_FixedPlayer`` overrides
that one function with the paper's; a test checks the worked example to the paper's
digits and other players against the paper's formulas written out independently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import glicko2

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
TAU = 0.5
PROVISIONAL_ABOVE = 110.0  # a deviation above this: the rating is provisional


class _FixedPlayer(glicko2.Player):
    """The library's player, with tau fixed here and step 5's f(x) as in the paper."""

    _tau = TAU

    def _f(self, x, delta, v, a):
        phi2 = self._Player__rd**2  # the library's (name-mangled) deviation, Glicko-2 scale
        ex = math.exp(x)
        return ex * (delta**2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (
            (x - a) / self._tau**2
        )


@dataclass(frozen=True)
class Glicko:
    """A player's rating, deviation and volatility (on the Glicko scale: 1500 and so on)."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        return is_provisional(self.deviation)


def is_provisional(deviation: float) -> bool:
    return deviation > PROVISIONAL_ABOVE


def rate(player: Glicko, results: list[tuple[Glicko, float]]) -> Glicko:
    """``player`` after one rating period with ``results``: (opponent, score) pairs, the
    score 1 for a win, 0.5 for a draw, 0 for a loss."""
    if not results:
        raise ValueError("A rating period needs at least one game.")
    p = _FixedPlayer(player.rating, player.deviation, player.volatility)
    p.update_player(
        [opponent.rating for opponent, _ in results],
        [opponent.deviation for opponent, _ in results],
        [score for _, score in results],
    )
    return Glicko(p.rating, p.rd, p.vol)


def game(first: Glicko, second: Glicko, score: float) -> tuple[Glicko, Glicko]:
    """Both players after one game between them (``score``: the first player's), each
    from both players' ratings before it."""
    return rate(first, [(second, score)]), rate(second, [(first, 1 - score)])
