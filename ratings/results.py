"""A rated match's result changes both players' ratings, inside the transaction that
ends it (games.signals.match_finished: the match row is locked, its final fields set).

Rated: created as rated (only between people, by link), both seats held by accounts,
and a real result. A win counts 1 whatever ended it (the rules, a resignation, time, a
claim of an abandoned game); a draw by agreement, or an abandoned game called a draw,
0.5; a match cancelled before an opponent joined or aborted before both moved changes
nothing (nobody played it).

Both ``Rating`` rows are made if missing (the unique (user, game) constraint decides a
race: the loser reads the winner's row), then locked with ``select_for_update`` in the
order of the users' ids, so two endings of the same player's matches queue on the rows
instead of deadlocking, and the second reads what the first wrote. Both new ratings
come from both players' ratings before the game. The two ``RatingChange`` rows (unique
on match and user) make the result count once: an ending told twice finds them and
changes nothing.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from games.models import Match
from ratings import glicko
from ratings.models import Rating, RatingChange


def seat_scores(match: Match) -> dict[int, float] | None:
    """Each seat's score in a finished match (1, 0.5 or 0: ``Match.score_of``), or None if
    it has no result (``Match.has_result``)."""
    if not match.has_result:
        return None
    return {seat: match.score_of(seat) for seat in (1, 2)}


def is_rated_result(match: Match) -> bool:
    users = (match.seat1_user_id, match.seat2_user_id)
    return (
        match.rated
        and None not in users
        and users[0] != users[1]
        and seat_scores(match) is not None
    )


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """The receiver of games.signals.match_finished."""
    if is_rated_result(match):
        record(match)


def record(match: Match) -> list[RatingChange]:
    """Rate ``match``'s result (inside the transaction that ends it). Returns the two
    changes, or none if it was rated already."""
    scores = seat_scores(match)
    users = {seat: match.seat_user_id(seat) for seat in (1, 2)}
    try:
        with transaction.atomic():  # a savepoint: a lost race leaves nothing behind
            rows = _locked_rows(match.game, sorted(users.values()))
            if RatingChange.objects.filter(match=match).exists():
                return []  # told twice: counted already
            before = {seat: rows[users[seat]].glicko for seat in (1, 2)}
            after = dict(zip((1, 2), glicko.game(before[1], before[2], scores[1]), strict=True))
            changes = [
                _apply(match, rows[users[seat]], before[seat], after[seat], scores[seat])
                for seat in (1, 2)
            ]
            RatingChange.objects.bulk_create(changes)
            return changes
    except IntegrityError:
        # Another transaction rated this match between our check and our insert: only
        # possible without the match row's lock; its changes stand, ours rolled back.
        if RatingChange.objects.filter(match=match).exists():
            return []
        raise


def _locked_rows(game: str, user_ids: list[int]) -> dict[int, Rating]:
    for user_id in user_ids:
        Rating.objects.get_or_create(user_id=user_id, game=game)
    locked = Rating.objects.select_for_update().filter(game=game, user_id__in=user_ids)
    return {row.user_id: row for row in locked.order_by("user_id")}


def _apply(match, row: Rating, before: glicko.Glicko, after: glicko.Glicko, score: float):
    row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
    row.games += 1
    if score == 1:
        row.wins += 1
    elif score == 0:
        row.losses += 1
    else:
        row.draws += 1
    row.save()
    return RatingChange(
        match=match,
        user_id=row.user_id,
        game=match.game,
        score=score,
        rating_before=before.rating,
        rating_after=after.rating,
        deviation_before=before.deviation,
        deviation_after=after.deviation,
        volatility_before=before.volatility,
        volatility_after=after.volatility,
    )
