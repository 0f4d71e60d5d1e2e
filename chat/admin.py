"""Moderation: the reports (with the messages around each, as they were), every message
(hide, show again), and the site-wide mutes. A match's admin page lists its chat too."""

from __future__ import annotations

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from chat import talk
from chat.models import Message, Report, Silence


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("created_at", "room", "name", "user", "text", "hidden", "shadowed")
    readonly_fields = ("created_at", "room", "name", "user", "text", "shadowed")
    extra = 0
    can_delete = False
    show_change_link = True
    verbose_name_plural = "Chat"

    def has_add_permission(self, request, obj=None):
        return False


def _mute_authors(modeladmin, request, messages_qs, hours: float):
    authors = {m.user for m in messages_qs.select_related("user") if m.user is not None}
    for user in authors:
        talk.silence(user, hours, "from the admin", request.user)
    modeladmin.message_user(
        request,
        f"Muted {len(authors)} account{'s' if len(authors) != 1 else ''} for {hours:g} hours"
        + (" (messages of anonymous seats have no account to mute)." if not authors else "."),
        messages.SUCCESS if authors else messages.WARNING,
    )


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "match_link",
        "room",
        "name",
        "user",
        "text",
        "hidden",
        "shadowed",
    )
    list_filter = ("room", "hidden", "shadowed", "created_at")
    search_fields = ("text", "name", "user__username", "match__public_id")
    readonly_fields = (
        "match",
        "room",
        "seat",
        "user",
        "name",
        "text",
        "address",
        "created_at",
        "shadowed",
    )
    fields = (*readonly_fields, "hidden")
    actions = ("hide", "show", "mute_day", "mute_week")
    list_select_related = ("match", "user")
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    @admin.display(description="match")
    def match_link(self, obj):
        url = reverse("admin:games_match_change", args=[obj.match_id])
        return format_html('<a href="{}">{}</a>', url, obj.match.public_id)

    def save_model(self, request, obj, form, change):
        if change and "hidden" in form.changed_data:
            talk.hide(Message.objects.filter(pk=obj.pk), obj.hidden)
        # nothing else can change here

    @admin.action(description="Hide the selected messages")
    def hide(self, request, queryset):
        self.message_user(request, f"Hid {talk.hide(queryset, True)} messages.")

    @admin.action(description="Show the selected messages again")
    def show(self, request, queryset):
        self.message_user(request, f"Showed {talk.hide(queryset, False)} messages again.")

    @admin.action(description="Mute their authors in every chat for a day")
    def mute_day(self, request, queryset):
        _mute_authors(self, request, queryset, 24)

    @admin.action(description="Mute their authors in every chat for a week")
    def mute_week(self, request, queryset):
        _mute_authors(self, request, queryset, 24 * 7)


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "reason",
        "reported_text",
        "author",
        "by_name",
        "match_link",
        "resolved",
    )
    list_filter = ("resolved", "reason", "created_at")
    search_fields = ("message__text", "message__name", "by_name", "match__public_id")
    readonly_fields = (
        "message",
        "match_link",
        "reason",
        "by_user",
        "by_name",
        "created_at",
        "around",
    )
    fields = (*readonly_fields, "resolved")
    actions = ("hide_messages", "mute_authors", "resolve")
    list_select_related = ("message", "match", "message__user")

    def has_add_permission(self, request):
        return False

    @admin.display(description="message")
    def reported_text(self, obj):
        return obj.message.text

    @admin.display(description="author")
    def author(self, obj):
        return obj.message.user or obj.message.name

    @admin.display(description="match")
    def match_link(self, obj):
        url = reverse("admin:games_match_change", args=[obj.match_id])
        return format_html('<a href="{}">{}</a>', url, obj.match.public_id)

    @admin.display(description="what was said around it")
    def around(self, obj):
        rows = format_html_join(
            "",
            "<li{}><b>{}</b> {}{}</li>",
            (
                (
                    format_html(' style="{}"', "font-weight:bold") if m.get("reported") else "",
                    m.get("name", ""),
                    m.get("text", ""),
                    " (hidden)" if m.get("hidden") else "",
                )
                for m in obj.context
            ),
        )
        return format_html("<ol>{}</ol>", rows)

    @admin.action(description="Hide the reported messages")
    def hide_messages(self, request, queryset):
        ids = queryset.values_list("message_id", flat=True)
        hid = talk.hide(Message.objects.filter(pk__in=list(ids)), True)
        queryset.update(resolved=True)
        self.message_user(request, f"Hid {hid} messages.")

    @admin.action(description="Mute the authors in every chat for a day")
    def mute_authors(self, request, queryset):
        ids = queryset.values_list("message_id", flat=True)
        _mute_authors(self, request, Message.objects.filter(pk__in=list(ids)), 24)
        queryset.update(resolved=True)

    @admin.action(description="Mark resolved")
    def resolve(self, request, queryset):
        queryset.update(resolved=True)


@admin.register(Silence)
class SilenceAdmin(admin.ModelAdmin):
    list_display = ("user", "until", "reason", "by", "created_at")
    search_fields = ("user__username", "reason")
    autocomplete_fields = ("user",)
    readonly_fields = ("by", "created_at")

    def save_model(self, request, obj, form, change):
        if not change:
            obj.by = request.user
        super().save_model(request, obj, form, change)
