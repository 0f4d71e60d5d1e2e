"""Each account's Glicko-2 rating in each game, and the change every rated game made.

``Rating``: one row per (account, game), created at the account's first rated game
there; locked (``select_for_update``) by the transaction that ends a rated match, so two
endings at once give what one after the other would. ``RatingChange``: one row per
(match, account), written in that same transaction: the history a player's chart draws,
the numbers the end of a game shows, and the guarantee that a result counts once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Match
from ratings import glicko


class Rated(models.Model):
    """A Glicko-2 rating's three numbers, and how they are read: a player's rating in a
    game (``Rating``), and the puzzle ratings of solvers and puzzles (learn.models)."""

    rating = models.FloatField(default=glicko.START_RATING)
    deviation = models.FloatField("rating deviation", default=glicko.START_DEVIATION)
    volatility = models.FloatField(default=glicko.START_VOLATILITY)

    class Meta:
        abstract = True

    @property
    def glicko(self) -> glicko.Glicko:
        return glicko.Glicko(self.rating, self.deviation, self.volatility)

    @property
    def provisional(self) -> bool:
        return glicko.is_provisional(self.deviation)

    @property
    def shown(self) -> str:
        return shown(self.rating, self.deviation)


class Rating(Rated):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(max_length=32, choices=Match.GAME_CHOICES)
    games = models.PositiveIntegerField("rated games", default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField("updated", auto_now=True)

    class Meta:
        ordering = ["game", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_game"),
            models.CheckConstraint(
                condition=models.Q(games=models.F("wins") + models.F("losses") + models.F("draws")),
                name="games_add_up",
            ),
        ]
        indexes = [models.Index(fields=["game", "deviation", "rating"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.game}: {shown(self.rating, self.deviation)}"


class RatingChange(models.Model):
    # A rated match's result is the record its ratings rest on: it cannot be deleted
    # while they do (the admin says so).
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=32, choices=Match.GAME_CHOICES)
    score = models.FloatField(help_text="1 a win, 0.5 a draw, 0 a loss")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_before = models.FloatField()
    deviation_after = models.FloatField()
    volatility_before = models.FloatField()
    volatility_after = models.FloatField()
    created_at = models.DateTimeField("rated at", auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["match", "user"], name="one_change_per_player"),
        ]
        indexes = [models.Index(fields=["user", "game", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user} in {self.match}: {self.delta_text}"

    @property
    def shown_before(self) -> str:
        return shown(self.rating_before, self.deviation_before)

    @property
    def shown_after(self) -> str:
        return shown(self.rating_after, self.deviation_after)

    @property
    def delta(self) -> int:
        """The change as the page shows it: the shown ratings' difference."""
        return round(self.rating_after) - round(self.rating_before)

    @property
    def delta_text(self) -> str:
        return signed(self.delta)


def shown(rating: float, deviation: float) -> str:
    """A rating as a player reads it: 1512, or 1512? while provisional."""
    return f"{round(rating)}{'?' if glicko.is_provisional(deviation) else ''}"


def signed(number: int) -> str:
    """+12, or -12 written with a minus sign (U+2212), or ±0."""
    if number > 0:
        return f"+{number}"
    if number < 0:
        return f"\u2212{-number}"
    return "\u00b10"
