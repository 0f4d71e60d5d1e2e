"""Challenges: to a player (people.challenges, as the challenge page sends them) or open
(a match whose link anyone signed in may take, as the new-match page makes one)."""

from __future__ import annotations

from django.utils import timezone
from ninja import Router, Schema

from accounts.bots import is_bot
from accounts.names import player_or_404
from api import auth
from api.errors import ApiError
from games import play
from games.models import Match
from games.rules import GAMES
from people import challenges
from people.forms import ChallengeForm
from people.models import Challenge

router = Router(tags=["challenges"])

GAME_SLUGS = {game.slug: game for game in GAMES}


class Terms(Schema):
    """A new game's terms, as the challenge form takes them."""

    game: str
    options: dict[str, int | str] = {}
    clock: str = "none"  # none, correspondence, custom, or one of the presets: "5+3"
    minutes: int | None = None  # custom clock
    increment: int | None = None  # custom clock
    days: int | None = None  # correspondence
    rated: bool = False
    first: str = Match.First.ME  # me, opponent, random


def _cleaned(terms: Terms) -> tuple[object, dict]:
    """The terms checked by the challenge form (one definition of what a game allows)."""
    game = GAME_SLUGS.get(terms.game)
    if game is None:
        raise ApiError(
            400, "unknown_game", f"There is no game “{terms.game}”: one of {', '.join(GAME_SLUGS)}."
        )
    unknown = sorted(set(terms.options) - {option.name for option in game.options})
    if unknown:
        names = ", ".join(option.name for option in game.options) or "none"
        raise ApiError(
            400, "invalid_terms", f"{game.title} has no option {', '.join(unknown)} ({names})."
        )
    data = {option.name: option.default for option in game.options}  # unless given
    data.update(terms.options)
    data.update(
        time_control=terms.clock,
        minutes=terms.minutes if terms.minutes is not None else "",
        increment=terms.increment if terms.increment is not None else "",
        days=terms.days if terms.days is not None else "",
        first=terms.first,
    )
    if terms.rated:
        data["rated"] = "on"
    form = ChallengeForm(game, {f"{game.slug}-{key}": value for key, value in data.items()})
    if not form.is_valid():
        problems = [
            f"{'terms' if field == '__all__' else field}: {' '.join(errors)}"
            for field, errors in form.errors.items()
        ]
        raise ApiError(400, "invalid_terms", "The terms are not valid: " + "; ".join(problems))
    return game, form.cleaned_data


def challenge_json(challenge: Challenge) -> dict:
    return {
        "id": challenge.public_id,
        "challenger": challenge.challenger.get_username(),
        "challenged": challenge.challenged.get_username(),
        "game": challenge.game,
        "options": challenge.options,
        "time_control": challenge.time_control,
        "rated": challenge.rated,
        "first": challenge.first,
        "status": challenge.shown_status,  # an open one past its time reads as expired
        "reason": challenge.reason or None,
        "created": challenge.created_at.isoformat(),
        "expires": challenge.expires_at.isoformat(),
        "game_id": challenge.match.public_id if challenge.match_id else None,
    }


def _listed(queryset):
    return [
        challenge_json(challenge)
        for challenge in queryset.select_related("challenger", "challenged", "match")[:50]
    ]


@router.get("", auth=auth.read, summary="Your open challenges, received and sent")
def open_challenges(request):
    user, now = request.auth.user, timezone.now()
    waiting = Challenge.objects.filter(status=Challenge.Status.OPEN, expires_at__gt=now)
    return {
        "received": _listed(waiting.filter(challenged=user).order_by("-created_at")),
        "sent": _listed(waiting.filter(challenger=user).order_by("-created_at")),
    }


@router.post(
    "/open", auth=auth.challenge, summary="An open challenge: a game anyone may join by its link"
)
def open_challenge(request, terms: Terms):
    user = request.auth.user
    game, data = _cleaned(terms)
    if data["rated"] and is_bot(user):
        raise ApiError(
            400,
            "invalid_terms",
            "A bot's open challenges are casual: a person plays a bot rated only if they "
            "chose to, so challenge them by name.",
        )
    try:
        match = play.create_match(
            game.slug,
            token=user.profile.token,
            options=data["options"],
            first=data["first"],
            time_control=data["time_control"],
            user=user,
            rated=data["rated"],
        )
    except ValueError as error:
        raise ApiError(400, "invalid_terms", str(error)) from None
    return {"game_id": match.public_id, "url": match.get_absolute_url()}


@router.post("/{username}", auth=auth.challenge, summary="Challenge a player")
def challenge_player(request, username: str, terms: Terms):
    other = player_or_404(username)
    game, data = _cleaned(terms)
    challenge = challenges.send(
        request.auth.user,
        other,
        game=game.slug,
        options=data["options"],
        time_control=data["time_control"],
        rated=data["rated"],
        first=data["first"],
    )
    return challenge_json(challenge)


def _one(public_id: str) -> dict:
    challenge = Challenge.objects.select_related("challenger", "challenged", "match").get(
        public_id=public_id
    )
    return challenge_json(challenge)


@router.post(
    "/{public_id}/accept", auth=auth.challenge, summary="Accept a challenge: the game begins"
)
def accept(request, public_id: str):
    challenges.accept(public_id, request.auth.user)
    return _one(public_id)


class DeclineIn(Schema):
    reason: str = Challenge.Reason.GENERIC


@router.post("/{public_id}/decline", auth=auth.challenge, summary="Decline a challenge")
def decline(request, public_id: str, data: DeclineIn | None = None):
    challenges.decline(public_id, request.auth.user, (data or DeclineIn()).reason)
    return _one(public_id)


@router.post("/{public_id}/cancel", auth=auth.challenge, summary="Withdraw a challenge you sent")
def cancel(request, public_id: str):
    challenges.cancel(public_id, request.auth.user)
    return _one(public_id)
