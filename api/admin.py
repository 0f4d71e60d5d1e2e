from django.contrib import admin

from api.models import Token


@admin.register(Token)
class TokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "name", "user", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "user__username")
    readonly_fields = ("prefix", "digest", "created_at", "last_used_at")
    raw_id_fields = ("user",)
