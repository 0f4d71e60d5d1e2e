from django.urls import path

from games import converters  # noqa: F401  (registers <game:...>)
from ratings import views

urlpatterns = [
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("leaderboards/bots/", views.leaderboards, {"bots": True}, name="bot_leaderboards"),
    path("players/<str:username>/", views.player_page, name="player"),
    path("players/<str:username>/games/", views.player_games, name="player_games"),
    path("games/<game:game>/leaderboard/", views.leaderboard, name="leaderboard"),
    path(
        "games/<game:game>/leaderboard/bots/",
        views.leaderboard,
        {"bots": True},
        name="bot_leaderboard",
    ),
]
