"""A player's page (per game: the rating, its history, the rated record, recent games)
and each game's leaderboard (players whose rating is no longer provisional)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts.names import player_or_404
from games.models import Match
from games.rights import replay_refusal
from games.rules import GAMES, get_game
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


def finished_games(user):
    """Every finished match of ``user`` (any kind, cancelled ones aside), newest first."""
    return (
        Match.objects.filter(Q(seat1_user=user) | Q(seat2_user=user))
        .filter(status=Match.Status.FINISHED)
        .exclude(ending=Match.Ending.CANCELLED)
        .select_related("seat1_user", "seat2_user")
        .order_by("-finished_at", "-pk")
    )


def between(user, other):
    """The matches ``user`` and the account ``other`` played against each other."""
    return Q(seat1_user=user, seat2_user=other) | Q(seat1_user=other, seat2_user=user)


def _recent(user, slug: str) -> list[dict]:
    """The last finished matches of ``user`` in this game (any kind), newest first."""
    return game_rows(user, list(finished_games(user).filter(game=slug)[:RECENT]))


def game_rows(user, matches: list[Match]) -> list[dict]:
    """The list's row of each of ``user``'s finished ``matches``: the opponent (linked
    when an account), the result, the rating change, the replay."""
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
        other = None
        if match.mode == Match.Mode.FRIEND:
            other = match.seat_user(3 - min(seats))
        rows.append(
            {
                "match": match,
                "game": get_game(match.game),
                "opponent": opponent_text(match, min(seats)),
                "opponent_user": other,
                "result": result_text(match, seats),
                "change": changes.get(match.pk),
                "replay": replay_refusal(match) is None,
            }
        )
    return rows


@require_GET
def player_page(request, username):
    user = player_or_404(username)
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
                .values_list("rating_before", "rating_after", "created_at")[:CHART_GAMES]
            )
            history.reverse()
            if history:
                points = [history[0][0]] + [after for _, after, _ in history]
                dates = (history[0][2], history[-1][2])
                chart = rating_chart(points, game_title=game.title, name=name, dates=dates)
        sections.append({"game": game, "rating": rating, "chart": chart, "recent": recent})
    viewer = request.user if request.user.is_authenticated else None
    context = {
        "player": user,
        "name": name,
        "sections": sections,
        "provisional_above": round(glicko.PROVISIONAL_ABOVE),
        "games_count": finished_games(user).count(),
        "recent_shown": RECENT,
        "head_to_head": head_to_head(user, viewer) if viewer and viewer.pk != user.pk else None,
    }
    return render(request, "ratings/player.html", context)


def head_to_head(user, viewer) -> dict:
    """The record between the page's player and the signed-in viewer, in all games: how
    many they played and how many each won (from the player's side: Match.results_for)."""
    results = Match.objects.results_for(user.pk)
    R = Match.Result
    counts = (
        Match.objects.filter(between(user, viewer))
        .filter(status=Match.Status.FINISHED)
        .exclude(ending=Match.Ending.CANCELLED)
        .aggregate(
            total=Count("pk"),
            won=Count("pk", filter=results[R.WON]),
            lost=Count("pk", filter=results[R.LOST]),
            drawn=Count("pk", filter=results[R.DRAWN]),
        )
    )
    return {**counts, "viewer": viewer}


GAMES_PER_PAGE = 50


class PlayerGamesFilter(forms.Form):
    """The all-games list's filters (a GET form): one game, and one opponent's account."""

    game = forms.ChoiceField(
        required=False, choices=[("", "All games")] + [(g.slug, g.title) for g in GAMES]
    )
    against = forms.CharField(required=False, max_length=150, label="Against (user name)")

    def clean_against(self):
        name = self.cleaned_data["against"].strip()
        if not name:
            return None
        User = get_user_model()
        other = User.objects.filter(**{User.USERNAME_FIELD: name}).first()
        if other is None:
            raise forms.ValidationError(f"There is no player named “{name}”.")
        return other


@require_GET
def player_games(request, username):
    """All of a player's finished games, paged, by game and by opponent."""
    user = player_or_404(username)
    filters = PlayerGamesFilter(request.GET)
    matches = finished_games(user)
    status = 200
    if filters.is_valid():
        if filters.cleaned_data["game"]:
            matches = matches.filter(game=filters.cleaned_data["game"])
        if filters.cleaned_data["against"] is not None:
            matches = matches.filter(between(user, filters.cleaned_data["against"]))
    else:
        status = 400  # the errors next to the filters; the list unfiltered
    page = Paginator(matches, GAMES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "player": user,
        "name": user.get_username(),
        "filters": filters,
        "page": page,
        "rows": game_rows(user, list(page.object_list)),
        "query": query.urlencode(),
    }
    return render(request, "ratings/player_games.html", context, status=status)


def _established(bots: bool):
    """The established ratings of active accounts: the bots' alone, or the people's
    (a bot's ratings are on their own leaderboards: accounts/bots.py)."""
    ratings = Rating.objects.filter(deviation__lte=glicko.PROVISIONAL_ABOVE, user__is_active=True)
    if bots:
        ratings = ratings.filter(user__profile__is_bot=True)
    else:
        ratings = ratings.exclude(user__profile__is_bot=True)
    return ratings.select_related("user__profile")


@require_GET
def leaderboard(request, game, bots: bool = False):
    leaders = _established(bots).filter(game=game.slug).order_by("-rating", "user_id")
    page = Paginator(leaders, LEADERS_PER_PAGE).get_page(request.GET.get("page"))
    rows = [
        {"rank": page.start_index() + i, "rating": row} for i, row in enumerate(page.object_list)
    ]
    context = {
        "game": game,
        "page": page,
        "rows": rows,
        "bots": bots,
        "provisional_above": round(glicko.PROVISIONAL_ABOVE),
    }
    return render(request, "ratings/leaderboard.html", context)


LEADERS_SHOWN = 3  # on the leaderboards page, per game


@require_GET
def leaderboards(request, bots: bool = False):
    """The header's "Leaderboards": each game's best established ratings, and its list
    (people's; the bots' on their own page)."""
    established = _established(bots)
    boards = [
        {
            "game": game,
            "leaders": list(
                established.filter(game=game.slug).order_by("-rating", "user_id")[:LEADERS_SHOWN]
            ),
        }
        for game in GAMES
    ]
    return render(request, "ratings/leaderboards.html", {"boards": boards, "bots": bots})
