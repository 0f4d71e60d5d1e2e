"""Puzzle ratings: each solver's and each puzzle's Glicko-2 rating, and the attempts.

``Solver``: one who solves puzzles, an account (``user``) or, before signing in, a
browser session (the row's id kept in the session; on sign-in it becomes the account's
when the account has none yet). One puzzle rating across every game, as on lichess, and
the streak: puzzles solved in a row at the first try.

``PuzzleRating``: one row per puzzle, under its key (learn/puzzles.py: a digest of its
position, so regenerating the puzzles keeps the ratings of the ones that stay), made at
its first rated attempt from its starting rating.

``PuzzleAttempt``: a solver's first attempt at a puzzle, the only one that is rated: the
result and both ratings before and after. One per (solver, puzzle): the constraint is
what makes a first attempt count once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ratings.models import Rated, shown, signed


class Solver(Rated):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="puzzle_solver",
    )
    attempts = models.PositiveIntegerField("rated attempts", default=0)
    solved = models.PositiveIntegerField("solved at the first try", default=0)
    streak = models.PositiveIntegerField("solved in a row", default=0)
    best_streak = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        who = self.user.get_username() if self.user_id else f"session solver {self.pk}"
        return f"{who}: {self.shown}"


class PuzzleRating(Rated):
    key = models.CharField(max_length=16, unique=True)
    game = models.CharField(max_length=32)
    rating = models.FloatField()  # from the puzzle's starting rating, no default
    attempts = models.PositiveIntegerField("rated attempts", default=0)
    solved = models.PositiveIntegerField("solved at the first try", default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["game", "rating"])]

    def __str__(self) -> str:
        return f"{self.game} puzzle {self.key}: {self.shown}"


class PuzzleAttempt(models.Model):
    SOLVED, HINTED, FAILED, SOLUTION = "solved", "hinted", "failed", "solution"
    HOW = [
        (SOLVED, "solved"),
        (HINTED, "solved with a hint"),
        (FAILED, "a wrong move"),
        (SOLUTION, "viewed the solution"),
    ]

    solver = models.ForeignKey(Solver, on_delete=models.CASCADE, related_name="attempts_made")
    key = models.CharField(max_length=16)
    game = models.CharField(max_length=32)
    number = models.PositiveIntegerField(help_text="the puzzle's number when it was tried")
    how = models.CharField(max_length=16, choices=HOW)
    score = models.FloatField(help_text="1 solved, 0.5 solved with a hint, 0 failed")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_before = models.FloatField()
    deviation_after = models.FloatField()
    puzzle_before = models.FloatField()
    puzzle_after = models.FloatField()
    puzzle_deviation_before = models.FloatField()
    puzzle_deviation_after = models.FloatField()
    created_at = models.DateTimeField("tried at", auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["solver", "key"], name="one_rated_attempt"),
        ]

    def __str__(self) -> str:
        return f"{self.solver} on {self.game} puzzle {self.number}: {self.how}"

    @property
    def delta(self) -> int:
        return round(self.rating_after) - round(self.rating_before)

    @property
    def delta_text(self) -> str:
        return signed(self.delta)

    @property
    def puzzle_delta_text(self) -> str:
        return signed(round(self.puzzle_after) - round(self.puzzle_before))

    @property
    def shown_after(self) -> str:
        return shown(self.rating_after, self.deviation_after)

    @property
    def shown_before(self) -> str:
        return shown(self.rating_before, self.deviation_before)

    @property
    def puzzle_shown_before(self) -> str:
        return shown(self.puzzle_before, self.puzzle_deviation_before)

    @property
    def puzzle_shown_after(self) -> str:
        return shown(self.puzzle_after, self.puzzle_deviation_after)

    @property
    def won(self) -> bool:
        return self.score == 1
