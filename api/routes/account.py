"""The token's own account."""

from __future__ import annotations

from ninja import Router

from api import auth
from api.routes.players import profile_json

router = Router(tags=["account"])


@router.get("", auth=auth.read, summary="Your account: name, bot or not, ratings")
def account(request):
    return profile_json(request.auth.user)
