"""The move list's words: made once per move, when it is the newest, and kept; the same
words whether this process kept them or has to replay the log to make them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import boards, play
from tests.factories import actor, make_match, mover_token
from tests.replays import long_last_bit_match, played

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_kept():
    boards._words.clear()
    boards._rows.clear()
    yield
    boards._words.clear()
    boards._rows.clear()


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
    boards._rows.clear()  # the last move written by another process: its rows not kept here
    with django_assert_num_queries(1):  # the last moves; the newest told from the position
        told = words(match)
    assert told[-1][1] == "appended 0: 10110 = 22"


def test_a_moves_push_and_the_next_page_read_no_move_list_and_list_what_a_query_does(
    django_assert_num_queries, django_capture_on_commit_callbacks
):
    match, token1, token2 = make_match("last-bit-standing")
    boards.recent_moves(match)  # the page was drawn at ply 0
    texts = ["0", "1", "1", "0"] * 12  # 48 moves: past the HISTORY_SHOWN the list keeps
    for text in texts:
        token = mover_token(match, token1, token2)
        with (
            CaptureQueriesContext(connection) as counted,
            django_capture_on_commit_callbacks(execute=True),  # the push, as after a commit
        ):
            moved = play.submit_move(
                match.public_id, by=actor(match, token), text=text, ply=match.ply
            )
        # The push's move list: the rows of the version before and the move recorded.
        assert not [
            q
            for q in counted.captured_queries
            if '"games_move"' in q["sql"] and "SELECT" in q["sql"]
        ], "the push read the moves"
        match = moved
    assert match.status == match.Status.PLAYING and match.ply == len(texts)
    match.refresh_from_db()
    with django_assert_num_queries(0):
        kept = boards.last_rows(match)
    boards._rows.clear()
    assert kept == boards.last_rows(match)  # what one query reads
    assert len(kept) == boards.HISTORY_SHOWN and kept[-1][0] == match.ply


def test_past_the_replayed_length_earlier_moves_are_told_without_their_position():
    match = long_last_bit_match(boards.DESCRIBED_PLIES + 5, lose=False)
    told = words(match)
    assert [said for _, said, _ in told[:-1]] == [
        f"appended {m['text']}" for m in boards.recent_moves(match)[:-1]
    ]
    assert len(boards._words) == 1  # only the newest, told from the stored position, is kept
