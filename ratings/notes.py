"""The rating changes at the end of a rated game, on its board and its replay: one note,
"Ratings: ada 1512 (+12), bob 1488 (-12)" ("1500?" while provisional), each name linking
to the player's page. Registered with games.extras, which asks only of finished matches; only
a rated one costs a query here, so the pushes of moves and of unrated games cost none."""

from __future__ import annotations

from django.urls import reverse
from django.utils.html import format_html, format_html_join

from games.models import Match
from ratings.models import RatingChange


def rating_notes(match: Match) -> list:
    if not match.rated or match.status != Match.Status.FINISHED:
        return []
    changes = {
        change.user_id: change
        for change in RatingChange.objects.filter(match_id=match.pk).select_related("user")
    }
    rows = []
    for player in (1, 2):
        change = changes.get(match.seat_user_id(match.seat_of_player(player)))
        if change is not None:
            name = change.user.get_username()
            url = reverse("player", args=[name])
            rows.append((player, url, name, change.shown_after, change.delta_text))
    if not rows:
        return []
    shown = format_html_join(
        ", ",
        '<span class="rating-change" data-player="{}"><a href="{}">{}</a> {} ({})</span>',
        rows,
    )
    return [format_html('<span id="rating-changes">Ratings: {}</span>', shown)]
