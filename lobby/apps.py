from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self):
        from games.signals import match_changed
        from lobby import live

        match_changed.connect(live.on_match_changed, dispatch_uid="lobby.live")
