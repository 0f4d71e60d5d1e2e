"""Puzzle solvers, puzzle ratings and rated attempts in the admin: to look at, not to
edit (a rating is the sum of its attempts)."""

from django.contrib import admin

from learn.models import PuzzleAttempt, PuzzleRating, Solver


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Solver)
class SolverAdmin(ReadOnly):
    list_display = ["__str__", "user", "rating", "deviation", "attempts", "streak", "best_streak"]
    search_fields = ["user__username"]


@admin.register(PuzzleRating)
class PuzzleRatingAdmin(ReadOnly):
    list_display = ["key", "game", "rating", "deviation", "attempts", "solved"]
    list_filter = ["game"]


@admin.register(PuzzleAttempt)
class PuzzleAttemptAdmin(ReadOnly):
    list_display = ["solver", "game", "number", "how", "rating_before", "rating_after"]
    list_filter = ["game", "how"]
