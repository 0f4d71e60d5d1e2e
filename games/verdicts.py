"""The one wording of values and verdicts, shared by the replay and the analysis board.

``value_words`` says who wins a position with perfect play, and in how many moves;
``value_text`` says it with a match's player names; ``verdict_class`` is the CSS class
a move's verdict is drawn with ("good", "bad" or none). No views here: the replay's
views (games/review_views.py) and the analysis board (learn/analysis_board.py) both
import them from this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.rules import Verdict
from games.rules.base import UNKNOWN_LENGTH

if TYPE_CHECKING:
    from games.models import Match


def verdict_class(verdict) -> str:
    if verdict is None:
        return ""
    if verdict.blunder or verdict.verdict is Verdict.LOSES_AT_ONCE:
        return "bad"
    if verdict.verdict in (Verdict.KEEPS_WIN, Verdict.SAFE):
        return "good"
    return ""


def value_text(match: Match, analysis) -> str:
    """Who wins this position with perfect play, and in how many moves."""
    return value_words(match.player_name, analysis.winner, analysis.plies, analysis.note)


def value_words(name_of, winner: int | None, plies: int | None, note: str = "") -> str:
    """The one wording of a value: ``name_of(player)`` names the winner (the replay's
    names, or the analysis board's "Player 1")."""
    if winner is None:
        return note or "Nobody can force a win."
    name = name_of(winner)
    if plies == 0:
        return f"{name} has won."
    if plies is None:
        return f"{name} wins with perfect play ({UNKNOWN_LENGTH})."
    moves = "move" if plies == 1 else "moves"
    return f"{name} wins with perfect play, in {plies} {moves}."
