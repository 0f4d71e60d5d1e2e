"""Players' public profiles, ratings and games."""

from __future__ import annotations

from django.core.paginator import EmptyPage, Paginator
from ninja import Query, Router, Schema

from accounts.bots import is_bot
from accounts.names import player_or_404
from api import auth
from api.errors import ApiError
from api.state import game_json
from games.review import export_queryset
from games.rules import GAMES
from ratings.models import Rating
from ratings.views import between, finished_games

router = Router(tags=["players"])

PER_PAGE = 20


def profile_json(user) -> dict:
    ratings = {
        row.game: {
            "rating": round(row.rating),
            "deviation": round(row.deviation),
            "provisional": row.provisional,
            "games": row.games,
            "wins": row.wins,
            "losses": row.losses,
            "draws": row.draws,
        }
        for row in Rating.objects.filter(user=user)
    }
    return {
        "username": user.get_username(),
        "bot": is_bot(user),
        "joined": user.date_joined.isoformat(),
        "url": f"/players/{user.get_username()}/",
        "ratings": ratings,
    }


@router.get("/{username}", auth=auth.public, summary="A player's profile and ratings")
def player(request, username: str):
    return profile_json(player_or_404(username))


class GamesFilter(Schema):
    game: str | None = None
    against: str | None = None
    page: int = 1


@router.get("/{username}/games", auth=auth.public, summary="A player's finished games, paged")
def player_games(request, username: str, filters: Query[GamesFilter]):
    user = player_or_404(username)
    matches = finished_games(user)
    if filters.game:
        if filters.game not in {game.slug for game in GAMES}:
            raise ApiError(400, "unknown_game", f"There is no game “{filters.game}”.")
        matches = matches.filter(game=filters.game)
    if filters.against:
        other = player_or_404(filters.against)
        matches = matches.filter(between(user, other))
    paginator = Paginator(export_queryset(matches), PER_PAGE)
    try:
        page = paginator.page(filters.page)
    except EmptyPage:
        if filters.page < 1 or paginator.count:
            raise ApiError(400, "bad_page", f"There are {paginator.num_pages} pages.") from None
        page = paginator.page(1)
    return {
        "page": page.number,
        "pages": paginator.num_pages,
        "count": paginator.count,
        "games": [game_json(match, judged=False) for match in page.object_list],
    }
