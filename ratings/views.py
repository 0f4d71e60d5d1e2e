"""A player's page (per game: the rating, its history, the rated record, recent games)
and each game's leaderboard (players whose rating is no longer provisional)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Q
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from games.models import Match
from games.rights import replay_refusal
from games.rules import GAMES
from ratings import glicko
from ratings.charts import rating_chart
from ratings.models import Rating, RatingChange

CHART_GAMES = 50  # the chart shows the last this many rated games
RECENT = 10  # recent games listed per game
LEADERS_PER_PAGE = 50


def opponent_text(match: Match, seat: int) -> str:
    """Who the holder of ``seat`` played, in words."""
    if match.mode == Match.Mode.COMPUTER:
        return f"the computer ({match.computer_level})"
    if match.mode == Match.Mode.HOTSEAT:
        return "on one device"
    other = match.seat_user(3 - seat)
    if other is not None:
        return other.get_username()
    return match.seat_name(3 - seat) or "a guest"


# A result for the player of this page (Match.result_for), in the list's words.
RESULT_WORDS = {
    Match.Result.WON: "won",
    Match.Result.LOST: "lost",
    Match.Result.DRAWN: "draw",
    Match.Result.NONE: "no result",
}


def result_text(match: Match, seats) -> str:
    return RESULT_WORDS[match.result_for(seats)]


def _recent(user, slug: str) -> list[dict]:
    """The last finished matches of ``user`` in this game (any kind), newest first."""
    matches = list(
        Match.objects.filter(Q(seat1_user=user) | Q(seat2_user=user), game=slug)
        .filter(status=Match.Status.FINISHED)
        .exclude(ending=Match.Ending.CANCELLED)
        .select_related("seat1_user", "seat2_user")
        .order_by("-finished_at", "-pk")[:RECENT]
    )
    rated = [m.pk for m in matches if m.rated]
    changes = (
        {
            change.match_id: change
            for change in RatingChange.objects.filter(user=user, match_id__in=rated)
        }
        if rated
        else {}
    )
    rows = []
    for match in matches:
        seats = {seat for seat in (1, 2) if match.seat_user_id(seat) == user.pk}
        rows.append(
            {
                "match": match,
                "opponent": opponent_text(match, min(seats)),
                "result": result_text(match, seats),
                "change": changes.get(match.pk),
                "replay": replay_refusal(match) is None,
            }
        )
    return rows


@require_GET
def player_page(request, username):
    User = get_user_model()
    user = get_object_or_404(User, **{User.USERNAME_FIELD: username, "is_active": True})
    name = user.get_username()
    ratings = {row.game: row for row in Rating.objects.filter(user=user)}
    sections = []
    for game in GAMES:
        rating = ratings.get(game.slug)
        recent = _recent(user, game.slug)
        if rating is None and not recent:
            continue
        chart = None
        if rating is not None:
            history = list(
                RatingChange.objects.filter(user=user, game=game.slug)
                .order_by("-created_at", "-pk")
                .values_list("rating_before", "rating_after")[:CHART_GAMES]
            )
            history.reverse()
            if history:
                points = [history[0][0]] + [after for _, after in history]
                chart = rating_chart(points, game_title=game.title, name=name)
        sections.append({"game": game, "rating": rating, "chart": chart, "recent": recent})
    context = {
        "player": user,
        "name": name,
        "sections": sections,
        "provisional_above": round(glicko.PROVISIONAL_ABOVE),
    }
    return render(request, "ratings/player.html", context)


@require_GET
def leaderboard(request, game):
    leaders = (
        Rating.objects.filter(
            game=game.slug, deviation__lte=glicko.PROVISIONAL_ABOVE, user__is_active=True
        )
        .select_related("user")
        .order_by("-rating", "user_id")
    )
    page = Paginator(leaders, LEADERS_PER_PAGE).get_page(request.GET.get("page"))
    rows = [
        {"rank": page.start_index() + i, "rating": row} for i, row in enumerate(page.object_list)
    ]
    context = {
        "game": game,
        "page": page,
        "rows": rows,
        "provisional_above": round(glicko.PROVISIONAL_ABOVE),
    }
    return render(request, "ratings/leaderboard.html", context)


LEADERS_SHOWN = 3  # on the leaderboards page, per game


@require_GET
def leaderboards(request):
    """The header's "Leaderboards": each game's best established ratings, and its list."""
    established = Rating.objects.filter(
        deviation__lte=glicko.PROVISIONAL_ABOVE, user__is_active=True
    ).select_related("user")
    boards = [
        {
            "game": game,
            "leaders": list(
                established.filter(game=game.slug).order_by("-rating", "user_id")[:LEADERS_SHOWN]
            ),
        }
        for game in GAMES
    ]
    return render(request, "ratings/leaderboards.html", {"boards": boards})
