"""What a player does on a match's page, by form or by frame: one table, one definition each.

A page sends an action two ways: a POST to its address (games/views.py: without
JavaScript, and as the fallback while the page's socket is down) or a frame on the
match's websocket (games/consumers.py: ``{"type": "move", "move": "...", "ply": 5}``).
Both name the action and carry its fields, and both run it here: the fields read the
same way (a move without the ply its player saw is refused, whatever carried it), the
same write-path function runs (games/play.py: seats, turn, stale ply, rules), and a
refusal is the same typed ``Refused`` with the same sentence. What differs is only the
answer's envelope (an HTTP response, or a frame to the mover's socket).

The API (api/routes/games.py) has typed bodies of its own and calls games.play directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from games import play
from games.models import Match
from games.play import Actor
from games.rights import NoBoard


@dataclass(frozen=True)
class Action:
    """One action: its write-path call, and what follows it at once (against the
    computer, a draw offer is answered in the same step)."""

    run: Callable[[str, Actor, Mapping], Match]
    then: Callable[[str], Match | None] | None = None


def ply_of(data: Mapping) -> int:
    """The ply a move's sender saw: a whole number (a form's digits, a frame's number)."""
    value = data.get("ply")
    if isinstance(value, bool):
        raise NoBoard()
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 12:
        return int(value)
    raise NoBoard()


def _text(data: Mapping, field: str) -> str:
    value = data.get(field, "")
    return value if isinstance(value, str) else ""


ACTIONS: dict[str, Action] = {
    "move": Action(
        lambda public_id, by, data: play.submit_move(
            public_id, by=by, text=_text(data, "move"), ply=ply_of(data)
        )
    ),
    "resign": Action(lambda public_id, by, data: play.resign(public_id, by=by)),
    "offer_draw": Action(
        lambda public_id, by, data: play.offer_draw(public_id, by=by),
        then=play.computer_answers_draw,
    ),
    "answer_draw": Action(
        lambda public_id, by, data: play.answer_draw(
            public_id, by=by, accept=_text(data, "answer") == "accept"
        )
    ),
    "withdraw_draw": Action(lambda public_id, by, data: play.withdraw_draw(public_id, by=by)),
    "abort": Action(lambda public_id, by, data: play.abort(public_id, by=by)),
    "claim": Action(
        lambda public_id, by, data: play.claim(
            public_id, by=by, win=_text(data, "result") != "draw"
        )
    ),
}


def perform(name: str, public_id: str, by: Actor, data: Mapping) -> Match:
    """Run the action ``name`` for ``by`` with its fields ``data``: the match as the write
    path left it (its boards drawn for the push on ``match.pushed``). Raises ``Refused``
    (nothing changed) or KeyError for a name that is no action."""
    action = ACTIONS[name]
    match = action.run(public_id, by, data)
    if action.then is not None:
        answered = action.then(public_id)
        if answered is not None:  # e.g. the computer declined the offer: told on it
            match = answered
    return match
