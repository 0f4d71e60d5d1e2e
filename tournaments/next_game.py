"""A tournament game's page tells its player when their next game of the event starts.

A player who finished a game of an arena (or of a Swiss round) and stays on its page is
paired again as one whose page is open (director._present): that page says so, live,
with a link to the new game. Registered with games.extras as a match panel: on the page
and in a socket's first frame, the part as this player's seat sees it (empty while no
newer game of theirs is in play); when a pairing commits, tournaments.live.paired sends
it to the seat's sockets of the game the player last finished (games.live.send_fragment),
drawn from the rows the write held. Spectators and the other games' pages draw nothing.
"""

from __future__ import annotations

from django.template.loader import render_to_string

from games.live import send_fragment
from games.models import Match
from games.rights import Viewer
from tournaments import live
from tournaments.director import EVENT_PREFIX
from tournaments.models import Entry, Tournament

PART = "t-next"


def render(tournament: Tournament | None, next_match: Match | None, *, oob: bool = False) -> str:
    html = render_to_string("tournaments/_next.html", {"t": tournament, "next": next_match})
    return live.oob(html) if oob else html


def _drawn(match: Match, viewer: Viewer, *, oob: bool) -> str:
    if len(viewer.seats) != 1 or not match.event.startswith(EVENT_PREFIX):
        return ""
    if match.status != Match.Status.FINISHED:  # no next game while this one is on
        return "" if oob else render(None, None)
    (seat,) = viewer.seats
    entry = (
        Entry.objects.filter(
            tournament__public_id=match.event.removeprefix(EVENT_PREFIX),
            user_id=match.seat_user_id(seat),
        )
        .select_related("tournament", "playing")
        .first()
    )
    if entry is None:
        return ""
    newer = entry.playing
    if newer is None or newer.pk == match.pk or newer.status != Match.Status.PLAYING:
        newer = None
    return render(entry.tournament, newer, oob=oob)


def sent_after(tournament: Tournament, entry: Entry) -> None:
    """A pairing committed: ``entry``'s player is told on the page of the game they last
    finished (if the write read it: ``last_game_public_id`` and ``last_game_seat1``)."""
    last = getattr(entry, "last_game_public_id", None)
    if not last or entry.playing is None:
        return
    seat = 1 if getattr(entry, "last_game_seat1", None) == entry.user_id else 2
    html = render(tournament, entry.playing, oob=True)
    send_fragment(last, Viewer(frozenset({seat})).key, PART, html)


class NextGamePanel:
    def page(self, match: Match, viewer: Viewer, request) -> str:
        return _drawn(match, viewer, oob=False)

    def socket(self, match: Match, viewer: Viewer) -> str:
        return _drawn(match, viewer, oob=True)

    def replay(self, match: Match, viewer: Viewer, request) -> str:
        return ""
