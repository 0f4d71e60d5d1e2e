from django.apps import AppConfig


class LearnConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "learn"
    verbose_name = "Learn"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from learn.solvers import on_sign_in

        user_logged_in.connect(on_sign_in, dispatch_uid="learn.solvers.on_sign_in")
