from django.apps import AppConfig


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "API"

    def ready(self):
        from api import live
        from games import signals
        from people import signals as people_signals

        signals.match_changed.connect(live.match_changed, dispatch_uid="api.live")
        people_signals.challenge_changed.connect(live.challenge_changed, dispatch_uid="api.live")
