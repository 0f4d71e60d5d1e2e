"""The replay page and the one-match JSON export.

Every finished match has a public replay and export. A match still in play (or
waiting) is open only to staff who may view matches in the admin: its analysis
would be a hint for the game in progress. Everyone else gets a 404 with a plain
message, never match data.

The replay opens at the final position (``?ply=N`` opens it at ply N). For a match of
up to ``HELD`` plies the page then asks, once, for every ply's frame (its status line,
its board, its value: ``replay_frames``), drawn here by the same partial as the one
shown, in ``<template>`` elements: the page's script (static/site/replay.js) shows them
one at a time, with no round trip. They come after the page, not in it, so that its
first load stays as light as any page's (tests/browser/test_weight.py). Until they have
come, and for a longer match, a step asks for the ``#replay`` partial, the presses queued
so that none is lost. Without JavaScript every step is a plain link, one page per ply.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import get_template
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from games import extras, play, review
from games.models import Match
from games.presenters import presenter_for
from games.rights import (
    NothingToReplay,
    is_reviewer,
    may_review,
    replay_refusal,
    viewer_from_session,
)
from games.verdicts import value_text, verdict_class

# A match of up to this many plies holds every ply's frame on its page (see the docstring).
HELD = review.FULL


def _ply(value: str | None, last: int) -> int:
    """The ply asked for; none (or nonsense) is the final position."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return last


def _frame(match: Match, frame: review.Frame, last: int, presenter) -> dict:
    """What the replay's ``frame`` partial draws for one ply: the status line, the board
    and the position's value."""
    pos = frame.position
    touched = presenter.touched(frame.move.text, pos) if frame.move else ()
    return {
        "match": match,
        "game": match.rules,
        "pos": pos,
        **presenter.board(pos, touched=touched),
        "board_template": f"{presenter.template}#position",
        "words": presenter.describe(frame.move.text, pos) if frame.move else "",
        "frame": frame,
        "last_ply": last,
        "mover": match.player_name(frame.move.player) if frame.move else "",
        "to_move": match.player_name(pos.to_move),
        "verdict_class": verdict_class(frame.verdict),
        "value": value_text(match, frame.analysis),
        "best_moves": presenter.moves_text(frame.analysis.best_moves) if frame.analysis else "",
    }


def held_frames(match: Match, frames: list[review.Frame], last: int, presenter) -> list:
    """Every ply's frame drawn, for a match of up to HELD plies (else none): (ply, html)."""
    if last > HELD:
        return []
    partial = get_template("games/replay.html#frame")
    return [(f.ply, partial.render(_frame(match, f, last, presenter))) for f in frames]


def _row(match: Match, frame: review.Frame, current: int, presenter) -> dict:
    verdict = frame.verdict
    return {
        "words": presenter.describe(frame.move.text, frame.position) if frame.move else "",
        "ply": frame.ply,
        "current": frame.ply == current,
        "player": match.player_name(frame.move.player) if frame.move else "",
        "text": frame.move.text if frame.move else "",
        "took": review.time_text(frame.move.time_ms) if frame.move else "",
        "verdict": verdict,
        "verdict_class": verdict_class(verdict),
    }


def _jumps(ply: int, last: int, window: list) -> dict:
    """Beyond review.FULL plies the list is a window: links to jump back and on."""
    if not window:
        return {"back": [], "on": []}
    back, on = [], []
    if window[0].ply > 0:
        if ply - review.FULL > 0:
            back.append((ply - review.FULL, f"{review.FULL} plies back"))
        back.append((0, "the start"))
    if window[-1].ply < last:
        if ply + review.FULL < last:
            on.append((ply + review.FULL, f"{review.FULL} plies on"))
        on.append((last, "the end"))
    return {"back": back, "on": on}


def _winner_name(match: Match, winner: int | None) -> str:
    return match.player_name(winner) if winner else "nobody"


# ---- the strip: the game in a picture ----------------------------------------------------
# Server-drawn SVG, in viewBox units: each ply a CELL wide, stretched to the strip's width.
# The bar above the middle line: Player 1 can force a win; below it: Player 2; a thin bar on
# it: nobody. A mark in the bottom row: a blunder. Colours come from site.css classes.
CELL = 10
HEIGHT = 48
BARS = {1: (3, 15), 2: (18, 15), None: (16, 4)}  # winner -> (y, height) of the bar
MARK = 9  # the blunder marks' row at the bottom
RUNS_SAID = 6  # the description names this many stretches, then counts the rest


def _who(name_of, winner: int | None) -> str:
    return f"{name_of(winner)} can force a win" if winner else "nobody can force a win"


def _cell_title(name_of, cell: review.Cell, presenter) -> str:
    after = _who(name_of, cell.winner)
    if cell.player is None:
        return f"The start: {after}."
    blunder = ", a blunder" if cell.blunder else ""
    return (
        f"Move {cell.ply:,}: {name_of(cell.player)} {presenter.describe(cell.move)}"
        f"{blunder}. Then {after}."
    )


def _stretch(first: int, last: int, end: int) -> str:
    start = "the start" if first == 0 else f"move {first:,}"
    if first == last:
        return f"at {start}"
    return f"from {start} to {'the end' if last == end else f'move {last:,}'}"


def strip_label(name_of, strip: review.Strip, whole: str = "The whole game") -> str:
    """The strip in words: who could force a win, stretch by stretch, and the blunders
    (``name_of(player)`` names a player)."""
    where = (
        f"Moves {strip.first:,} to {strip.last:,} of {strip.last_ply:,}" if strip.partial else whole
    )
    runs = strip.runs()
    said = [
        f"{name_of(w) if w else 'nobody'} {_stretch(a, b, strip.last_ply)}"
        for w, a, b in runs[:RUNS_SAID]
    ]
    if len(runs) > RUNS_SAID:
        said.append(f"and {len(runs) - RUNS_SAID:,} more changes")
    blunders = [cell.ply for cell in strip.cells if cell.blunder]
    if blunders:
        listed = ", ".join(f"{ply:,}" for ply in blunders[:RUNS_SAID])
        more = f" and {len(blunders) - RUNS_SAID:,} more" if len(blunders) > RUNS_SAID else ""
        blunder_text = f"Blunders: move{'s' if len(blunders) > 1 else ''} {listed}{more}."
    else:
        blunder_text = "No blunders."
    return (
        f"{where} in a picture: who could force a win after each move: "
        f"{'; '.join(said)}. {blunder_text}"
    )


def strip_context(match: Match, strip: review.Strip, replay_url: str, presenter) -> dict:
    """What templates/games/strip.html draws for a replay's strip."""
    return draw_strip(
        strip,
        name_of=match.player_name,
        href_of=lambda ply: f"{replay_url}?ply={ply}",
        presenter=presenter,
    )


def draw_strip(
    strip: review.Strip, *, name_of, href_of, presenter, whole="The whole game", htmx=False
):
    """What templates/games/strip.html draws for ``strip``, the one drawing of a line's
    verdicts (the replay's and the analysis board's): ``name_of(player)`` names a player,
    ``href_of(ply)`` is the address of a ply (``htmx``: fetched by htmx, where the page
    has it)."""
    # A few plies get bars with gaps between them; many plies one unbroken band.
    gap = 1 if len(strip.cells) <= 60 else 0
    cells = []
    for i, cell in enumerate(strip.cells):
        y, height = BARS[cell.winner]
        classes = [f"w{cell.winner or 0}"]
        if cell.blunder:
            classes.append("blunder")
        if cell.current:
            classes.append("now")
        cells.append(
            {
                "ply": cell.ply,
                "href": href_of(cell.ply),
                "x": i * CELL,
                "bar_x": i * CELL + gap,
                "y": y,
                "height": height,
                "classes": " ".join(classes),
                "blunder": cell.blunder,
                "current": cell.current,
                "title": _cell_title(name_of, cell, presenter),
            }
        )
    return {
        "cells": cells,
        "width": len(cells) * CELL,
        "height": HEIGHT,
        "middle": BARS[2][0],
        "cell": CELL,
        "bar": CELL - 2 * gap,
        "mark": MARK,
        "mark_y": HEIGHT - MARK,
        "label": strip_label(name_of, strip, whole),
        "partial": strip.partial,
        "first": strip.first,
        "last": strip.last,
        "players": [(1, name_of(1)), (2, name_of(2))],
        "htmx": htmx,
    }


def _replayable(request, public_id):
    """The match whose replay (or frames) this viewer asks for, or the answer that says
    why they may not have it: (match, None) or (None, response)."""
    match = play.settle_time(get_object_or_404(Match, public_id=public_id))
    if not may_review(request.user, match):
        return None, review.closed_response(request, match)
    refusal = replay_refusal(match)
    if isinstance(refusal, NothingToReplay):
        return None, review.closed_response(request, match, nothing=refusal.message)
    return match, None


@require_GET
def replay(request, public_id):
    match, closed = _replayable(request, public_id)
    if closed is not None:
        return closed
    seen = review.review(match, _ply(request.GET.get("ply"), match.ply))
    partial = request.htmx and not request.htmx.history_restore_request
    frame, summary, last = seen.frame, seen.summary, seen.last_ply
    game = match.rules
    presenter = presenter_for(game)
    replay_url = reverse("replay", args=[match.public_id])
    context = {
        **_frame(match, frame, last, presenter),
        "nav": [
            (0 if frame.ply > 0 else None, "First", "first", "«"),
            (frame.ply - 1 if frame.ply > 0 else None, "Previous", "previous", "\u2039"),
            (frame.ply + 1 if frame.ply < last else None, "Next", "next", "\u203a"),
            (last if frame.ply < last else None, "Last", "last", "»"),
        ],
        "replay_url": replay_url,
        "viewer": viewer_from_session(request.session, match),
        "frames_url": reverse("replay_frames", args=[match.public_id]) if last <= HELD else "",
        "rows": [_row(match, f, frame.ply, presenter) for f in seen.window],
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
                "move": presenter.describe(flip.move),
                "before": _winner_name(match, flip.before),
                "after": _winner_name(match, flip.after),
            }
            for flip in summary.flips
        ],
        "blunders": [
            {"player": match.player_name(p), "count": summary.blunders[p]} for p in (1, 2)
        ],
        "reviewer": is_reviewer(request.user),
        "strip": strip_context(match, seen.strip, replay_url, presenter),
        "jumps": _jumps(frame.ply, last, seen.window),
        "end_notes": extras.end_notes(match) if not partial else (),
    }
    template = "games/replay.html#replay" if partial else "games/replay.html"
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
def replay_frames(request, public_id):
    """Every ply's frame of a replay of up to HELD plies, for its page to hold (the page
    asks once it has loaded); the same rights as the replay."""
    match, closed = _replayable(request, public_id)
    if closed is not None:
        return closed
    seen = review.review(match, match.ply)
    presenter = presenter_for(match.rules)
    context = {"held": held_frames(match, seen.window, seen.last_ply, presenter)}
    return render(request, "games/replay.html#frames", context)


@require_GET
def export_json(request, public_id):
    match = play.settle_time(get_object_or_404(Match, public_id=public_id))
    if not may_review(request.user, match):
        return JsonResponse(
            {"error": "This match is not over: its export opens once the game is over."},
            status=404,
        )
    response = JsonResponse(review.serialize_match(match), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="bitsite-match-{match.public_id}.json"'
    return response
