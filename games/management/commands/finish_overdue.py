"""Finish the matches whose clock has run out and that nobody is looking at.

Every request that reads or writes a match finishes it first if its clock ran out
(games/play.py settle_time), so nothing runs in the background; a correspondence game
whose players are both away would stay "in play" past its deadline until someone looks.
This command (from cron, say once an hour) looks at every one of them:

    python manage.py finish_overdue
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import timezone

from games import clock, play
from games.models import Match


class Command(BaseCommand):
    help = "Finish the matches whose clock has run out (correspondence games nobody looks at)."

    def handle(self, *args, **options):
        now = timezone.now()
        finished = 0
        playing = Match.objects.filter(status=Match.Status.PLAYING).exclude(clock="")
        for match in playing.iterator():
            seat = match.seat_of_player(match.current.to_move)
            if clock.flagged_seat(match, seat, now) is None:
                continue
            if play.settle_time(match).status == Match.Status.FINISHED:
                finished += 1
                self.stdout.write(
                    f"{match.public_id}: {Match.objects.get(pk=match.pk).result_text}"
                )
        self.stdout.write(f"{finished} match(es) finished on time.")
