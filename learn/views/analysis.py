"""The analysis board's pages (learn/analysis_board.py): read only, no database writes.

``analysis`` is an expensive answer (learn/answers.py): rate-limited by its cost, its
position's solution cached by its canonical form and computed in the learn pool; a
refusal takes the place of ``#analysis`` for htmx.

``analysis``: ``/games/<slug>/analysis/?<options>&moves=...&ply=N``. htmx requests get
the ``#analysis`` partial; without JavaScript every move and step is a plain link.
``analysis_play``: a move posted from the board's own buttons (or typed), answered with
the board after it. ``analysis_export``: the line as text. (Its "Practise from here" form
posts to learn/views/practice.py, the one place learn writes.)
``analyse_match``: ``/m/<id>/analyse?ply=N`` sends a finished match's line (after its
set-up moves, if any), up to ply N (default: its end), to the analysis board
("Analyse from here" on the replay, "Analyse the position" on the finished match's page).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.http import HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import get_object_or_404, render
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST

from games.http import see_other
from games.models import Match
from games.review import closed_response
from games.rights import may_review
from learn import analysis_board, answers
from learn.analysis_board import BadAnalysis


def _partial(request) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def refused_page(request, game, message: str):
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
        return refused_page(request, game, str(error))
    return _answer(request, game, state)


@require_GET
@answers.costly("analysis")
def analysis_export(request, game):
    """The line as plain text, to keep: each move with its verdict (a download)."""
    try:
        state = analysis_board.parse(game, request.GET)
    except BadAnalysis as error:
        return refused_page(request, game, str(error))
    if len(state.moves) > answers.LONG_LINE:
        answers.admit(request)
    address = request.build_absolute_uri(analysis_board.url(state))
    response = HttpResponse(
        analysis_board.export_text(state, address), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="bitsite-analysis-{game.slug}.txt"'
    return response


@require_POST
@answers.costly("analysis")
def analysis_play(request, game):
    """A move made on the board (its buttons, or typed): the board's state in the query
    string, the move posted. Answered with the board after it (htmx, its address pushed)
    or a redirect to its address; a move that cannot be played is refused as a bad
    address is."""
    try:
        state = analysis_board.parse(game, request.GET)
        target = analysis_board.played_url(state, request.POST.get("move", ""))
    except BadAnalysis as error:
        return refused_page(request, game, str(error))
    if not _partial(request):
        return see_other(target)
    state = analysis_board.parse(game, QueryDict(urlsplit(target).query))
    response = _answer(request, game, state)
    response["HX-Push-Url"] = target
    return response


def _answer(request, game, state):
    if len(state.moves) > answers.LONG_LINE:
        answers.admit(request)  # its page costs as much as a solve, cached or not
    solution = answers.solution(request, game, state.position)
    cells = answers.line(request, game, state.options, state.moves)
    template = "learn/analysis.html#analysis" if _partial(request) else "learn/analysis.html"
    context = analysis_board.context(state, solution, cells)
    context["share_url"] = request.build_absolute_uri(context["self_url"])
    response = render(request, template, context)
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
    setup = list(match.setup)  # a match set up from a position: the moves that led there
    if len(setup) + ply > analysis_board.MAX_PLIES:
        return refused_page(
            request,
            game,
            f"This line is {len(setup) + ply:,} moves long: the analysis board takes at most "
            f"{analysis_board.MAX_PLIES} moves.",
        )
    texts = match.moves.filter(ply__lte=ply).order_by("ply").values_list("text", flat=True)
    try:
        state = analysis_board.build(game, match.options, [*setup, *texts])
    except BadAnalysis as error:
        return refused_page(request, game, str(error))
    return HttpResponseRedirect(analysis_board.url(state))
