"""The admin: find any past match, read its move log with every move's verdict, export.

Matches change only through games.play, so the admin never edits the game state:
a finished match is view-only (a POST to change it is refused), and of a match
still in play only the players' display names can be corrected. Moves are never
editable. Staff with the delete permission can delete a match.
"""

from __future__ import annotations

import re

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.forms.models import BaseInlineFormSet
from django.http import JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from games import clock, extras, review
from games.models import Match, Move
from games.presenters import presenter_for

admin.site.site_header = "bitsite admin"
admin.site.site_title = "bitsite admin"
admin.site.index_title = "Matches and their moves"

# A match page lists every move of a match up to this long; of a longer one, the
# first and last INLINE_EDGE moves (the replay shows all of them).
INLINE_LIMIT = 300
INLINE_EDGE = 100


def shown_plies(match: Match) -> Q:
    """The moves a match's admin page lists."""
    if match.ply <= INLINE_LIMIT:
        return Q()
    return Q(ply__lte=INLINE_EDGE) | Q(ply__gt=match.ply - INLINE_EDGE)


def _shortened(items: list, keep: int = 10) -> list:
    """A nested list of related objects, each level cut to ``keep`` entries and a count."""
    out, shown = [], 0
    for item in items:
        if isinstance(item, list):  # the objects under the item before it
            if shown <= keep:
                out.append(_shortened(item, keep))
            continue
        shown += 1
        if shown <= keep:
            out.append(item)
    if shown > keep:
        out.append(f"… and {shown - keep:,} more")
    return out


class ReviewedMoveFormSet(BaseInlineFormSet):
    """The match's moves, each with its replayed frame: one replay of the log per page,
    not one analysis per row."""

    def get_queryset(self):
        if not hasattr(self, "_reviewed"):
            moves = list(super().get_queryset())
            frames = {}
            if moves and self.instance.pk:
                frames = {
                    frame.ply: frame
                    for frame in review.replay_frames(self.instance, [m.ply for m in moves])
                }
            for move in moves:
                move.match = self.instance
                move.frame = frames.get(move.ply)
            self._reviewed = moves
        return self._reviewed


class MoveInline(admin.TabularInline):
    model = Move
    formset = ReviewedMoveFormSet
    fields = readonly_fields = (
        "ply",
        "player_name",
        "move_text",
        "move_words",
        "position_after",
        "created_at",
        "time_used",
        "verdict",
    )
    ordering = ("ply",)
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name = "move"
    verbose_name_plural = "move log"
    # Django's tabular inline, without the caption it writes above every row.
    template = "admin/games/move_log.html"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="time used")
    def time_used(self, move: Move) -> str:
        return review.time_text(move.time_ms) or "—"

    @admin.display(description="player")
    def player_name(self, move: Move) -> str:
        return move.match.player_name(move.player)

    @admin.display(description="move")
    def move_text(self, move: Move) -> str:
        return move.text

    @admin.display(description="in words")
    def move_words(self, move: Move) -> str:
        frame = getattr(move, "frame", None)
        return presenter_for(move.match.rules).describe(
            move.text, frame.position if frame else None
        )

    @admin.display(description="position after the move")
    def position_after(self, move: Move) -> str:
        frame = getattr(move, "frame", None)
        return review.position_text(move.match.rules, frame.position) if frame else "—"

    @admin.display(description="verdict (exact analysis)")
    def verdict(self, move: Move) -> str:
        frame = getattr(move, "frame", None)
        if frame is None:
            return "—"
        label = frame.verdict.verdict.label
        return f"{label} (a blunder)" if frame.verdict.blunder else label


class AccountFilter(admin.SimpleListFilter):
    """The matches of one account, in either seat (``?account=<user id>``: an account's
    admin page links here). Offered only once chosen: listing every account would not do."""

    title = "account"
    parameter_name = "account"

    def account_id(self) -> int | None:
        """The chosen account's id, if the parameter is one (anything else is ignored)."""
        value = self.value() or ""
        return int(value) if re.fullmatch(r"[0-9]{1,18}", value) else None

    def lookups(self, request, model_admin):
        user_id = self.account_id()
        if user_id is None:
            return []
        user = get_user_model().objects.filter(pk=user_id).first()
        return [(str(user_id), user.get_username() if user else f"#{user_id} (no such account)")]

    def queryset(self, request, queryset):
        user_id = self.account_id()
        if user_id is not None:
            return queryset.filter(Q(seat1_user=user_id) | Q(seat2_user=user_id))
        return queryset


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "game",
        "options_text",
        "players",
        "mode",
        "status",
        "winner_name",
        "ending",
        "move_count",
        "created_at",
        "finished_at",
    )
    list_filter = (
        AccountFilter,
        "game",
        "status",
        "mode",
        "winner",
        "created_at",
        "finished_at",
    )
    search_fields = (
        "public_id",
        "seat1_name",
        "seat2_name",
        "seat1_user__username",
        "seat2_user__username",
    )
    date_hierarchy = "created_at"
    list_per_page = 50
    actions = ("export_json",)
    inlines = (MoveInline,)

    def get_inlines(self, request, obj):
        # The moves, and what the apps above games keep with a match (its chat).
        return (*self.inlines, *extras.admin_inlines())

    fieldsets = (
        (
            None,
            {
                "fields": (
                    "public_id",
                    "review_links",
                    "game",
                    "options_text",
                    "mode",
                    "computer_level",
                    "first_seat",
                    "seat1_name",
                    "seat2_name",
                    "seat1_user",
                    "seat2_user",
                )
            },
        ),
        (
            "Result",
            {
                "fields": (
                    "status",
                    "winner_name",
                    "ending",
                    "result",
                    "time_control",
                    "move_count",
                    "created_at",
                    "started_at",
                    "finished_at",
                    "rematch",
                )
            },
        ),
        ("Position", {"fields": ("setup_now", "position_now", "position", "ply", "version")}),
    )
    # Everything but the display names: the game state changes only through games.play.
    readonly_fields = tuple(
        name
        for _, options in fieldsets
        for name in options["fields"]
        if name not in ("seat1_name", "seat2_name")
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(move_count=Count("moves"))

    def has_add_permission(self, request):
        return False  # matches are created by players, through games.play

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.status == Match.Status.FINISHED:
            return False
        return super().has_change_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        """The delete confirmation names a few moves per match, not all 100,000."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        return _shortened(deleted), counts, perms_needed, protected

    def get_formset_kwargs(self, request, obj, inline, prefix):
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if obj is not None and isinstance(inline, MoveInline):
            kwargs["queryset"] = kwargs["queryset"].filter(shown_plies(obj))
        return kwargs

    # ---- columns ---------------------------------------------------------------

    @admin.display(description="options")
    def options_text(self, match: Match) -> str:
        return match.options_summary()

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        return f"{match.player_name(1)} · {match.player_name(2)}"

    @admin.display(description="winner", ordering="winner")
    def winner_name(self, match: Match) -> str:
        return match.player_name(match.winner) if match.winner else "—"

    @admin.display(description="time control")
    def time_control(self, match: Match) -> str:
        return clock.describe(match) or "no clock"

    @admin.display(description="how it ended")
    def result(self, match: Match) -> str:
        return match.result_text or "—"

    @admin.display(description="moves", ordering="move_count")
    def move_count(self, match: Match) -> int:
        count = getattr(match, "move_count", None)
        return match.moves.count() if count is None else count

    @admin.display(description="started from")
    def setup_now(self, match: Match) -> str:
        return match.setup_text or "the game's start"

    @admin.display(description="position now")
    def position_now(self, match: Match) -> str:
        return review.position_text(match.rules, match.current)

    @admin.display(description="review")
    def review_links(self, match: Match) -> str:
        if match.pk is None:
            return "—"
        hidden = ""
        if match.ply > INLINE_LIMIT:
            hidden = (
                f" The move log below lists moves 1 to {INLINE_EDGE:,} and "
                f"{match.ply - INLINE_EDGE + 1:,} to {match.ply:,} of {match.ply:,}; "
                "the replay shows every move."
            )
        return format_html(
            '<a href="{}">Replay with every move\'s verdict</a> · '
            '<a href="{}">Export as JSON</a> · <a href="{}">Live page</a>{}',
            reverse("replay", args=[match.public_id]),
            reverse("export_match", args=[match.public_id]),
            match.get_absolute_url(),
            hidden,
        )

    # ---- export ------------------------------------------------------------------

    @admin.action(description="Export selected matches as JSON", permissions=["view"])
    def export_json(self, request, queryset):
        data = [review.serialize_match(match) for match in review.export_queryset(queryset)]
        response = JsonResponse(data, safe=False, json_dumps_params={"indent": 2})
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="bitsite-matches-{stamp}.json"'
        return response
