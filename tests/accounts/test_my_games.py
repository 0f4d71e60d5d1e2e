"""My games: the ongoing matches first (their turn marked and first), then the finished
ones, filtered by game and result, each linking to its match and, when there is one, its
replay."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts import my_games
from games import play
from games.models import Match
from tests.accounts.helpers import account, actor_of, match_of
from tests.factories import both_moved

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
OPPONENT_SEAT2 = play.Actor(seats=frozenset({2}))  # the anonymous browser in seat 2


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def rows(html: str, section: str) -> list[str]:
    """The match ids listed in a section of the page, in order."""
    part = re.search(rf'<section id="{section}".*?</section>', html, re.S).group(0)
    return re.findall(r'<li class="game[^"]*" id="game-([\w-]{16})"', part)


def row_html(html: str, match: Match) -> str:
    return re.search(
        rf'<li class="game[^"]*" id="game-{match.public_id}".*?</li>', html, re.S
    ).group(0)


def first_move(match: Match) -> str:
    match.refresh_from_db()
    return match.rules.legal_moves(match.current)[0]


def played_once(match: Match, by) -> Match:
    match.refresh_from_db()
    return play.submit_move(match.public_id, by=by, text=first_move(match), ply=match.ply)


@pytest.fixture
def ada_and_bob():
    return account("ada"), account("bob")


def test_signed_out_visitors_are_sent_to_sign_in():
    response = Client().get("/accounts/games/?result=won")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/games/%3Fresult%3Dwon"


def test_ongoing_first_their_turn_first_then_finished(ada_and_bob):
    ada, bob = ada_and_bob
    theirs = match_of(ada, opponent=bob, first="opponent")  # Bob to move
    waiting = match_of(ada, joined=False)  # nobody joined yet
    mine = match_of(ada, opponent=bob)  # Ada to move
    computer = match_of(ada, "bit-flip-divisor", mode="computer")  # Ada to move
    hotseat = match_of(ada, "last-digit-standing", mode="hotseat")  # always Ada's turn
    won = match_of(ada, opponent=bob)
    played_once(won, actor_of(ada))
    both_moved(won)
    play.resign(won.public_id, by=actor_of(bob))
    strangers = match_of(bob, opponent=account("cy"))  # not Ada's

    html = signed_in(ada).get("/accounts/games/").content.decode()

    ongoing = rows(html, "ongoing")
    assert set(ongoing[:3]) == {mine.public_id, computer.public_id, hotseat.public_id}
    assert set(ongoing[3:]) == {theirs.public_id, waiting.public_id}
    assert rows(html, "finished") == [won.public_id]
    assert html.index('id="ongoing"') < html.index('id="finished"')
    assert strangers.public_id not in html
    assert "Your turn in 3 matches." in html
    for match in (mine, computer, hotseat):
        assert '<span class="badge turn">Your turn</span>' in row_html(html, match)
    for match in (theirs, waiting):
        assert "Your turn" not in row_html(html, match)
    assert "Waiting for Player 1 (bob)" in row_html(html, theirs)  # Bob went first
    assert "Waiting for an opponent" in row_html(html, waiting)
    assert "vs bob" in row_html(html, mine)
    assert "vs the computer (random)" in row_html(html, computer)
    assert "on one device" in row_html(html, hotseat)
    assert "no opponent yet" in row_html(html, waiting)
    assert "You win!" in row_html(html, won) and "Won" in row_html(html, won)


def test_each_row_links_its_match_and_its_replay_when_there_is_one(ada_and_bob):
    ada, bob = ada_and_bob
    ongoing = match_of(ada, opponent=bob)
    cancelled = match_of(ada, joined=False)
    play.resign(cancelled.public_id, by=actor_of(ada))  # before anyone joined: cancelled
    resigned_at_once = match_of(ada, opponent=bob)
    # No move: resigning aborts it (no result), and there is nothing to replay.
    play.resign(resigned_at_once.public_id, by=actor_of(ada))
    replayable = match_of(ada, opponent=bob)
    played_once(replayable, actor_of(ada))
    both_moved(replayable)
    play.resign(replayable.public_id, by=actor_of(ada))

    html = signed_in(ada).get("/accounts/games/").content.decode()

    for match in (ongoing, cancelled, resigned_at_once, replayable):
        assert f'href="/m/{match.public_id}/"' in row_html(html, match)
    assert f'href="/m/{replayable.public_id}/replay/"' in row_html(html, replayable)
    for match in (ongoing, cancelled, resigned_at_once):
        assert "/replay/" not in row_html(html, match)
    assert "Other" in row_html(html, cancelled)
    assert "Other" in row_html(html, resigned_at_once)


def finished_matches(ada, bob) -> dict[str, list[Match]]:
    """Ada's finished matches of every kind, by what each is for her."""
    won = match_of(ada, opponent=bob)
    both_moved(won)
    play.resign(won.public_id, by=actor_of(bob))
    won_second = match_of(bob, "last-digit-standing", opponent=ada)  # Ada in seat 2
    both_moved(won_second)
    play.resign(won_second.public_id, by=actor_of(bob))
    won_went_second = match_of(ada, "bit-flip-divisor", opponent=bob, first="opponent")
    both_moved(won_went_second)
    play.resign(won_went_second.public_id, by=actor_of(bob))
    lost = match_of(ada, opponent=None)  # an anonymous opponent
    both_moved(lost)
    play.resign(lost.public_id, by=actor_of(ada))
    lost_second = match_of(bob, opponent=ada, first="opponent")
    both_moved(lost_second)
    play.resign(lost_second.public_id, by=actor_of(ada))
    lost_to_computer = match_of(ada, "bit-flip-divisor", mode="computer")
    play.resign(lost_to_computer.public_id, by=actor_of(ada))
    drawn = match_of(ada, opponent=bob)
    play.offer_draw(drawn.public_id, by=actor_of(bob))
    play.answer_draw(drawn.public_id, by=actor_of(ada), accept=True)
    cancelled = match_of(ada, joined=False)
    play.resign(cancelled.public_id, by=actor_of(ada))
    hotseat = match_of(ada, "last-digit-standing", mode="hotseat")
    play.resign(hotseat.public_id, by=actor_of(ada))
    return {
        "won": [won, won_second, won_went_second],
        "lost": [lost, lost_second, lost_to_computer],
        "drawn": [drawn],
        "other": [cancelled, hotseat],
    }


def test_results_mean_the_same_in_the_filter_and_on_each_row(ada_and_bob):
    ada, bob = ada_and_bob
    expected = finished_matches(ada, bob)
    for result, matches in expected.items():
        filtered = set(my_games.finished(ada.pk, result=result).values_list("pk", flat=True))
        assert filtered == {m.pk for m in matches}, result
        for match in matches:
            match.refresh_from_db()
            assert my_games.result_for(match, ada.pk) == result, (result, match.ending)
    # Every finished match has exactly one result.
    assert my_games.finished(ada.pk).count() == sum(len(m) for m in expected.values())


def test_the_filters_by_game_and_result_work_without_javascript(ada_and_bob):
    ada, bob = ada_and_bob
    expected = finished_matches(ada, bob)
    client = signed_in(ada)
    html = client.get("/accounts/games/", {"result": "won"}).content.decode()
    assert set(rows(html, "finished")) == {m.public_id for m in expected["won"]}
    assert '<option value="won" selected>' in html
    html = client.get("/accounts/games/", {"result": "won", "game": "bit-flip"}).content.decode()
    assert rows(html, "finished") == [expected["won"][0].public_id]
    html = client.get("/accounts/games/", {"game": "last-digit-standing"}).content.decode()
    assert set(rows(html, "finished")) == {
        expected["won"][1].public_id,
        expected["other"][1].public_id,
    }
    html = client.get("/accounts/games/", {"result": "drawn", "game": "bit-flip-divisor"})
    assert rows(html.content.decode(), "finished") == []
    assert "No finished game matches these filters." in html.content.decode()
    form = re.search(
        r'<form class="row filters" method="get".*?</form>', html.content.decode(), re.S
    )
    assert form and 'name="game"' in form.group(0) and 'name="result"' in form.group(0)


@pytest.mark.parametrize(
    "query", [{"result": "bogus"}, {"game": "chess"}, {"result": ["won", "<script>"]}]
)
def test_a_bad_filter_says_so_and_lists_everything(ada_and_bob, query):
    ada, bob = ada_and_bob
    expected = finished_matches(ada, bob)
    response = signed_in(ada).get("/accounts/games/", query)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Select a valid choice" in html and "<script>" not in html
    assert len(rows(html, "finished")) == sum(len(m) for m in expected.values())


def test_the_finished_list_is_paged_and_the_pages_keep_the_filters(ada_and_bob):
    ada, bob = ada_and_bob
    for _ in range(my_games.FINISHED_PER_PAGE + 3):
        match = match_of(ada, opponent=bob)
        both_moved(match)
        play.resign(match.public_id, by=actor_of(bob))
    lost = match_of(ada, opponent=bob)
    both_moved(lost)
    play.resign(lost.public_id, by=actor_of(ada))
    client = signed_in(ada)
    first = client.get("/accounts/games/", {"result": "won"}).content.decode()
    assert len(rows(first, "finished")) == my_games.FINISHED_PER_PAGE
    assert "Page 1 of 2" in first
    assert 'href="?result=won&amp;page=2"' in first
    second = client.get("/accounts/games/", {"result": "won", "page": 2}).content.decode()
    assert len(rows(second, "finished")) == 3
    assert lost.public_id not in first + second
    assert 'href="?result=won&amp;page=1"' in second
    # Out of range and junk pages give a page, never an error.
    assert client.get("/accounts/games/", {"page": 99}).status_code == 200
    assert client.get("/accounts/games/", {"page": "x"}).status_code == 200


def test_htmx_asks_for_the_finished_list_alone(ada_and_bob):
    ada, bob = ada_and_bob
    match = match_of(ada, opponent=bob)
    both_moved(match)
    play.resign(match.public_id, by=actor_of(bob))
    response = signed_in(ada).get("/accounts/games/", {"result": "won"}, **HTMX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="finished"')
    assert "<html" not in html and 'id="ongoing"' not in html
    assert rows(html, "finished") == [match.public_id]
    assert "HX-Request" in response["Vary"]


def test_the_pushed_list_asks_for_the_finished_list_only_when_a_match_ended(ada_and_bob):
    ada, bob = ada_and_bob
    match_of(ada, opponent=bob)
    html, _ = my_games.render_ongoing(ada.pk)
    assert html.lstrip().startswith('<section id="ongoing"') and "finished-refresh" not in html
    html, _ = my_games.render_ongoing(ada.pk, finished_changed=True)
    refresh = re.search(r'<div id="finished-refresh"[^>]*>', html).group(0)
    assert 'hx-get=""' in refresh and 'hx-trigger="load"' in refresh
    assert 'hx-target="#finished"' in refresh


def test_a_long_ongoing_list_is_cut_and_says_so(ada_and_bob, monkeypatch):
    ada, bob = ada_and_bob
    monkeypatch.setattr(my_games, "ONGOING_SHOWN", 3)
    made = [match_of(ada, opponent=bob, first="opponent") for _ in range(4)]
    mine = match_of(ada, opponent=bob)
    html = signed_in(ada).get("/accounts/games/").content.decode()
    listed = rows(html, "ongoing")
    assert listed[0] == mine.public_id and len(listed) == 3
    assert made[0].public_id not in listed  # the oldest
    assert "The newest 3 of 5 ongoing matches are listed." in html
    assert "Ongoing (5)" in html
