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


# Each game played to its book's ending (tests/browser/helpers.py SCRIPTS), with names.
ENDINGS = {
    "last-bit-standing": (["0", "1", "1", "0", "1"], "Player 1 (Ada) made 101101"),
    "bitwise-battle": (["1", "0", "1", "1", "0", "1"], "Player 2 (Bob) made 101101"),
    "bit-flip": (["3", "5 6", "7", "1 2", "4", "8"], "Player 2 (Bob) flipped bit 8"),
    "bit-flip-divisor": (["8", "7", "6"], "Player 1 (Ada) made 00000111"),
    "last-digit-standing": (
        ["3", "6", "2", "4", "8", "1", "5"],
        "Player 2 (Bob) cannot remove a divisor or multiple of 5",
    ),
}


@pytest.mark.parametrize("slug", sorted(ENDINGS))
def test_every_end_sentence_names_the_players_as_the_board_does(slug):
    """The end sentence ("Player 2 cannot remove...") names the players as the board does."""
    from games import play
    from tests.factories import actor

    moves, sentence = ENDINGS[slug]
    match, t1, t2 = make_match(slug)
    for ply, text in enumerate(moves):
        token = t1 if ply % 2 == 0 else t2
        play.submit_move(match.public_id, by=actor(match, token), text=text, ply=ply)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result_text.startswith(sentence), match.result_text
    assert "Player 1 " not in match.result_text.replace("Player 1 (Ada)", "")
    assert "Player 2 " not in match.result_text.replace("Player 2 (Bob)", "")


def test_a_name_that_reads_like_a_player_is_not_named_twice():
    from games.rules import get_game

    game = get_game("bit-flip")
    pos = game.resign(game.start(), 1)
    names = {1: "Player 1 (Player 2)", 2: "Player 2 (Bob)"}
    assert game.describe_outcome(pos, names) == "Player 1 (Player 2) resigned."
    assert game.describe_outcome(pos) == "Player 1 resigned."
