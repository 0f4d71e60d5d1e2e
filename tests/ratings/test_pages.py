"""What the ratings show: the end of a rated game (board, replay), the player pages, the
leaderboards, the "Rated" choice of the new-match form, the rated match's join panel."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import boards, extras, play
from games.models import Match
from ratings.models import Rating, RatingChange
from tests.factories import actor, client_with_token, make_match
from tests.ratings.helpers import account, both_moved, rated_match, resign, signed_in

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)))


def end_notes(html: str) -> str:
    found = re.search(r'<ul class="end-notes" id="end-notes">(.*?)</ul>', html, re.S)
    return text_of(found.group(1)).strip() if found else ""


@pytest.fixture
def finished():
    """Ada (seat 1, Player 1) beat Bob (seat 2), rated."""
    ada, bob = account("ada"), account("bob")
    match, token1, token2 = rated_match(ada, bob)
    resign(match, token2)
    match.refresh_from_db()
    return match, token1, token2


# ---- the end of a rated game ----------------------------------------------------------


def test_the_board_shows_both_rating_changes_to_players_and_spectators(finished):
    match, token1, token2 = finished
    expected = "Ratings: ada 1662? (+162), bob 1338? (\u2212162)"
    for client in (client_with_token(token1), client_with_token(token2), Client()):
        html = client.get(match.get_absolute_url()).content.decode()
        assert end_notes(html) == expected
        assert 'href="/players/ada/"' in html and 'href="/players/bob/"' in html
        assert 'id="rated">Rated</span>' in html
        partial = client.get(match.get_absolute_url(), **HTMX).content.decode()
        assert end_notes(partial) == expected


def test_every_kind_of_viewer_gets_them_in_the_push(finished):
    match, _, _ = finished
    drawn = boards.render_kinds(match)
    assert set(drawn) == {"spectator", "seat1", "seat2"}
    for html in drawn.values():
        assert end_notes(html).startswith("Ratings: ada 1662? (+162)")


def test_the_replay_shows_them():
    ada, bob = account("ada"), account("bob")
    match, token1, _ = rated_match(ada, bob)
    play.submit_move(match.public_id, by=actor(match, token1), text="3", ply=0)
    resign(Match.objects.get(pk=match.pk), token1)  # Ada resigns after a move
    html = Client().get(f"/m/{match.public_id}/replay/").content.decode()
    assert end_notes(html) == "Ratings: ada 1338? (\u2212162), bob 1662? (+162)"
    assert 'id="rated">Rated</span>' in html
    step = Client().get(f"/m/{match.public_id}/replay/?ply=1", **HTMX).content.decode()
    assert 'id="replay"' in step and 'id="end-notes"' not in step  # a step redraws the board


def test_a_draw_between_established_players_shows_no_provisional_mark():
    ada, bob = account("ada"), account("bob")
    Rating.objects.create(user=ada, game="bit-flip", rating=1700, deviation=60)
    Rating.objects.create(user=bob, game="bit-flip", rating=1500, deviation=60)
    match, token1, token2 = rated_match(ada, bob)
    play.offer_draw(match.public_id, by=actor(match, token1))
    play.answer_draw(match.public_id, by=actor(match, token2), accept=True)
    ada_change = RatingChange.objects.get(match=match, user=ada)
    bob_change = RatingChange.objects.get(match=match, user=bob)
    assert ada_change.rating_after < 1700 and bob_change.rating_after > 1500
    html = Client().get(match.get_absolute_url()).content.decode()
    assert end_notes(html) == (
        f"Ratings: ada {round(ada_change.rating_after)} ({ada_change.delta_text}), "
        f"bob {round(bob_change.rating_after)} (+{round(bob_change.rating_after) - 1500})"
    )
    assert ada_change.delta_text.startswith("\u2212")


def test_unrated_and_unfinished_matches_show_no_ratings():
    ada, bob = account("ada"), account("bob")
    unrated, _, token2 = rated_match(ada, bob, rated=False)
    resign(unrated, token2)
    html = Client().get(unrated.get_absolute_url()).content.decode()
    assert 'id="end-notes"' not in html and "Rated</span>" not in html
    playing, _, _ = rated_match(ada, bob)
    html = Client().get(playing.get_absolute_url()).content.decode()
    assert 'id="end-notes"' not in html and 'id="rated">Rated</span>' in html


def queries(fn) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured.captured_queries)


def test_only_a_finished_rated_match_costs_a_query(monkeypatch, finished):
    ada, bob = account("cy"), account("dee")
    playing, _, _ = rated_match(ada, bob)
    unrated, _, token2 = rated_match(ada, bob, rated=False)
    resign(unrated, token2)
    computer, _, _ = make_match(mode="computer", name="Eve")  # no account's name
    rated_done = finished[0]
    cases = [playing, unrated, computer, rated_done]
    # Each count from a fresh read of the match, with the process's caches of what a game's
    # moves give (games/boards.py) warm for both: only the notes differ.
    for m in cases:
        boards.scene(Match.objects.get(pk=m.pk))
    with_notes = [queries(lambda m=m: boards.scene(Match.objects.get(pk=m.pk))) for m in cases]
    monkeypatch.setattr(extras, "_end_notes", [])
    without = [queries(lambda m=m: boards.scene(Match.objects.get(pk=m.pk))) for m in cases]
    assert [a - b for a, b in zip(with_notes, without, strict=True)] == [0, 0, 0, 1]


def test_a_failing_note_is_left_out_and_the_board_is_drawn(monkeypatch, finished, caplog):
    match, token1, _ = finished

    def broken(match):
        raise RuntimeError("no notes today")

    monkeypatch.setattr(extras, "_end_notes", [broken, *extras._end_notes])
    html = client_with_token(token1).get(match.get_absolute_url()).content.decode()
    assert 'id="board"' in html and end_notes(html).startswith("Ratings:")
    assert "no notes today" in caplog.text


# ---- the rated choice and the join panel -------------------------------------------------


def form(slug="bit-flip", **fields):
    data = {f"{slug}-first": "me", f"{slug}-opponent": "friend", f"{slug}-width": "8"}
    data.update({f"{slug}-{name}": value for name, value in fields.items()})
    return data


def test_the_rated_choice_is_offered_to_the_signed_in_only():
    assert 'name="bit-flip-rated"' not in Client().get("/games/bit-flip/new/").content.decode()
    html = signed_in(account("ada")).get("/games/bit-flip/new/").content.decode()
    assert re.search(
        r'class="field for-friend" id="rated-choice">\s*<label class="choice">'
        r'<input type="checkbox" name="bit-flip-rated"',
        html,
    )


def test_a_signed_in_player_creates_a_rated_match():
    ada = account("ada")
    browser = signed_in(ada)
    response = browser.post("/games/bit-flip/new/", form(rated="on"))
    assert response.status_code == 303
    match = Match.objects.get()
    assert (match.rated, match.seat1_user, match.mode) == (True, ada, "friend")
    page = browser.get(match.get_absolute_url()).content.decode()
    assert "your friend must be signed in to join" in page


def test_rated_is_ignored_from_the_anonymous_and_for_other_opponents():
    Client().post("/games/bit-flip/new/", form(rated="on"))
    ada = account("ada")
    signed_in(ada).post(
        "/games/bit-flip/new/", form(rated="on", opponent="computer", level="strong")
    )
    signed_in(ada).post("/games/bit-flip/new/", form(rated="on", opponent="hotseat"))
    signed_in(ada).post("/games/bit-flip/new/", form())
    made = list(Match.objects.order_by("created_at").values_list("mode", "rated", "seat1_user"))
    assert made == [
        ("friend", False, None),
        ("computer", False, ada.pk),
        ("hotseat", False, ada.pk),
        ("friend", False, ada.pk),
    ]


def test_a_rated_match_says_its_second_seat_needs_an_account_and_refuses_the_anonymous():
    ada = account("ada")
    match = play.create_match("bit-flip", token="ada-browser", user=ada, rated=True)
    page = Client().get(match.get_absolute_url()).content.decode()
    assert "only a signed-in player can take its second seat" in text_of(page)
    assert f'href="/accounts/login/?next=/m/{match.public_id}/"' in page
    refused = Client().post(f"/m/{match.public_id}/join", {"name": "Guest"}, **HTMX)
    assert refused.status_code == 409
    assert "sign in (or sign up) to take its second seat" in refused.content.decode()
    bob = account("bob")
    joined = signed_in(bob).post(f"/m/{match.public_id}/join", {"name": "Bob"})
    assert joined.status_code == 303
    match.refresh_from_db()
    assert (match.status, match.seat2_user) == ("playing", bob)


# ---- player pages ------------------------------------------------------------------------


def test_a_player_page_shows_each_games_rating_record_chart_and_recent_games():
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    first, _, bob_token = rated_match(ada, bob)
    resign(first, bob_token)  # Ada wins
    second, ada_token, _ = rated_match(ada, cy)
    resign(second, ada_token)  # Ada loses
    unrated, _, cy_token = rated_match(ada, cy, rated=False)
    resign(unrated, cy_token)
    against_computer = play.create_match(
        "last-digit-standing", token="ada-pc", mode="computer", level="random", user=ada
    )
    resign(against_computer, "ada-pc")
    html = Client().get("/players/ada/").content.decode()
    row = Rating.objects.get(user=ada, game="bit-flip")
    section = html.split('id="game-bit-flip"', 1)[1].split("</section>", 1)[0]
    assert f'id="rating-bit-flip">{row.shown}</span>' in section and row.shown.endswith("?")
    assert re.search(
        r"<dt>Rated games</dt><dd>2</dd>\s*<dt>Wins</dt><dd>1</dd>\s*"
        r"<dt>Losses</dt><dd>1</dd>\s*<dt>Draws</dt><dd>0</dd>",
        section,
    )
    # The chart: the rating before the first game, then after each of the two.
    points = re.search(r'<polyline class="line" points="([^"]+)"', section).group(1).split()
    assert len(points) == 3
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[1] < ys[0] and ys[2] > ys[1]  # up after the win, down after the loss
    assert "style=" not in section
    caption = f"ada's Bit Flip rating over the last 2 rated games: from 1500 to {round(row.rating)}"
    assert caption in text_of(section)
    # The dates of the first and last game shown, under the chart's ends and in the caption.
    played = (
        RatingChange.objects.filter(user=ada, game="bit-flip").earliest("created_at").created_at
    )
    date = f"{played.day} {played:%b %Y}"
    assert re.findall(
        r'<text class="label" x="[\d.]+" y="[\d.]+" text-anchor="(?:start|end)">([^<]+)</text>',
        section,
    )[-2:] == [date, date]
    assert f"played on {date}." in text_of(section)
    # Recent games, newest first, rated or not, each linking its match and replay.
    recent = text_of(section.split("Recent games", 1)[1])
    assert re.search(
        r"cy won unrated .* cy lost 1\d{3}\? \(\u2212\d+\) .* bob won 1662\? \(\+162\)", recent
    ), recent
    assert f'href="/m/{first.public_id}/"' in section
    # Opponents with an account link to their page; the computer does not.
    assert (
        '<a href="/players/bob/">bob</a>' in section and '<a href="/players/cy/">cy</a>' in section
    )
    assert f'href="/m/{first.public_id}/replay/"' in section
    computer = html.split('id="game-last-digit-standing"', 1)[1].split("</section>", 1)[0]
    assert "No rated games yet." in computer and "the computer (random)" in computer


def test_all_of_a_players_games_are_paged_and_filtered_by_game_and_opponent(monkeypatch):
    from ratings import views

    monkeypatch.setattr(views, "GAMES_PER_PAGE", 2)
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    games = []
    for other, slug in ((bob, "bit-flip"), (cy, "bit-flip"), (bob, "last-bit-standing")):
        match, token, _ = rated_match(ada, other, slug)
        resign(match, token)
        games.append(match)
    waiting = play.create_match("bit-flip", token="t", user=ada)  # not finished: not listed
    page = Client().get("/players/ada/").content.decode()
    assert '<a href="/players/ada/games/">All 3 finished games</a>' in page
    first = Client().get("/players/ada/games/")
    html = first.content.decode()
    assert first.status_code == 200 and "3 games, page 1 of 2, newest first." in text_of(html)
    assert games[2].public_id in html and games[1].public_id in html
    assert games[0].public_id not in html and waiting.public_id not in html
    assert 'href="?page=2" rel="next">Older</a>' in html
    second = Client().get("/players/ada/games/?page=2").content.decode()
    assert games[0].public_id in second and 'rel="prev">Newer</a>' in second
    by_game = Client().get("/players/ada/games/?game=last-bit-standing").content.decode()
    assert games[2].public_id in by_game and games[1].public_id not in by_game
    against = Client().get("/players/ada/games/?against=bob").content.decode()
    assert games[0].public_id in against and games[2].public_id in against
    assert games[1].public_id not in against and "2 games, newest first." in text_of(against)
    kept = Client().get("/players/ada/games/?game=&page=2").content.decode()
    assert 'href="?game=&amp;page=1" rel="prev">Newer</a>' in kept  # the filters kept
    # Bad filters: said next to the form, the list unfiltered; never a 500.
    for query, says in (
        ("?against=nobody", "There is no player named “nobody”."),
        ("?game=chess", "Select a valid choice."),
        ("?against=%3Cb%3Ex%3C/b%3E", "There is no player named “&lt;b&gt;x&lt;/b&gt;”."),
        ("?against=" + "x" * 200, "at most 150 characters"),
    ):
        response = Client().get("/players/ada/games/" + query)
        assert response.status_code == 400 and says in response.content.decode(), query
    assert Client().get("/players/ada/games/?page=junk").status_code == 200
    assert Client().get("/players/nobody/games/").status_code == 404


def test_a_signed_in_visitor_sees_their_record_against_the_player():
    ada, bob, cy = account("ada"), account("bob"), account("cy")
    for loser in ("bob", "bob", "ada"):
        match, ada_token, bob_token = rated_match(ada, bob)
        resign(match, bob_token if loser == "bob" else ada_token)
    drawn, ada_token, bob_token = rated_match(ada, bob, "last-bit-standing")
    both_moved(drawn)
    play.offer_draw(drawn.public_id, by=actor(drawn, ada_token))
    play.offer_draw(drawn.public_id, by=actor(drawn, bob_token))
    page = signed_in(bob).get("/players/ada/").content.decode()
    line = text_of(page.split('id="head-to-head"', 1)[1].split("</p>", 1)[0])
    assert "You and ada: 4 games; ada won 2, you won 1, 1 drawn." in line, line
    assert 'href="/players/ada/games/?against=bob">Your games together</a>' in page
    assert (
        "have not finished a game together" in signed_in(cy).get("/players/ada/").content.decode()
    )
    assert 'id="head-to-head"' not in signed_in(ada).get("/players/ada/").content.decode()
    assert 'id="head-to-head"' not in Client().get("/players/ada/").content.decode()


def test_a_player_without_games_and_an_unknown_player():
    account("newbie")
    html = Client().get("/players/newbie/").content.decode()
    assert "newbie has not finished a game yet." in html
    missing = Client().get("/players/nobody-here/")
    assert missing.status_code == 404 and "Not found" in missing.content.decode()
    inactive = account("gone")
    inactive.is_active = False
    inactive.save()
    assert Client().get("/players/gone/").status_code == 404


# ---- leaderboards --------------------------------------------------------------------------


def test_the_leaderboard_lists_established_ratings_best_first():
    names = {"ada": (1810, 60), "bob": (1650, 100), "cy": (1900, 200), "dee": (1700, 110.0)}
    for name, (rating, deviation) in names.items():
        Rating.objects.create(
            user=account(name), game="bit-flip", rating=rating, deviation=deviation
        )
    Rating.objects.create(user=account("eve"), game="bit-flip-divisor", rating=2000, deviation=50)
    html = Client().get("/games/bit-flip/leaderboard/").content.decode()
    rows = re.findall(r'<a href="/players/(\w+)/">\w+</a></td>\s*<td>(\d+)</td>', html)
    assert rows == [("ada", "1810"), ("dee", "1700"), ("bob", "1650")]  # cy is provisional
    assert "<td>1</td>" in html and "<td>3</td>" in html
    empty = Client().get("/games/last-bit-standing/leaderboard/").content.decode()
    assert 'id="no-leaders"' in empty
    assert Client().get("/games/chess/leaderboard/").status_code == 404


def test_the_leaderboard_is_paginated(settings):
    for i in range(53):
        Rating.objects.create(
            user=account(f"p{i:02}"), game="bit-flip", rating=1000 + i, deviation=50
        )
    first = Client().get("/games/bit-flip/leaderboard/").content.decode()
    second = Client().get("/games/bit-flip/leaderboard/?page=2").content.decode()
    junk = Client().get("/games/bit-flip/leaderboard/?page=x").content.decode()
    assert first.count("/players/p") == 50 and "Page 1 of 2" in first
    assert '<a href="/players/p52/">' in first and "p02" not in first
    assert second.count("/players/p") == 3 and "<td>51</td>" in second
    assert "Page 1 of 2" in junk and '<a href="/players/p52/">' in junk


def test_the_rules_page_links_the_leaderboard():
    html = Client().get("/games/bit-flip/").content.decode()
    assert 'href="/games/bit-flip/leaderboard/" id="leaderboard-link"' in html
