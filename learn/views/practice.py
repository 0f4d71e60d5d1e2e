"""Practise from here: the analysis board's position played against the perfect computer.

The one place learn writes: it starts a match through the games write path
(``games.play.create_match`` with ``setup``, then the computer's first move if it is
its turn), as any other way of starting a match does. A POST with CSRF, limited as
match creation is; a refusal is the analysis board's 400 page.
"""

from __future__ import annotations

from django.http import QueryDict
from django.views.decorators.http import require_POST

from games import play
from games.browsers import remembered_name, seat_token, signed_in_user, typed_name
from games.http import plays_as_account, see_other
from games.models import Match
from games.rights import Refused
from games.views import limited
from learn import analysis_board
from learn.analysis_board import BadAnalysis
from learn.views.analysis import refused_page

# A practice from the analysis board: the computer at this level (games/rules/computer.py).
PRACTICE_LEVEL = "perfect"
SIDES = {"1": "me", "2": "opponent"}  # the player chosen -> create_match's ``first``


@plays_as_account
@require_POST
@limited("create")
def practise(request, game):
    """ "Practise from here": a match against the perfect computer from the board's
    position, the player taking the side chosen (``side``: 1 or 2, the position's Player 1
    or Player 2). ``analysis`` is the board's query string; the match begins after the
    line's moves up to the cursor (``Match.setup``), unrated."""
    try:
        state = analysis_board.parse(game, QueryDict(request.POST.get("analysis", "")))
    except BadAnalysis as error:
        return refused_page(request, game, str(error))
    if state.position.over:
        return refused_page(
            request, game, "The game is over in this position: there is nothing to practise."
        )
    side = request.POST.get("side", "")
    if side not in SIDES:
        return refused_page(request, game, "Choose the side you play: Player 1 or Player 2.")
    try:
        match = _practice_match(request, game, state, side)
    except Refused as refusal:  # a remembered name that now reads as an account's
        return refused_page(request, game, refusal.message)
    if match.computer_to_move:  # the computer's side is to move
        play.computer_move(match.public_id)
    return see_other(match.get_absolute_url())


def _practice_match(request, game, state, side: str) -> Match:
    return play.create_match(
        game.slug,
        token=seat_token(request),
        options=state.options,
        mode=Match.Mode.COMPUTER,
        first=SIDES[side],
        level=PRACTICE_LEVEL,
        name=typed_name(request, remembered_name(request)),
        user=signed_in_user(request),
        setup=state.moves[: state.ply],
    )
