"""The analysis board's pages (learn/analysis_board.py): read only, no database writes.

``analysis`` is an expensive answer (learn/answers.py): rate-limited by its cost, its
position's solution cached by its canonical form and computed in the learn pool; a
refusal takes the place of ``#analysis`` for htmx.

``analysis``: ``/games/<slug>/analysis/?<options>&moves=...&ply=N``. htmx requests get
the ``#analysis`` partial; without JavaScript every move and step is a plain link.
``analyse_match``: ``/m/<id>/analyse?ply=N`` sends a finished match's line, up to ply N
(default: its end), to the analysis board ("Analyse from here" on the replay,
"Analyse the position" on the finished match's page).
"""

from __future__ import annotations

from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from games.models import Match
from games.review import closed_response
from games.rights import may_review
from learn import analysis_board, answers
from learn.analysis_board import BadAnalysis


def _partial(request) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def _refused(request, game, message: str):
    """A 400 with the plain reason, and a way to start afresh."""
    partial = _partial(request)
    template = "learn/analysis_refused.html" + ("#refusal" if partial else "")
    response = render(request, template, {"game": game, "message": message}, status=400)
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
@answers.costly("analysis")
def analysis(request, game):
    try:
        state = analysis_board.parse(game, request.GET)
    except BadAnalysis as error:
        return _refused(request, game, str(error))
    if len(state.moves) > answers.LONG_LINE:
        answers.admit(request)  # its page costs as much as a solve, cached or not
    solution = answers.solution(request, game, state.position)
    template = "learn/analysis.html#analysis" if _partial(request) else "learn/analysis.html"
    response = render(request, template, analysis_board.context(state, solution))
    patch_vary_headers(response, ["HX-Request"])
    return response


@require_GET
def analyse_match(request, public_id):
    match = get_object_or_404(Match, public_id=public_id)
    if not may_review(request.user, match):
        return closed_response(request, match)
    game = match.rules
    try:
        ply = min(max(int(request.GET.get("ply", match.ply)), 0), match.ply)
    except (TypeError, ValueError):
        ply = match.ply
    if ply > analysis_board.MAX_PLIES:
        return _refused(
            request,
            game,
            f"This line is {ply:,} moves long: the analysis board takes at most "
            f"{analysis_board.MAX_PLIES} moves.",
        )
    texts = match.moves.filter(ply__lte=ply).order_by("ply").values_list("text", flat=True)
    try:
        state = analysis_board.build(game, match.options, list(texts))
    except BadAnalysis as error:
        return _refused(request, game, str(error))
    return HttpResponseRedirect(analysis_board.url(state))
