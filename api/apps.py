from django.apps import AppConfig


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "API"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from accounts.models import Profile
        from api import live
        from api.models import Token
        from games import signals
        from people import signals as people_signals

        signals.match_changed.connect(live.match_changed, dispatch_uid="api.live")
        people_signals.challenge_changed.connect(live.challenge_changed, dispatch_uid="api.live")
        # A token revoked, an account closed, a bot made: the open streams end at once.
        post_save.connect(live.token_saved, sender=Token, dispatch_uid="api.live")
        for model in (get_user_model(), Profile):
            post_save.connect(live.account_saved, sender=model, dispatch_uid="api.live")
