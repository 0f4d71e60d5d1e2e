from django.apps import AppConfig
from django.core import checks


class PeopleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "people"
    verbose_name = "People"

    def ready(self):
        from games import signals
        from people import notifications
        from tournaments import signals as tournament_signals

        signals.match_changed.connect(notifications.match_changed, dispatch_uid="people.notify")
        tournament_signals.tournament_started.connect(
            notifications.tournament_started, dispatch_uid="people.notify"
        )
        checks.register(vapid_settings)


def vapid_settings(app_configs, **kwargs):
    """A VAPID key or subject set but unusable stops start-up with the reason (pushes
    would all fail)."""
    from django.conf import settings

    from people import push

    errors = []
    if settings.VAPID_PRIVATE_KEY and (problem := push.key_problem(settings.VAPID_PRIVATE_KEY)):
        errors.append(
            checks.Error(
                f"BITSITE_VAPID_PRIVATE_KEY cannot be used: {problem}.",
                hint="Give the raw 32-byte P-256 private key or its DER, base64url-encoded "
                "(docs/operations.md, Web Push), or unset it to use the one kept in the "
                "database.",
                id="people.E001",
            )
        )
    if not settings.VAPID_SUBJECT.startswith(("mailto:", "https://")):
        errors.append(
            checks.Error(
                "BITSITE_VAPID_SUBJECT must be a mailto: or https: address "
                f"(not {settings.VAPID_SUBJECT!r}).",
                hint="For example mailto:admin@bitsite.example.org",
                id="people.E002",
            )
        )
    return errors
