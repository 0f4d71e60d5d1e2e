from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"
    verbose_name = "Chat"

    def ready(self):
        from chat import admin, panel
        from games import extras

        extras.register_match_panel(panel.ChatPanel())
        extras.register_admin_inline(admin.MessageInline)
