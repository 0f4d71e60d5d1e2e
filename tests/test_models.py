"""The database refuses a match row that contradicts itself."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from games.models import Match
from tests.factories import make_match

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "changes",
    [
        {"mode": "computer", "computer_level": ""},
        {"mode": "friend", "computer_level": "perfect"},
        {"mode": "computer", "computer_level": "genius"},
        {"status": "paused"},
        {"game": "chess"},
        {"first_seat": 3},
        {"winner": 0},
        {"status": "finished", "finished_at": None},
    ],
)
def test_a_contradictory_match_is_refused_by_the_database(changes):
    match, _, _ = make_match("bit-flip")
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=match.pk).update(**changes)


def test_the_choices_are_defined_once_and_used_by_the_form():
    from games.forms import NewMatchForm
    from games.rules import get_game

    form = NewMatchForm(get_game("bit-flip"))
    # The new-match page words the opponents as presets ("Play a friend"...): the values
    # are the model's, each offered once.
    opponents = [value for value, _ in form.fields["opponent"].choices]
    assert sorted(opponents) == sorted(Match.Mode.values) and len(set(opponents)) == len(opponents)
    assert list(form.fields["first"].choices) == Match.First.choices
    assert [value for value, _ in form.fields["level"].choices] == [
        value for value, _ in Match.LEVEL_CHOICES
    ]


# ---- the result: one definition (Match) for boards, replay, My games, ratings, admin --------


def _ended(how: str) -> tuple[Match, str, str]:
    """A finished friend's match (Ada in seat 1, Bob in seat 2) ended ``how``."""
    from games import play
    from tests.factories import actor, both_moved

    match, t1, t2 = make_match("bit-flip", joined=how != "cancelled")
    if how == "cancelled":
        play.resign(match.public_id, by=actor(match, t1))
    elif how == "resigned":  # Bob resigns once both have moved: Ada wins
        both_moved(match)
        play.resign(match.public_id, by=actor(match, t2))
    elif how == "agreement":
        play.offer_draw(match.public_id, by=actor(match, t1))
        play.answer_draw(match.public_id, by=actor(match, t2), accept=True)
    elif how == "aborted":
        Match.objects.filter(pk=match.pk).update(
            status="finished", ending="aborted", finished_at=match.created_at, ended_by=1
        )
    match.refresh_from_db()
    return match, t1, t2


@pytest.mark.parametrize(
    ("how", "has_result", "for_ada", "for_bob", "scores", "headline"),
    [
        ("resigned", True, "won", "lost", (1.0, 0.0), "Player 1 (Ada) wins!"),
        ("agreement", True, "drawn", "drawn", (0.5, 0.5), "Draw by agreement"),
        ("cancelled", False, "other", "other", (None, None), "This match was cancelled."),
        ("aborted", False, "other", "other", (None, None), "Aborted: no result"),
    ],
)
def test_a_result_means_the_same_for_every_reader(
    how, has_result, for_ada, for_bob, scores, headline
):
    match, _, _ = _ended(how)
    assert match.has_result is has_result
    assert match.result_for({1}) == for_ada and match.result_for({2}) == for_bob
    assert match.result_for(set()) == match.result_for({1, 2}) == Match.Result.NONE
    assert (match.score_of(1), match.score_of(2)) == scores
    assert match.headline() == headline
    if how == "resigned":
        assert match.headline({1}) == "You win!"
        assert match.headline({2}) == "You lose: Player 1 (Ada) wins."
    # The database's twin of the same definition picks the same matches.
    with_result = Match.objects.with_result().filter(pk=match.pk).exists()
    assert with_result is has_result
    for user_seat, expected in ((1, for_ada), (2, for_bob)):
        users = {"seat1_user": None, "seat2_user": None, f"seat{user_seat}_user": _user()}
        Match.objects.filter(pk=match.pk).update(**users)
        filters = Match.objects.results_for(_user().pk)
        found = [r for r, q in filters.items() if Match.objects.filter(q, pk=match.pk).exists()]
        assert found == [expected], (how, user_seat)


def _user():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get_or_create(username="ada")[0]


def test_a_match_not_over_has_no_result_and_no_headline():
    match, _, _ = make_match("bit-flip")
    assert not match.has_result and match.headline() == ""
    assert match.result_for({1}) == Match.Result.NONE and match.score_of(1) is None
