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
"""

from __future__ import annotations

import logging
from collections.abc import Callable

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
