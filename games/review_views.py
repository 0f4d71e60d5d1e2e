"""The replay page and the one-match JSON export.

Every finished match has a public replay and export. A match still in play (or
waiting) is open only to staff who may view matches in the admin: its analysis
would be a hint for the game in progress. Everyone else gets a 404 with a plain
message, never match data.

The replay renders one ply at a time (``?ply=N``): htmx swaps the ``#replay``
partial, and without JavaScript the buttons are plain links.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from games import play, review
from games.boards import cells, remainder
from games.models import Match
from games.rights import NothingToReplay, replay_refusal
from games.rules import Verdict


def is_reviewer(user) -> bool:
    """Staff who may view matches in the admin: they may replay any match."""
    return user.is_active and user.is_staff and user.has_perm("games.view_match")


def open_to(user, match: Match) -> bool:
    return match.status == Match.Status.FINISHED or is_reviewer(user)


def _closed(request, match: Match, nothing: str = ""):
    """No replay: the match is not over, or (``nothing``, the reason) it ended before
    anything happened that a replay could show."""
    context = {"match": match, "nothing": nothing, "game": match.rules}
    return render(request, "games/replay_closed.html", context, status=404)


def _ply(value: str | None) -> int:
    try:
        return int(value or 0)
    except ValueError:
        return 0


def verdict_class(verdict) -> str:
    if verdict is None:
        return ""
    if verdict.blunder or verdict.verdict is Verdict.LOSES_AT_ONCE:
        return "bad"
    if verdict.verdict in (Verdict.KEEPS_WIN, Verdict.SAFE):
        return "good"
    return ""


def value_text(match: Match, analysis) -> str:
    """Who wins this position with perfect play, and in how many moves."""
    if analysis.winner is None:
        return analysis.note or "Nobody can force a win."
    name = match.player_name(analysis.winner)
    if analysis.plies == 0:
        return f"{name} has won."
    moves = "move" if analysis.plies == 1 else "moves"
    return f"{name} wins with perfect play, in {analysis.plies} {moves}."


def _row(match: Match, frame: review.Frame, current: int) -> dict:
    verdict = frame.verdict
    return {
        "ply": frame.ply,
        "current": frame.ply == current,
        "player": match.player_name(frame.move.player) if frame.move else "",
        "text": frame.move.text if frame.move else "",
        "took": review.time_text(frame.move.time_ms) if frame.move else "",
        "verdict": verdict,
        "verdict_class": verdict_class(verdict),
    }


def _winner_name(match: Match, winner: int | None) -> str:
    return match.player_name(winner) if winner else "nobody"


@require_GET
def replay(request, public_id):
    match = play.settle_time(get_object_or_404(Match, public_id=public_id))
    if not open_to(request.user, match):
        return _closed(request, match)
    refusal = replay_refusal(match)
    if isinstance(refusal, NothingToReplay):
        return _closed(request, match, nothing=refusal.message)
    seen = review.review(match, _ply(request.GET.get("ply")))
    frame, summary, last = seen.frame, seen.summary, seen.last_ply
    game = match.rules
    pos = frame.position
    context = {
        "match": match,
        "game": game,
        "pos": pos,
        "cells": cells(game.slug, pos, [], set()),
        "remainder": remainder(game.slug, pos),
        "board_template": f"games/boards/{game.slug}.html#position",
        "frame": frame,
        "last_ply": last,
        "nav": [
            (0 if frame.ply > 0 else None, "First", "first", "«"),
            (frame.ply - 1 if frame.ply > 0 else None, "Previous", "previous", "\u2039"),
            (frame.ply + 1 if frame.ply < last else None, "Next", "next", "\u203a"),
            (last if frame.ply < last else None, "Last", "last", "»"),
        ],
        "replay_url": reverse("replay", args=[match.public_id]),
        "mover": match.player_name(frame.move.player) if frame.move else "",
        "to_move": match.player_name(pos.to_move),
        "verdict_class": verdict_class(frame.verdict),
        "value": value_text(match, frame.analysis),
        "rows": [_row(match, f, frame.ply) for f in seen.window],
        "earlier": seen.window[0].ply if seen.window else 0,
        "later": last - seen.window[-1].ply if seen.window else 0,
        "summary": summary,
        "judged": summary.last_ply - summary.first_ply + 1,
        "players": [match.player_name(1), match.player_name(2)],
        "winner_name": _winner_name(match, match.winner),
        "start_value": _winner_name(match, summary.start_winner),
        "flips": [
            {
                "ply": flip.ply,
                "player": match.player_name(flip.player),
                "move": flip.move,
                "before": _winner_name(match, flip.before),
                "after": _winner_name(match, flip.after),
            }
            for flip in summary.flips
        ],
        "blunders": [
            {"player": match.player_name(p), "count": summary.blunders[p]} for p in (1, 2)
        ],
        "reviewer": is_reviewer(request.user),
    }
    partial = request.htmx and not request.htmx.history_restore_request
    template = "games/replay.html#replay" if partial else "games/replay.html"
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
def export_json(request, public_id):
    match = play.settle_time(get_object_or_404(Match, public_id=public_id))
    if not open_to(request.user, match):
        return JsonResponse(
            {"error": "This match is not over: its export opens once the game is over."},
            status=404,
        )
    response = JsonResponse(review.serialize_match(match), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="bitsite-match-{match.public_id}.json"'
    return response
