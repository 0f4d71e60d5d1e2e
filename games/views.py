from django.shortcuts import render

from games.rules import GAMES


def home(request):
    return render(request, "games/home.html", {"games": GAMES})
