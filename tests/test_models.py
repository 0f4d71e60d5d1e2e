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
