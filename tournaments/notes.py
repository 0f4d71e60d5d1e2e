"""What a tournament's game says of its event: above its board, and under its result."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.translation import gettext

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
    notes = []
    if pairing.round and match.ending == Match.Ending.ABORTED and pairing.won_by in (1, 2):
        # The director's score of the game (director._won_by): in a Swiss event an aborted
        # game is lost by the player who did not make a first move.
        notes.append(
            format_html(
                gettext(
                    "The game itself has no result, but the Swiss tournament scores it: "
                    "{loser} did not make a first move, so {winner} scores the win."
                ),
                loser=match.player_name(3 - pairing.won_by),
                winner=match.player_name(pairing.won_by),
            )
        )
    notes.append(
        format_html(
            gettext('<a href="{url}">Back to {name}</a> for your next game.'),
            url=t.get_absolute_url(),
            name=t.name,
        )
    )
    return notes
