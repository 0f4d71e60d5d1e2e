"""The admin: list and change pages for every game, access, read-only finished matches, export."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import Match, Move
from games.rules import GAMES, Verdict
from tests.replays import (
    BLUNDER_GAME,
    logged_in,
    long_last_bit_match,
    played,
    seeded_moves,
    staff_user,
)

pytestmark = pytest.mark.django_db

LIST = "/admin/games/match/"


def change_url(match: Match) -> str:
    return f"/admin/games/match/{match.pk}/change/"


def one_per_game() -> list[Match]:
    return [played(game.slug, seeded_moves(game.slug, 7)) for game in GAMES]


def test_the_list_shows_every_game_with_its_columns():
    matches = one_per_game()
    waiting = played("bit-flip", joined=False, name="Zoe")
    html = logged_in(staff_user()).get(LIST).content.decode()
    for match in [*matches, waiting]:
        row = re.search(rf"<tr>.*?{match.public_id}.*?</tr>", html, re.S).group(0)
        assert match.rules.title in row
        assert match.options_summary() in row
        assert "Player 1 (Ada)" in row or "Player 1 (Zoe)" in row
        assert f'<td class="field-move_count">{match.ply}</td>' in row
    finished = re.search(rf"<tr>.*?{matches[0].public_id}.*?</tr>", html, re.S).group(0)
    assert matches[0].player_name(matches[0].winner) in finished
    assert "Finished" in finished
    # Filters by game, status, mode, winner and date; a date hierarchy; a search box.
    for title in ("game", "status", "mode", "winner", "created", "finished"):
        assert f"By {title}" in html
    assert 'id="searchbar"' in html
    # Browse by date: all these matches were made today, so the hierarchy offers this year.
    year = matches[0].created_at.year
    assert re.search(rf'<nav class="toplinks">.*?created_at__year={year}.*?</nav>', html, re.S)


def test_the_list_counts_moves_without_a_query_per_row():
    one_per_game()
    client = logged_in(staff_user())
    client.get(LIST)  # warm up (sessions, content types)
    with CaptureQueriesContext(connection) as few:
        client.get(LIST)
    for _ in range(5):
        played("bit-flip", ["3"])
    with CaptureQueriesContext(connection) as more:
        client.get(LIST)
    assert len(more) == len(few)


def test_search_and_filters_find_a_match():
    ada = played("bit-flip", BLUNDER_GAME, options={"width": 5}, name="Ada")
    # A name no public id can contain (ids are URL-safe base64: "Zed" could turn up in one).
    zed = played("last-digit-standing", ["1"], name="Zéd")
    client = logged_in(staff_user())
    found = client.get(LIST, {"q": "Zéd"}).content.decode()
    assert zed.public_id in found and ada.public_id not in found
    found = client.get(LIST, {"q": ada.public_id}).content.decode()
    assert ada.public_id in found and zed.public_id not in found
    found = client.get(LIST, {"status__exact": "finished", "game__exact": "bit-flip"})
    assert ada.public_id in found.content.decode()
    assert zed.public_id not in found.content.decode()
    found = client.get(LIST, {"winner__exact": "2"}).content.decode()
    assert ada.public_id in found and zed.public_id not in found


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_the_change_page_shows_the_move_log_with_positions_and_verdicts(slug):
    match = played(slug, seeded_moves(slug, 7))
    html = logged_in(staff_user()).get(change_url(match)).content.decode()
    assert match.public_id in html
    rows = re.findall(r'<tr class="form-row[^"]*"[^>]*>(.*?)</tr>', html, re.S)
    assert len(rows) == match.ply
    for row, move in zip(rows, match.moves.order_by("ply"), strict=True):
        cells = {
            name: re.sub(r"<[^>]+>", "", value).strip()
            for name, value in re.findall(r'<td class="field-(\w+)">(.*?)</td>', row, re.S)
        }
        assert cells["ply"] == str(move.ply)
        assert cells["move_text"] == move.text
        assert cells["player_name"] == match.player_name(move.player)
        assert cells["position_after"] not in ("", "—")
        assert cells["verdict"].split(" (")[0] in {v.label for v in Verdict}
    assert f'href="/m/{match.public_id}/replay/"' in html
    assert f'href="/m/{match.public_id}/export.json"' in html


def test_the_change_page_shows_the_blunder_and_the_position_after_each_move():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    html = logged_in(staff_user()).get(change_url(match)).content.decode()
    rows = re.findall(r'<tr class="form-row[^"]*"[^>]*>(.*?)</tr>', html, re.S)
    texts = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in rows]
    assert "00100" in texts[0] and "keeps the win" in texts[0]
    assert "11100" in texts[2] and "throws away the win (a blunder)" in texts[2]
    assert "11111" in texts[3]


def test_a_long_match_page_lists_its_first_and_last_moves_only():
    match = long_last_bit_match(1_000)
    html = logged_in(staff_user()).get(change_url(match)).content.decode()
    rows = re.findall(r'<tr class="form-row[^"]*"[^>]*>', html)
    assert len(rows) == 200
    assert "lists moves 1 to 100 and 902 to 1,001 of 1,001" in html
    assert "loses at once (a blunder)" in html  # the last move, judged


def test_non_staff_are_sent_to_the_admin_login():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    from django.contrib.auth.models import User

    plain = User.objects.create_user("plain", password="not-a-real-password")
    for client in (Client(), logged_in(plain)):
        for url in (LIST, change_url(match), "/admin/"):
            response = client.get(url)
            assert response.status_code == 302
            assert response["Location"].startswith("/admin/login/")
            assert match.public_id not in response.content.decode()


def test_a_finished_match_cannot_be_changed_by_a_post():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    before = Match.objects.filter(pk=match.pk).values().get()
    client = logged_in(staff_user())
    page = client.get(change_url(match)).content.decode()
    assert 'name="seat1_name"' not in page  # nothing to edit
    assert 'type="submit" value="Save"' not in page
    response = client.post(
        change_url(match),
        {
            "seat1_name": "Mallory",
            "seat2_name": "Eve",
            "winner": "1",
            "status": "playing",
            "moves-TOTAL_FORMS": "0",
            "moves-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 403
    assert Match.objects.filter(pk=match.pk).values().get() == before
    assert list(match.moves.values_list("text", flat=True)) == BLUNDER_GAME


def test_a_match_in_play_allows_only_the_names_to_change():
    match = played("bit-flip", ["3"], options={"width": 5})
    client = logged_in(staff_user())
    page = client.get(change_url(match)).content.decode()
    assert 'name="seat1_name"' in page and 'name="seat2_name"' in page
    assert 'name="position"' not in page and 'name="status"' not in page
    response = client.post(
        change_url(match),
        {
            "seat1_name": "Ada L.",
            "seat2_name": "Bob",
            "status": "finished",
            "winner": "2",
            "ply": "0",
            "moves-TOTAL_FORMS": "1",
            "moves-INITIAL_FORMS": "1",
            "moves-MIN_NUM_FORMS": "0",
            "moves-MAX_NUM_FORMS": "0",
        },
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.seat1_name == "Ada L."
    assert (match.status, match.winner, match.ply) == (Match.Status.PLAYING, None, 1)
    assert list(match.moves.values_list("text", flat=True)) == ["3"]


def test_staff_with_the_permission_can_delete_a_finished_match():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    url = f"/admin/games/match/{match.pk}/delete/"
    no_delete = logged_in(staff_user("viewer", perms=("view_match", "view_move")))
    assert no_delete.post(url, {"post": "yes"}).status_code == 403
    assert Match.objects.filter(pk=match.pk).exists()
    response = logged_in(staff_user()).post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Match.objects.filter(pk=match.pk).exists()
    assert not Move.objects.filter(match_id=match.pk).exists()


def test_no_match_can_be_added_by_hand():
    assert logged_in(staff_user()).get("/admin/games/match/add/").status_code == 403


def test_the_export_action_downloads_the_selected_matches():
    chosen = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    other = played("last-digit-standing", ["1"])
    response = logged_in(staff_user()).post(
        LIST, {"action": "export_json", "_selected_action": [chosen.pk]}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="bitsite-matches-')
    data = json.loads(response.content)
    assert [m["public_id"] for m in data] == [chosen.public_id]
    assert other.public_id not in response.content.decode()
    exported = data[0]
    assert [m["text"] for m in exported["moves"]] == BLUNDER_GAME
    assert exported["result"]["winner"] == 2
    assert exported["options"] == {"width": 5}
    assert [p["name"] for p in exported["players"]] == ["Ada", "Bob"]


def test_the_delete_confirmation_of_a_long_match_names_a_few_moves():
    match = long_last_bit_match(500)
    html = logged_in(staff_user()).get(f"/admin/games/match/{match.pk}/delete/").content.decode()
    assert "Moves: 501" in html  # the count of what goes
    assert html.count("Player 1: ") + html.count("Player 2: ") == 10
    assert "… and 491 more" in html
