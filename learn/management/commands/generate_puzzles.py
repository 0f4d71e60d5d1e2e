"""Write each game's puzzles to learn/puzzles_data/<slug>.json, from the fixed seed:

    python manage.py generate_puzzles            # every game
    python manage.py generate_puzzles --check    # fail if a file differs from what it makes

The same seed makes the same files (learn/puzzles.py); tests check the committed files
equal what this writes.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.rules import GAMES
from learn import puzzles


class Command(BaseCommand):
    help = "Generate each game's puzzles from the fixed seed into learn/puzzles_data/."

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Write nothing; fail if a committed file differs from what would be written.",
        )

    def handle(self, *args, check=False, **options):
        puzzles.DATA.mkdir(exist_ok=True)
        stale = []
        for game in GAMES:
            made = puzzles.generate(game)
            text = puzzles.dumps(puzzles.document(game, made))
            path = puzzles.path_for(game)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if check:
                if old != text:
                    stale.append(path.name)
                continue
            if old != text:
                path.write_text(text, encoding="utf-8")
            self.stdout.write(f"{game.slug}: {len(made)} puzzle(s) in {path.name}")
        if stale:
            raise CommandError(f"Out of date: {', '.join(stale)} (run generate_puzzles).")
        puzzles.puzzles_of.cache_clear()
