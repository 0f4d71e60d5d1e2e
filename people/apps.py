from django.apps import AppConfig


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"
    verbose_name = "People"

    def ready(self):
        from games import signals
        from people import notifications

        signals.match_changed.connect(notifications.match_changed, dispatch_uid="people.notify")
