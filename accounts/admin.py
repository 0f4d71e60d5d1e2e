"""Accounts in the admin: Django's user admin, with each account's games.

The games are shown, never edited here: each links to its match's admin page (where the
move log is read-only) and the whole list to the matches filtered by the account. An
account's seat secret is never shown. Deleting an account leaves its matches and their
move logs as they are (their seats lose the account).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts import bots, devices, my_games
from accounts.forms import AdminSignInForm
from accounts.models import Device
from games.models import Match
from ratings.admin import RatingChangeInline, RatingInline

User = get_user_model()
RECENT_SHOWN = 20

admin.site.unregister(User)
# The admin's sign-in refuses an over-long user name before it authenticates, as the site's.
admin.site.login_form = AdminSignInForm


class DeviceInline(admin.TabularInline):
    """Where the account is signed in (read-only; the session key is never shown)."""

    model = Device
    extra = 0
    can_delete = False
    fields = ("browser", "signed_in_at", "address")
    readonly_fields = fields
    verbose_name = "signed-in browser"

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="browser")
    def browser(self, device) -> str:
        return devices.describe(device.user_agent)


@admin.register(User)
class AccountAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Games", {"fields": ("games_summary", "recent_games")}),
    )
    readonly_fields = ("games_summary", "recent_games")
    list_display = (*UserAdmin.list_display, "is_bot", "date_joined", "last_login")
    list_filter = (*UserAdmin.list_filter, "profile__is_bot")
    list_select_related = ("profile",)
    # The account's rating per game and its history (read-only).
    inlines = [RatingInline, RatingChangeInline, DeviceInline]

    @admin.display(description="bot", boolean=True, ordering="profile__is_bot")
    def is_bot(self, user) -> bool:
        return bots.is_bot(user)

    @admin.display(description="games")
    def games_summary(self, user) -> str:
        if user.pk is None:
            return "—"
        results = Match.objects.results_for(user.pk)
        counts = Match.objects.filter(my_games.of(user.pk)).aggregate(
            total=Count("pk"),
            ongoing=Count("pk", filter=~Q(status=Match.Status.FINISHED)),
            **{
                name: Count("pk", filter=Q(status=Match.Status.FINISHED) & results[name])
                for name, _ in my_games.RESULT_CHOICES
            },
        )
        url = reverse("admin:games_match_changelist") + f"?account={user.pk}"
        return format_html(
            '{} in all: {} ongoing; won {}, lost {}, drawn {}, other {}. <a href="{}">All of '
            "this account's matches</a>",
            counts["total"],
            counts["ongoing"],
            counts["won"],
            counts["lost"],
            counts["drawn"],
            counts["other"],
            url,
        )

    @admin.display(description=f"latest {RECENT_SHOWN} matches")
    def recent_games(self, user) -> str:
        if user.pk is None:
            return "—"
        matches = (
            Match.objects.filter(my_games.of(user.pk))
            .select_related("seat1_user", "seat2_user")
            .order_by("-created_at", "-pk")[:RECENT_SHOWN]
        )
        rows = []
        for match in matches:
            row = my_games.row(match, user.pk)
            rows.append(
                (
                    reverse("admin:games_match_change", args=[match.pk]),
                    row.title,
                    match.public_id,
                    row.opponent,
                    row.result.capitalize() if row.result else match.get_status_display(),
                    match.created_at.strftime("%Y-%m-%d %H:%M"),
                )
            )
        if not rows:
            return "No matches yet."
        return format_html(
            '<ul class="account-games">{}</ul>',
            format_html_join(
                "",
                '<li><a href="{}">{} {}</a> · {} · {} · {}</li>',
                rows,
            ),
        )
