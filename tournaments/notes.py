"""What a tournament's game says of its event: above its board, and under its result."""

from __future__ import annotations

from django.utils.html import format_html

from games.models import Match
from tournaments.director import EVENT_PREFIX
from tournaments.models import Pairing


def _pairing(match: Match) -> Pairing | None:
    if not match.event.startswith(EVENT_PREFIX):
        return None
    return Pairing.objects.filter(match=match).select_related("tournament").first()


def match_note(match: Match) -> list:
    """ "A game of the arena «Hourly Bit Flip»" (Swiss: "round 2 of ..."), linked."""
    pairing = _pairing(match)
    if pairing is None:
        return []
    t = pairing.tournament
    where = (
        f"Round {pairing.round} of the Swiss tournament" if pairing.round else "A game of the arena"
    )
    return [format_html('{} <a href="{}">{}</a>', where, t.get_absolute_url(), t.name)]


def end_note(match: Match) -> list:
    pairing = _pairing(match)
    if pairing is None:
        return []
    t = pairing.tournament
    return [
        format_html('<a href="{}">Back to {}</a> for your next game.', t.get_absolute_url(), t.name)
    ]
