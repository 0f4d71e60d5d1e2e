from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in, user_logged_out
        from django.db.models.signals import post_save

        from accounts import bots, devices, live, names, signin
        from games import extras
        from games import names as game_names
        from games.signals import match_changed

        user_logged_in.connect(signin.on_login, dispatch_uid="accounts.take_seats")
        user_logged_in.connect(devices.on_login, dispatch_uid="accounts.device_in")
        user_logged_out.connect(devices.on_logout, dispatch_uid="accounts.device_out")
        post_save.connect(names.user_saved, sender=get_user_model(), dispatch_uid="accounts.look")
        game_names.register_owner(names.owned)
        match_changed.connect(live.match_changed, dispatch_uid="accounts.my_games")
        extras.register_seat_mark(bots.seat_marks)
