"""A game: its export, and what its players do in it (every write through games.play)."""

from __future__ import annotations

from django.http import Http404
from ninja import Router, Schema

from api import auth
from api.state import game_json
from games import play
from games.models import Match
from games.review import export_queryset

router = Router(tags=["games"])


def _actor(request) -> play.Actor:
    """The token's account: the seats it holds in the match (games.play.Actor)."""
    return play.Actor(user_id=request.auth.user.pk)


def _match(public_id: str) -> Match:
    match = (
        export_queryset(Match.objects.select_related("seat1_user", "seat2_user"))
        .filter(public_id=public_id)
        .first()
    )
    if match is None:
        raise Http404("There is no such game.")
    return match


def _answer(match: Match) -> dict:
    return game_json(_match(match.public_id), judged=False)


@router.get("/{public_id}", auth=auth.public, summary="A game's export, clocks and verdicts")
def game(request, public_id: str):
    return game_json(_match(public_id))


class MoveIn(Schema):
    move: str
    ply: int  # the ply the program saw (moves made so far): stale if the game moved on


@router.post("/{public_id}/move", auth=auth.play, summary="Play a move")
def move(request, public_id: str, data: MoveIn):
    return _answer(play.submit_move(public_id, by=_actor(request), text=data.move, ply=data.ply))


@router.post("/{public_id}/resign", auth=auth.play, summary="Resign (or abort before a move)")
def resign(request, public_id: str):
    return _answer(play.resign(public_id, by=_actor(request)))


@router.post("/{public_id}/draw/offer", auth=auth.play, summary="Offer a draw")
def offer_draw(request, public_id: str):
    return _answer(play.offer_draw(public_id, by=_actor(request)))


@router.post("/{public_id}/draw/accept", auth=auth.play, summary="Accept the draw offered")
def accept_draw(request, public_id: str):
    return _answer(play.answer_draw(public_id, by=_actor(request), accept=True))


@router.post("/{public_id}/draw/decline", auth=auth.play, summary="Decline the draw offered")
def decline_draw(request, public_id: str):
    return _answer(play.answer_draw(public_id, by=_actor(request), accept=False))


@router.post("/{public_id}/draw/withdraw", auth=auth.play, summary="Withdraw your draw offer")
def withdraw_draw(request, public_id: str):
    return _answer(play.withdraw_draw(public_id, by=_actor(request)))


@router.post("/{public_id}/abort", auth=auth.play, summary="Abort before the first moves")
def abort(request, public_id: str):
    return _answer(play.abort(public_id, by=_actor(request)))


class ClaimIn(Schema):
    win: bool = True  # claim the win (else a draw) when the opponent has gone


@router.post("/{public_id}/claim", auth=auth.play, summary="Claim the game: the opponent left")
def claim(request, public_id: str, data: ClaimIn):
    return _answer(play.claim(public_id, by=_actor(request), win=data.win))
