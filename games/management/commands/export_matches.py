"""Export matches as a JSON list, in the same form as the admin action and the match link.

    python manage.py export_matches --game bit-flip --status finished \\
        --since 2026-01-01 --until 2026-01-31 --output january.json

Dates filter on the day each match was created (UTC), both ends included.
"""

from __future__ import annotations

import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from games import review
from games.models import Match
from games.rules import all_games


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{value!r} is not a date: write it as YYYY-MM-DD.") from None


class Command(BaseCommand):
    help = "Export matches (options, players, moves with their times, result) as JSON."

    def add_arguments(self, parser):
        parser.add_argument("--game", help="only this game (its slug, e.g. bit-flip)")
        parser.add_argument("--status", help=f"only this status: {', '.join(Match.Status.values)}")
        parser.add_argument("--since", help="created on or after this day, YYYY-MM-DD")
        parser.add_argument("--until", help="created on or before this day, YYYY-MM-DD")
        parser.add_argument("--output", help="write to this file instead of standard output")

    def handle(self, *args, game=None, status=None, since=None, until=None, output=None, **opts):
        matches = Match.objects.order_by("created_at", "pk")
        if game:
            slugs = [g.slug for g in all_games()]
            if game not in slugs:
                raise CommandError(f"No game {game!r}; the games are: {', '.join(slugs)}.")
            matches = matches.filter(game=game)
        if status:
            if status not in Match.Status.values:
                raise CommandError(
                    f"No status {status!r}; the statuses are: {', '.join(Match.Status.values)}."
                )
            matches = matches.filter(status=status)
        if since:
            matches = matches.filter(created_at__date__gte=_day(since))
        if until:
            matches = matches.filter(created_at__date__lte=_day(until))

        if output:
            stream = open(output, "w", encoding="utf-8")  # noqa: SIM115 - closed below
            write = stream.write
        else:
            stream = None
            write = lambda text: self.stdout.write(text, ending="")  # noqa: E731
        count = 0
        try:
            write("[")
            for match in review.export_queryset(matches).iterator(chunk_size=200):
                write(",\n" if count else "\n")
                write(json.dumps(review.serialize_match(match), indent=2))
                count += 1
            write("\n]\n" if count else "]\n")
        finally:
            if stream is not None:
                stream.close()
        if output:
            plural = "match" if count == 1 else "matches"
            self.stderr.write(f"Exported {count} {plural} to {output}.")
