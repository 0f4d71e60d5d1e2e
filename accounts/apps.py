from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from accounts import live, signin
        from games.signals import match_changed

        user_logged_in.connect(signin.on_login, dispatch_uid="accounts.take_seats")
        match_changed.connect(live.match_changed, dispatch_uid="accounts.my_games")
