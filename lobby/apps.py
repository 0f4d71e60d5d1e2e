from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lobby"
    verbose_name = "Lobby"

    def ready(self):
        from games.signals import match_changed, spectators_counted
        from lobby import live

        match_changed.connect(live.on_match_changed, dispatch_uid="lobby.live")
        spectators_counted.connect(live.on_spectators_counted, dispatch_uid="lobby.watchers")
