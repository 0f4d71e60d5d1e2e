from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from games import extras, signals
        from tournaments import director, next_game, notes

        signals.match_finished.connect(director.on_match_finished, dispatch_uid="tournaments")
        extras.register_end_note(notes.end_note)
        extras.register_match_note(notes.match_note)
        extras.register_match_panel(next_game.NextGamePanel())
