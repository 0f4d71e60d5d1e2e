"""The JSON the API tells of a game: the export (games.review.serialize_match, the admin's
and the command's one JSON form of a match) plus its state now (whose turn, the legal
moves, clocks, a draw offer) and, once it is over, each move's verdict.

Verdicts are given only for a finished game: in a game in play they would be a
perfect-play engine at the players' disposal.
"""

from __future__ import annotations

from django.utils import timezone

from games import clock
from games.models import Match
from games.review import ReplayError, replay_frames, serialize_match


def clocks(match: Match, now=None) -> list[dict]:
    now = now or timezone.now()
    to_move_seat = match.seat_of_player(match.current.to_move)
    return [
        {"seat": face.seat, "ms": face.ms, "running": face.runs}
        for face in clock.faces(match, to_move_seat, now)
    ]


def now_state(match: Match) -> dict:
    """What changes from one version of the match to the next (a stream's event)."""
    game, position = match.rules, match.current
    over = match.status == Match.Status.FINISHED
    return {
        "version": match.version,
        "ply": match.ply,
        "status": match.status,
        "position": game.to_json(position),
        "to_move": None if over else position.to_move,
        "to_move_seat": None if over else match.seat_of_player(position.to_move),
        "legal_moves": [] if over or position.over else game.legal_moves(position),
        "clock": clock.describe(match) or None,
        "clocks": clocks(match),
        "draw_offer_by_seat": match.draw_offer,
        "result": {
            "winner": match.winner,
            "winner_name": match.player_name(match.winner) if match.winner else None,
            "ending": match.ending or None,
            "reason": match.result_text,
        }
        if over
        else None,
    }


def verdicts(match: Match) -> list[dict] | None:
    if match.status != Match.Status.FINISHED:
        return None
    try:
        frames = replay_frames(match)
    except ReplayError:
        return None
    return [
        {
            "ply": frame.ply,
            "verdict": frame.verdict.verdict.value,
            "blunder": frame.verdict.blunder,
            "winner_after": frame.verdict.winner,
        }
        for frame in frames
        if frame.verdict is not None
    ]


def game_json(match: Match, *, judged: bool = True) -> dict:
    """``judged``: with each move's verdict (a finished game's; a list leaves them out)."""
    return {
        **serialize_match(match),
        "url": match.get_absolute_url(),
        "rated": match.rated,
        # The accounts in the seats (by seat), for a program to tell which is its own.
        "users": [
            user.get_username() if user else None for user in (match.seat1_user, match.seat2_user)
        ],
        "state": now_state(match),
        "verdicts": verdicts(match) if judged else None,
    }
