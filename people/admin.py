"""Challenges and blocks in the admin, read-only: they change only through the site
(people/challenges.py), which tells both players' pages. Push subscriptions are listed
(with their failures) and may be deleted; the notification choices are read-only."""

from __future__ import annotations

from django.contrib import admin

from people.models import Block, Challenge, NotificationPreference, PushSubscription


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Challenge)
class ChallengeAdmin(ReadOnly):
    list_display = ("public_id", "challenger", "challenged", "game", "status", "created_at")
    list_filter = ("status", "game")
    search_fields = ("public_id", "challenger__username", "challenged__username")
    raw_id_fields = ("challenger", "challenged", "match")


@admin.register(Block)
class BlockAdmin(ReadOnly):
    list_display = ("blocker", "blocked", "created_at")
    search_fields = ("blocker__username", "blocked__username")
    raw_id_fields = ("blocker", "blocked")


@admin.register(PushSubscription)
class PushSubscriptionAdmin(ReadOnly):
    list_display = ("user", "user_agent", "created_at", "last_success_at", "failures")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    exclude = ("p256dh", "auth")


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(ReadOnly):
    list_display = ("user", "push", "email", "updated_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
