"""NDJSON streams: a game's events, and the token's account's (api/live.py)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q
from django.http import Http404, StreamingHttpResponse
from django.utils import timezone
from ninja import Router

from accounts.bots import is_bot
from api import auth, live, tokens
from api.errors import ApiError
from api.routes.challenges import challenge_json
from api.state import game_json
from games.models import Match
from games.review import export_queryset
from people.models import Challenge

router = Router(tags=["streams"])

NDJSON = "application/x-ndjson"


def _response(lines) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy passes each line on at once
    return response


def _cap(request) -> tuple[str, int] | None:
    token = request.auth
    if getattr(token, "anonymous", False):
        return live.address_cap(request.META.get("REMOTE_ADDR", ""))
    return live.token_set(token.pk), settings.API_STREAMS_PER_TOKEN


def _account(request, scope: str | None):
    """The stream's token's account, and whether the token still stands as it does now."""
    token = request.auth
    if getattr(token, "anonymous", False):
        return None
    bot = is_bot(token.user)
    return token.user_id, lambda: tokens.stands(token.pk, scope, bot)


def _opened(request, scope: str | None = None, **kwargs):
    try:
        return live.opened(cap=_cap(request), account=_account(request, scope), **kwargs)
    except live.TooMany:
        raise ApiError(
            429,
            "too_many_streams",
            f"At most {settings.API_STREAMS_PER_TOKEN} streams may be open at once for one "
            "token: close one first.",
        ) from None


@router.get(
    "/game/{public_id}",
    auth=auth.public,
    summary="A game's events as NDJSON: its full state, then each change, to its end",
    response={200: None},
)
def game_stream(request, public_id: str):
    match = Match.objects.filter(public_id=public_id).only("pk", "seat1_user", "seat2_user")
    match = match.first()
    if match is None:
        raise Http404("There is no such game.")
    user = getattr(request.auth, "user", None)
    seats = [s for s in (1, 2) if user is not None and match.seat_user_id(s) == user.pk]

    def first() -> live.First:
        full = (
            export_queryset(Match.objects.select_related("seat1_user", "seat2_user"))
            .filter(pk=match.pk)
            .first()
        )
        done = full.status == Match.Status.FINISHED
        return live.First(
            [live.line({"type": "full", **game_json(full, judged=False)})], full.version, (), done
        )

    return _response(
        _opened(
            request,
            group=live.game_group(public_id),
            sets=[live.game_set(public_id)],
            first=first,
            seat=(public_id, seats[0]) if len(seats) == 1 else None,
        )
    )


@router.get(
    "/event",
    auth=auth.read,
    summary="Your account's events as NDJSON: challenges, games starting and ending",
    response={200: None},
)
def event_stream(request):
    user = request.auth.user

    def first() -> live.First:
        lines, keys = [], []
        playing = Match.objects.filter(
            Q(seat1_user=user) | Q(seat2_user=user), status=Match.Status.PLAYING
        ).order_by("started_at")
        for match in playing:
            seat = 1 if match.seat1_user_id == user.pk else 2
            summary = live.game_summary(match, seat)
            lines.append(live.line({"type": "gameStart", "game": summary}))
            keys.append(live.event_key("gameStart", match.public_id))
        waiting = (
            Challenge.objects.filter(
                challenged=user, status=Challenge.Status.OPEN, expires_at__gt=timezone.now()
            )
            .select_related("challenger", "challenged", "match")
            .order_by("created_at")
        )
        for challenge in waiting:
            lines.append(live.line({"type": "challenge", "challenge": challenge_json(challenge)}))
        return live.First(lines, 0, keys)

    return _response(
        _opened(
            request,
            scope=auth.read.scope,
            group=live.user_group(user.pk),
            sets=[live.user_set(user.pk)],
            first=first,
        )
    )
