from django.urls import path

from ratings import views

urlpatterns = [
    path("players/<str:username>/", views.player_page, name="player"),
    path("games/<slug:slug>/leaderboard/", views.leaderboard, name="leaderboard"),
]
