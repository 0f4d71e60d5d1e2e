"""``manage.py tournaments``: the tournaments' scheduler in a process of its own.

Every daphne process already runs it (tournaments/scheduler.py); this is for a deployment
that turns it off there (BITSITE_TOURNAMENT_SCHEDULER=0) and runs it here instead, and
``--once`` ticks once (a cron job, or a look at what is due).
"""

import contextlib

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournaments import scheduler


class Command(BaseCommand):
    help = "Run the tournaments' scheduler (make scheduled events, start and pair them)."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="tick once, then stop")

    def handle(self, *args, once=False, **options):
        if not settings.REDIS_URL:
            raise CommandError(
                "The scheduler runs outside daphne only with REDIS_URL set: it must "
                "see which players have a page open (an arena pauses those who have none), "
                "and without Redis only the server process knows. With the embedded default "
                "it runs inside daphne (BITSITE_TOURNAMENT_SCHEDULER, on by default)."
            )
        if once:
            held = scheduler.take_lease()
            advanced = scheduler.tick() if held else []
            self.stdout.write(
                f"lease {'held' if held else 'held by another process'}; "
                f"advanced {len(advanced)} tournament(s)"
            )
            return
        self.stdout.write("tournaments' scheduler running (Ctrl-C stops it)")
        with contextlib.suppress(KeyboardInterrupt):
            scheduler.scheduler.run()
