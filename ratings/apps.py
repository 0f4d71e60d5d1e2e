from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self):
        from games import extras, signals
        from ratings.notes import rating_notes
        from ratings.results import on_match_finished

        signals.match_finished.connect(on_match_finished, dispatch_uid="ratings.results")
        extras.register_end_note(rating_notes)
