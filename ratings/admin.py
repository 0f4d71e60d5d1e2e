"""Ratings in the admin: read only. A rating is what its rated games made it, and each
change belongs to a match's result: nothing here may be added, edited or deleted (a
rated match cannot be deleted either while its changes stand: ``on_delete=PROTECT``).

``RatingInline`` and ``RatingChangeInline`` show a user's ratings and rating history on
the user's admin page (the accounts app's user admin lists them in its ``inlines``).
"""

from __future__ import annotations

from django.contrib import admin
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils.html import format_html

from ratings.models import Rating, RatingChange

HISTORY_SHOWN = 50  # the newest rating changes a user's admin page lists


class ReadOnly:
    """No adding, changing or deleting: viewing only (for those who may view)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def _match_link(change: RatingChange) -> str:
    match = change.match
    return format_html(
        '<a href="{}">{}</a> (<a href="{}">replay</a>)',
        reverse("admin:games_match_change", args=[match.pk]),
        match.public_id,
        reverse("replay", args=[match.public_id]),
    )


def _result(change: RatingChange) -> str:
    return {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(change.score, str(change.score))


@admin.register(Rating)
class RatingAdmin(ReadOnly, admin.ModelAdmin):
    list_display = (
        "user",
        "game",
        "shown_rating",
        "deviation_text",
        "volatility",
        "games",
        "wins",
        "losses",
        "draws",
        "updated_at",
    )
    list_filter = ("game",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("game", "-rating")
    fields = readonly_fields = (
        "user",
        "game",
        "shown_rating",
        "rating",
        "deviation",
        "volatility",
        "games",
        "wins",
        "losses",
        "draws",
        "updated_at",
    )

    @admin.display(description="rating (? provisional)", ordering="rating")
    def shown_rating(self, row: Rating) -> str:
        return row.shown

    @admin.display(description="deviation", ordering="deviation")
    def deviation_text(self, row: Rating) -> str:
        return f"{row.deviation:.1f}"


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("created_at", "user", "game", "match_link", "result", "before", "after")
    list_filter = ("game", "created_at")
    search_fields = ("user__username", "match__public_id")
    list_select_related = ("user", "match")
    date_hierarchy = "created_at"
    fields = readonly_fields = (
        "match_link",
        "user",
        "game",
        "result",
        "rating_before",
        "rating_after",
        "deviation_before",
        "deviation_after",
        "volatility_before",
        "volatility_after",
        "created_at",
    )

    @admin.display(description="match")
    def match_link(self, change: RatingChange) -> str:
        return _match_link(change)

    @admin.display(description="result")
    def result(self, change: RatingChange) -> str:
        return _result(change)

    @admin.display(description="before")
    def before(self, change: RatingChange) -> str:
        return change.shown_before

    @admin.display(description="after (change)")
    def after(self, change: RatingChange) -> str:
        return f"{change.shown_after} ({change.delta_text})"


class _NewestChanges(BaseInlineFormSet):
    """A user's newest HISTORY_SHOWN rating changes (the list of all is a filter away)."""

    def get_queryset(self):
        if not hasattr(self, "_newest"):
            self._newest = list(super().get_queryset()[:HISTORY_SHOWN])
        return self._newest


class RatingInline(ReadOnly, admin.TabularInline):
    model = Rating
    fk_name = "user"
    fields = readonly_fields = ("game", "shown_rating", "deviation", "games", "record")
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name_plural = "ratings"

    @admin.display(description="rating (? provisional)")
    def shown_rating(self, row: Rating) -> str:
        return row.shown

    @admin.display(description="wins / losses / draws")
    def record(self, row: Rating) -> str:
        return f"{row.wins} / {row.losses} / {row.draws}"


class RatingChangeInline(ReadOnly, admin.TabularInline):
    model = RatingChange
    fk_name = "user"
    formset = _NewestChanges
    fields = readonly_fields = ("created_at", "game", "match_link", "result", "before", "after")
    ordering = ("-created_at", "-pk")
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name = "rating change"
    verbose_name_plural = f"rating history (the newest {HISTORY_SHOWN})"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("match")

    @admin.display(description="match")
    def match_link(self, change: RatingChange) -> str:
        return _match_link(change)

    @admin.display(description="result")
    def result(self, change: RatingChange) -> str:
        return _result(change)

    @admin.display(description="before")
    def before(self, change: RatingChange) -> str:
        return change.shown_before

    @admin.display(description="after (change)")
    def after(self, change: RatingChange) -> str:
        return f"{change.shown_after} ({change.delta_text})"
