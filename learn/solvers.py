"""Who is solving, and what a first attempt does to the ratings (learn/models.py).

As on lichess, only a solver's first attempt at a puzzle is rated, and it rates both: the
solver wins against the puzzle when it is solved without a wrong move (score 1), draws
when it is solved after taking a hint (0.5), and loses on a wrong move or on viewing the
solution (0). Retries and later visits change nothing. The new ratings come from
``ratings.glicko.game`` (Glicko-2, the code the match ratings use): one game, both sides
rated from the ratings before it.

The solver is the account when signed in, else the browser session, whose ``Solver``
row is made at its first rated attempt and named in the session (``SESSION_KEY``). On
sign-in the session's solver becomes the account's if the account has none (its rating,
streak and history carry over); an account that already has one keeps its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction

from learn.models import PuzzleAttempt, PuzzleRating, Solver
from learn.puzzles import Puzzle
from ratings import glicko

SESSION_KEY = "puzzle_solver"
SCORES = {
    PuzzleAttempt.SOLVED: 1.0,
    PuzzleAttempt.HINTED: 0.5,
    PuzzleAttempt.FAILED: 0.0,
    PuzzleAttempt.SOLUTION: 0.0,
}


def current(request) -> Solver | None:
    """The visitor's solver, if it has one yet."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Solver.objects.filter(user=user).first()
    pk = request.session.get(SESSION_KEY)
    if not isinstance(pk, int) or isinstance(pk, bool):
        return None
    return Solver.objects.filter(pk=pk, user__isnull=True).first()


def current_or_new(request) -> Solver:
    solver = current(request)
    if solver is not None:
        return solver
    user = request.user if request.user.is_authenticated else None
    if user is not None:
        solver, _ = Solver.objects.get_or_create(user=user)
        return solver
    solver = Solver.objects.create()
    request.session[SESSION_KEY] = solver.pk
    return solver


def on_sign_in(sender, request, user, **kwargs) -> None:
    """``user_logged_in``: the session's solver becomes the account's, if it has none."""
    session = getattr(request, "session", None)
    if session is None:
        return
    pk = session.pop(SESSION_KEY, None)
    if not isinstance(pk, int) or Solver.objects.filter(user=user).exists():
        return
    Solver.objects.filter(pk=pk, user__isnull=True).update(user=user)


def rating_of(key: str) -> PuzzleRating | None:
    return PuzzleRating.objects.filter(key=key).first()


def ratings_of(game: str) -> dict[str, float]:
    """The rated puzzles of a game: key -> rating."""
    return dict(PuzzleRating.objects.filter(game=game).values_list("key", "rating"))


def attempt_of(solver: Solver | None, key: str) -> PuzzleAttempt | None:
    if solver is None:
        return None
    return PuzzleAttempt.objects.filter(solver=solver, key=key).first()


def tried(solver: Solver | None, game: str | None = None) -> dict[str, PuzzleAttempt]:
    """The solver's rated attempts, by puzzle key (of one game, if given)."""
    if solver is None:
        return {}
    found = PuzzleAttempt.objects.filter(solver=solver)
    if game is not None:
        found = found.filter(game=game)
    return {a.key: a for a in found}


@dataclass(frozen=True)
class Rated:
    attempt: PuzzleAttempt
    counted: bool  # False: an earlier first attempt stood, nothing changed


def record(request, puzzle: Puzzle, how: str) -> Rated:
    """Rate the visitor's first attempt at ``puzzle`` (``how``: one of PuzzleAttempt.HOW);
    if it is not their first, change nothing and return the first."""
    score = SCORES[how]
    solver = current_or_new(request)
    try:
        with transaction.atomic():
            solver = Solver.objects.select_for_update().get(pk=solver.pk)
            if PuzzleAttempt.objects.filter(solver=solver, key=puzzle.key).exists():
                raise _Already
            rated, _ = PuzzleRating.objects.get_or_create(
                key=puzzle.key, defaults={"game": puzzle.slug, "rating": float(puzzle.rating)}
            )
            rated = PuzzleRating.objects.select_for_update().get(pk=rated.pk)
            before, puzzle_before = solver.glicko, rated.glicko
            after, puzzle_after = glicko.game(before, puzzle_before, score)
            attempt = PuzzleAttempt.objects.create(
                solver=solver,
                key=puzzle.key,
                game=puzzle.slug,
                number=puzzle.n,
                how=how,
                score=score,
                rating_before=before.rating,
                rating_after=after.rating,
                deviation_before=before.deviation,
                deviation_after=after.deviation,
                puzzle_before=puzzle_before.rating,
                puzzle_after=puzzle_after.rating,
                puzzle_deviation_before=puzzle_before.deviation,
                puzzle_deviation_after=puzzle_after.deviation,
            )
            solver.rating, solver.deviation, solver.volatility = (
                after.rating,
                after.deviation,
                after.volatility,
            )
            solver.attempts += 1
            if how == PuzzleAttempt.SOLVED:
                solver.solved += 1
                solver.streak += 1
                solver.best_streak = max(solver.best_streak, solver.streak)
            elif score == 0:
                solver.streak = 0
            solver.save()
            rated.rating, rated.deviation, rated.volatility = (
                puzzle_after.rating,
                puzzle_after.deviation,
                puzzle_after.volatility,
            )
            rated.attempts += 1
            rated.solved += how == PuzzleAttempt.SOLVED
            rated.save()
            return Rated(attempt, True)
    except (_Already, IntegrityError):
        return Rated(PuzzleAttempt.objects.get(solver=solver, key=puzzle.key), False)


class _Already(Exception):
    pass
