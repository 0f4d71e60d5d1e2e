from django.urls import path

from games import converters  # noqa: F401  (registers <match:...> and <game:...>)

from .views.analysis import analyse_match, analysis, analysis_export, analysis_play
from .views.index import learn_index
from .views.practice import practise
from .views.puzzles import (
    daily_puzzle,
    puzzle_history,
    puzzle_list,
    puzzle_page,
    theme_list,
    theme_page,
)
from .views.theory import theory_page

urlpatterns = [
    path("learn/", learn_index, name="learn"),  # the header's "Learn": every game's pages
    # issue 14, theory pages: why each game's perfect-play result holds, drawn from its rules
    path("games/<game:game>/theory/", theory_page, name="theory"),
    # ---- puzzles (issue 14): learn/views/puzzles.py
    path("games/<game:game>/puzzles/", puzzle_list, name="puzzles"),
    path("games/<game:game>/puzzles/<int:n>/", puzzle_page, name="puzzle"),
    # issue 25: the daily puzzle, a solver's history, the themes
    path("learn/puzzles/daily/", daily_puzzle, name="puzzle_daily"),
    path("learn/puzzles/history/", puzzle_history, name="puzzle_history"),
    path("learn/puzzles/themes/", theme_list, name="puzzle_themes"),
    path("learn/puzzles/themes/<str:theme>/", theme_page, name="puzzle_theme"),
    # The analysis board (issue 14): the state in the query string, no writes.
    path("games/<game:game>/analysis/", analysis, name="analysis"),
    # issue 25: a match against the perfect computer from the board's position (a POST)
    path("games/<game:game>/analysis/practise", practise, name="analysis_practise"),
    # issue 25: a move made on the board's own buttons (or typed), the state in the query
    path("games/<game:game>/analysis/play", analysis_play, name="analysis_play"),
    path("games/<game:game>/analysis/export", analysis_export, name="analysis_export"),
    path("m/<match:public_id>/analyse", analyse_match, name="analyse_match"),
]
