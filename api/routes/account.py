"""The token's own account."""

from __future__ import annotations

from ninja import Router

from accounts import bots
from api import auth
from api.errors import ApiError
from api.routes.players import profile_json

router = Router(tags=["account"])


@router.get("", auth=auth.read, summary="Your account: name, bot or not, ratings")
def account(request):
    return profile_json(request.auth.user)


@router.post(
    "/bot",
    auth=auth.play,
    summary="Make this account a bot (irreversible; only before it has played)",
)
def make_bot(request):
    try:
        bots.make_bot(request.auth.user)
    except bots.NotABot as refusal:
        raise ApiError(refusal.status, "not_allowed", refusal.message) from None
    return profile_json(request.auth.user)
