"""An account's games: the ongoing ones (their turn first), then the finished ones.

What a row says comes from games: the status line is the match page's own
(games.boards.status_text, for the account's seats), "your turn" is exactly when the
account may move (games.rights.move_refusal), and a replay is linked exactly when one
exists (games.rights.replay_refusal). What a result is for the account (won, lost,
drawn, or other: a match cancelled or aborted, or played on one device, where both sides
were the account's) is the match's own definition, ``Match.result_for`` with the
account's seats, and the finished list is filtered in the database by its twin,
``Match.objects.results_for``; a test checks that the two agree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse

from games import boards, clock
from games.models import Match
from games.rights import Viewer, move_refusal, replay_refusal

ONGOING_SHOWN = 100  # ongoing matches listed, at most (the newest, their turn first)
FINISHED_PER_PAGE = 20

# The filter's choices: Match.Result's values, "other" told in full.
RESULT_CHOICES = [
    (
        result.value,
        "Other (cancelled, aborted, on one device)"
        if result == Match.Result.NONE
        else result.label,
    )
    for result in Match.Result
]


def of(user_id: int) -> Q:
    """The matches in which the account ``user_id`` holds a seat."""
    return Q(seat1_user=user_id) | Q(seat2_user=user_id)


def result_for(match: Match, user_id: int) -> str:
    """What a finished match's result is for the account ``user_id``: won, lost, drawn or
    other (``Match.result_for`` with the account's seats)."""
    return match.result_for(seats_of(match, user_id)).value


def seats_of(match: Match, user_id: int) -> frozenset[int]:
    return frozenset(seat for seat in (1, 2) if match.seat_user_id(seat) == user_id)


@dataclass(frozen=True)
class Row:
    match: Match
    title: str
    opponent: str
    options: str
    clock: str
    status: str  # the match page's own status line, for the account's seats
    your_turn: bool
    result: str  # finished: won, lost, drawn, other
    url: str
    replay_url: str  # "" when there is nothing to replay
    opponent_account: str = ""  # the opponent's user name, when an account (to challenge)


def opponent_of(match: Match, seats: frozenset[int]) -> str:
    """Whom the account plays, in a few words: "vs Bob", "vs the computer (casual)", "on
    one device"."""
    if match.mode == Match.Mode.HOTSEAT or len(seats) == 2:
        return "on one device"
    if match.mode == Match.Mode.COMPUTER:
        return f"vs the computer ({match.computer_level})"
    other = 3 - min(seats)
    if not match.seat_secret_hash(other):
        return "no opponent yet"
    name = match.seat_name(other)
    user = match.seat_user(other)
    if user is not None and name and name != user.get_username():
        return f"vs {name} ({user.get_username()})"
    return f"vs {name or (user.get_username() if user is not None else 'Anonymous')}"


def opponent_account(match: Match, seats: frozenset[int]) -> str:
    """The opponent's user name, when the other seat of a match between people is held by
    another account ("" otherwise)."""
    if match.mode != Match.Mode.FRIEND or len(seats) != 1:
        return ""
    user = match.seat_user(3 - min(seats))
    return user.get_username() if user is not None else ""


def row(match: Match, user_id: int) -> Row:
    seats = seats_of(match, user_id)
    to_move = match.current.to_move
    finished = match.status == Match.Status.FINISHED
    return Row(
        match=match,
        title=match.rules.title,
        opponent=opponent_of(match, seats),
        opponent_account=opponent_account(match, seats),
        options=match.options_summary(),
        clock=clock.describe(match),
        status=boards.status_text(match, Viewer(seats), to_move),
        your_turn=move_refusal(match, seats, to_move=to_move) is None,
        result=result_for(match, user_id) if finished else "",
        url=match.get_absolute_url(),
        replay_url=(
            reverse("replay", args=[match.public_id])
            if finished and replay_refusal(match) is None
            else ""
        ),
    )


def _with_users(queryset):
    return queryset.select_related("seat1_user", "seat2_user")


def ongoing(user_id: int) -> tuple[list[Row], int]:
    """The account's matches not yet over: those where it is their turn first, then the
    others, newest first within each; at most ONGOING_SHOWN of them. Returns the rows and
    how many there are in all."""
    queryset = Match.objects.filter(of(user_id)).exclude(status=Match.Status.FINISHED)
    matches = list(_with_users(queryset).order_by("-created_at", "-pk")[: ONGOING_SHOWN + 1])
    total = len(matches)
    if total > ONGOING_SHOWN:
        total = queryset.count()
        matches = matches[:ONGOING_SHOWN]
    rows = sorted((row(match, user_id) for match in matches), key=lambda r: not r.your_turn)
    return rows, total


def finished(user_id: int, *, game: str = "", result: str = ""):
    """The account's finished matches, newest first, optionally of one game and one result
    (a queryset: the page paginates it)."""
    queryset = Match.objects.filter(of(user_id), status=Match.Status.FINISHED)
    if game:
        queryset = queryset.filter(game=game)
    if result:
        queryset = queryset.filter(Match.objects.results_for(user_id)[result])
    return _with_users(queryset).order_by("-finished_at", "-pk")


def ongoing_context(user_id: int) -> dict:
    # When this list was read (before the query: a later reading shows every change that
    # committed before it): a page keeps the newest list it was sent, whatever order the
    # pushes arrive in (accounts/consumers.py).
    read_at = time.time()
    rows, total = ongoing(user_id)
    return {
        "ongoing": rows,
        "ongoing_total": total,
        "your_turns": sum(r.your_turn for r in rows),
        "read_at": read_at,
    }


def render_ongoing(user_id: int, *, finished_changed: bool = False) -> tuple[str, float]:
    """The ongoing section as a page swaps it in (by its id), and when it was read.
    ``finished_changed``: a match of the account ended, so the page also reads its
    finished list again (with its own filters and page)."""
    context = ongoing_context(user_id)
    context["finished_changed"] = finished_changed
    html = render_to_string("accounts/my_games.html#pushed", context)
    return html, context["read_at"]
