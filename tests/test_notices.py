"""Notices: what a change tells some of its viewers (a declined draw offer, told to the
offerer), and answers that leave the page's notice alone when they have nothing to say.
How long a notice stays on the page is the browser's (tests/browser/test_notices.py)."""

from __future__ import annotations

import pytest

from games import play
from games.boards import DrawDeclined, render_board
from games.models import Match
from games.rights import SPECTATOR, Viewer
from tests.factories import actor, client_with_token, make_match

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NOTICE = 'hx-swap-oob="innerHTML:#notice"'
SEAT1, SEAT2 = Viewer(frozenset({1})), Viewer(frozenset({2}))


def boards_of(match: Match) -> dict[str, str]:
    """The board each kind of viewer is pushed for this change (as live.Push draws it)."""
    return {
        viewer.key: render_board(match, viewer, told=match.told)
        for viewer in (SPECTATOR, SEAT1, SEAT2)
    }


def test_a_declined_offer_is_told_to_the_offerer_only():
    match, t1, t2 = make_match("last-bit-standing", name="Ada", opponent="Bob")
    play.offer_draw(match.public_id, by=actor(match, t1))
    declined = play.answer_draw(match.public_id, by=actor(match, t2), accept=False)
    assert declined.told == DrawDeclined(offerer=1)
    drawn = boards_of(declined)
    assert NOTICE in drawn["seat1"]
    assert "Player 2 (Bob) declines your draw offer." in drawn["seat1"]
    for kind in ("seat2", "spectator"):
        assert NOTICE not in drawn[kind] and "declines" not in drawn[kind]
    # The decliner's own answer says nothing, and leaves their notice area as it is.
    fresh = Match.objects.get(pk=match.pk)
    play.offer_draw(match.public_id, by=actor(fresh, t1))
    answer = client_with_token(t2).post(
        f"/m/{match.public_id}/draw/answer", {"answer": "decline"}, **HTMX
    )
    assert answer.status_code == 200
    assert NOTICE not in answer.content.decode()
    assert Match.objects.get(pk=match.pk).draw_offer is None


def test_a_move_by_the_offerers_opponent_is_told_as_a_declined_offer():
    match, t1, t2 = make_match("last-bit-standing", name="Ada", opponent="Bob")
    play.submit_move(match.public_id, by=actor(match, t1), text="0", ply=0)  # 10
    play.offer_draw(match.public_id, by=actor(match, t1))
    moved = play.submit_move(match.public_id, by=actor(match, t2), text="1", ply=1)  # 101
    assert moved.told == DrawDeclined(offerer=1, by_move=True)
    drawn = boards_of(moved)
    assert "Player 2 (Bob) played on: your draw offer is declined." in drawn["seat1"]
    assert NOTICE not in drawn["seat2"] and NOTICE not in drawn["spectator"]
    # The next change tells nothing: the notice stays on the page until Ada acts.
    again = play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=2)  # 1011
    assert again.told is None
    assert NOTICE not in boards_of(again)["seat1"]


def test_the_computers_answer_is_told_once_and_its_move_leaves_it_alone():
    """Offered while the computer is to move (a player who offers right after their
    move): the decline is in the answer; the computer's move then answers without
    touching the notice (it used to clear it, and so did the page, as the version moved)."""
    match, t1, _ = make_match("bit-flip", mode="computer", options={"width": 8})
    client = client_with_token(t1)
    client.post(f"/m/{match.public_id}/move", {"move": "1", "ply": "0"}, **HTMX)
    assert Match.objects.get(pk=match.pk).computer_to_move
    answer = client.post(f"/m/{match.public_id}/draw", **HTMX).content.decode()
    assert answer.count(NOTICE) == 1
    assert "The computer declines: one side can still force a win." in answer
    fresh = Match.objects.get(pk=match.pk)
    assert fresh.status == "playing" and fresh.draw_offer is None
    reply = client.post(f"/m/{match.public_id}/computer", **HTMX)
    assert reply.status_code == 200 and 'data-ply="2"' in reply.content.decode()
    assert NOTICE not in reply.content.decode()


def test_without_javascript_the_computers_answer_is_on_the_next_page():
    match, t1, _ = make_match("bit-flip", mode="computer", options={"width": 8})
    client = client_with_token(t1)
    response = client.post(f"/m/{match.public_id}/draw")
    assert response.status_code == 303
    page = client.get(response["Location"]).content.decode()
    assert "The computer declines: one side can still force a win." in page
    assert "The computer declines" not in client.get(response["Location"]).content.decode()


def test_an_answer_with_nothing_to_say_leaves_the_notice_and_a_refusal_sets_it():
    match, t1, _ = make_match("bit-flip")
    client = client_with_token(t1)
    moved = client.post(f"/m/{match.public_id}/move", {"move": "1", "ply": "0"}, **HTMX)
    assert moved.status_code == 200 and NOTICE not in moved.content.decode()
    refused = client.post(f"/m/{match.public_id}/move", {"move": "2", "ply": "0"}, **HTMX)
    assert refused.status_code == 409
    assert NOTICE in refused.content.decode() and "out of date" in refused.content.decode()
