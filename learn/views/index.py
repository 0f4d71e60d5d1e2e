"""The Learn page (the header's "Learn"): every game's rules, theory, puzzles and
analysis board, one card each."""

from __future__ import annotations

from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from games.rules import GAMES
from learn import puzzles, theory


@require_GET
def learn_index(request):
    games = [{"game": game, "theory": theory.has_theory(game)} for game in GAMES]
    daily = puzzles.daily(timezone.localdate())
    return render(request, "learn/index.html", {"games": games, "daily": daily})
