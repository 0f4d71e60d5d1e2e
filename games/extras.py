"""Small registries through which the apps built on games add to what games draws.

``games`` never imports those apps; they register here (in their AppConfig.ready).

End notes: ``register_end_note(fn)``, ``fn(match)`` returning a list of texts (or
SafeStrings) shown under the result of a finished match, on its board (and in its live
pushes, drawn once per change with the rest of what every viewer shares) and in its
replay. Called only for finished matches; a note that fails is logged and left out:
the board is drawn without it.

Match notes: ``register_match_note(fn)``, ``fn(match)`` returning a list of texts (or
SafeStrings) shown above the board of any match, on its page and in its replay: what the
match belongs to (a tournament's game links to its event). A note that fails is left out.

Seat marks: ``register_seat_mark(fn)``, ``fn(match)`` returning a dict of seat to a
SafeString drawn after that seat's player on the board (a bot account's mark: accounts/
bots.py), read once per change with the rest of what every viewer shares. A mark that
fails is left out.

Match panels: ``register_match_panel(panel)``, an object with ``page(match, viewer,
request)`` returning the HTML drawn under the board of the match page (and ``replay(match,
viewer, request)`` under the replay's), and ``socket(match, viewer)`` returning the HTML a
match socket sends with the board as it opens or syncs (the panel's live parts as that kind
of viewer sees them; what an app pushes later it sends itself, as a ``page.fragment``
message to the kinds' groups: games/live.py ``send_fragment``). A panel that fails is
logged and left out: the page is drawn without it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.utils.html import format_html

from games.models import Match

log = logging.getLogger(__name__)

_end_notes: list[Callable[[Match], list]] = []
_match_notes: list[Callable[[Match], list]] = []


def register_end_note(fn: Callable[[Match], list]) -> Callable[[Match], list]:
    if fn not in _end_notes:
        _end_notes.append(fn)
    return fn


def end_notes(match: Match) -> tuple:
    """The notes under the result of a finished match (none while it is not over)."""
    if match.status != Match.Status.FINISHED:
        return ()
    notes = []
    for fn in _end_notes:
        try:
            notes.extend(fn(match))
        except Exception:
            log.exception("end note %r failed for match %s", fn, match.public_id)
    return tuple(notes)


def register_match_note(fn: Callable[[Match], list]) -> Callable[[Match], list]:
    if fn not in _match_notes:
        _match_notes.append(fn)
    return fn


def match_notes(match: Match) -> tuple:
    """The notes above the board of a match (what it belongs to)."""
    notes = []
    for fn in _match_notes:
        try:
            notes.extend(fn(match))
        except Exception:
            log.exception("match note %r failed for match %s", fn, match.public_id)
    return tuple(notes)


_seat_marks: list[Callable[[Match], dict]] = []


def register_seat_mark(fn: Callable[[Match], dict]) -> Callable[[Match], dict]:
    if fn not in _seat_marks:
        _seat_marks.append(fn)
    return fn


def seat_marks(match: Match) -> dict:
    """What is drawn after each seat's player on the board: seat -> HTML."""
    marks: dict = {}
    for fn in _seat_marks:
        try:
            for seat, html in fn(match).items():
                marks[seat] = format_html("{}{}", marks.get(seat, ""), html)
        except Exception:
            log.exception("seat mark %r failed for match %s", fn, match.public_id)
    return marks


_panels: list = []


def register_match_panel(panel) -> None:
    if panel not in _panels:
        _panels.append(panel)


def _drawn(what: str, match: Match, *args) -> str:
    parts = []
    for panel in _panels:
        try:
            parts.append(getattr(panel, what)(match, *args))
        except Exception:
            log.exception("match panel %r failed (%s) for match %s", panel, what, match.public_id)
    return "".join(parts)


def page_panels(match: Match, viewer, request) -> str:
    """The HTML under the board of a match's page, for this viewer."""
    return _drawn("page", match, viewer, request)


def replay_panels(match: Match, viewer, request) -> str:
    """The HTML under a match's replay, for this viewer."""
    return _drawn("replay", match, viewer, request)


def socket_panels(match: Match, viewer) -> str:
    """The panels' live parts for a socket of this kind of viewer (shared by its kind)."""
    return _drawn("socket", match, viewer)


_admin_inlines: list = []


def register_admin_inline(inline) -> None:
    """An inline shown on a match's admin page (an app's rows kept with the match)."""
    if inline not in _admin_inlines:
        _admin_inlines.append(inline)


def admin_inlines() -> tuple:
    return tuple(_admin_inlines)
