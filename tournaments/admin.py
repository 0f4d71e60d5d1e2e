"""Tournaments in the admin: staff create events (through the write path) and review them."""

from __future__ import annotations

from django.contrib import admin, messages

from tournaments import director
from tournaments.models import Entry, Lease, Pairing, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    can_delete = False
    fields = (
        "rank",
        "name",
        "rating",
        "score",
        "games",
        "results",
        "active",
        "buchholz",
        "sonneborn_berger",
    )
    readonly_fields = fields
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


class PairingInline(admin.TabularInline):
    model = Pairing
    extra = 0
    can_delete = False
    fields = ("round", "first", "second", "match", "won_by", "scored")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "game", "status", "starts_at", "rated", "round")
    list_filter = ("kind", "status", "game", "rated")
    search_fields = ("name", "public_id")
    date_hierarchy = "starts_at"
    inlines = [EntryInline, PairingInline]
    readonly_fields = (
        "public_id",
        "status",
        "round",
        "round_started_at",
        "ended_at",
        "note",
        "created_by",
        "schedule_key",
        "version",
    )
    fields = (
        "name",
        "kind",
        "game",
        "clock_base",
        "clock_increment",
        "rated",
        "starts_at",
        "minutes",
        "rounds",
        *readonly_fields,
    )

    def get_inlines(self, request, obj=None):
        return self.inlines if obj is not None else []  # a new event has no players yet

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return self.readonly_fields
        # Once made, an event's terms are its players': only its name may change.
        return (
            *self.readonly_fields,
            "kind",
            "game",
            "clock_base",
            "clock_increment",
            "rated",
            "starts_at",
            "minutes",
            "rounds",
        )

    def save_model(self, request, obj, form, change):
        if change:  # the name only, through the write path
            director.rename(obj.public_id, obj.name)
            return
        try:
            made = director.create(
                name=obj.name,
                kind=obj.kind,
                game=obj.game,
                starts_at=obj.starts_at,
                minutes=obj.minutes,
                rounds=obj.rounds,
                base=obj.clock_base,
                increment=obj.clock_increment,
                rated=obj.rated,
            )
        except ValueError as error:
            messages.error(request, str(error))
            raise
        obj.pk, obj.public_id = made.pk, made.public_id
        obj._state.adding = False


@admin.register(Lease)
class LeaseAdmin(admin.ModelAdmin):
    list_display = ("name", "holder", "expires_at")
    readonly_fields = ("name", "holder", "expires_at")

    def has_add_permission(self, request):
        return False
