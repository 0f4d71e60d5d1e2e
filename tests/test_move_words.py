"""The move list's words: made once per move, when it is the newest, and kept; the same
words whether this process kept them or has to replay the log to make them."""

from __future__ import annotations

import pytest

from games import boards, play
from tests.factories import actor, make_match, mover_token
from tests.replays import long_last_bit_match, played

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_kept():
    boards._words.clear()
    yield
    boards._words.clear()


def words(match) -> list[tuple[str, str, frozenset]]:
    return [(m["ply"], m["words"], frozenset(m["touched"])) for m in boards.recent_moves(match)]


def test_kept_words_are_the_replayed_words():
    match = played("bitwise-battle", ["1", "0", "1", "1"])
    replayed = words(match)
    assert replayed[-1][1] == "added 1: 1011 = 11"
    assert replayed[0][1] == "added 1: 1 = 1"  # an earlier move, told in full
    kept = words(match)
    assert kept == replayed
    assert len(boards._words) == 4


def test_a_move_on_a_known_log_costs_one_query_and_no_replay(django_assert_num_queries):
    match, token1, token2 = make_match("last-bit-standing")
    for text in ["0", "1", "1", "0"]:  # 10, 101, 1011, 10110: nobody loses
        token = mover_token(match, token1, token2)
        play.submit_move(match.public_id, by=actor(match, token), text=text, ply=match.ply)
        match.refresh_from_db()
        if match.ply == 3:
            words(match)  # the page was drawn: every move's words so far are kept
    with django_assert_num_queries(1):  # the last moves; the newest told from the position
        told = words(match)
    assert told[-1][1] == "appended 0: 10110 = 22"


def test_past_the_replayed_length_earlier_moves_are_told_without_their_position():
    match = long_last_bit_match(boards.DESCRIBED_PLIES + 5, lose=False)
    told = words(match)
    assert [said for _, said, _ in told[:-1]] == [
        f"appended {m['text']}" for m in boards.recent_moves(match)[:-1]
    ]
    assert len(boards._words) == 1  # only the newest, told from the stored position, is kept
