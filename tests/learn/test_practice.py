"""Practise from here (issue 25): a match against the perfect computer that begins in the
analysis board's position, on either side; its replay, export, admin and rematch begin
there too (``Match.initial_position``)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from games import play, review
from games.models import Match, new_secret
from games.rules import get_game

pytestmark = pytest.mark.django_db

BOARD = "width=5&moves=3.1(2).4&ply=2"  # Player 1 to move: 4 keeps the win


def practise(client: Client, slug: str = "bit-flip", analysis: str = BOARD, side: str = "1"):
    return client.post(f"/games/{slug}/analysis/practise", {"analysis": analysis, "side": side})


def test_a_practice_match_begins_in_the_boards_position_on_the_side_chosen():
    client = Client()
    response = practise(client)
    assert response.status_code == 303
    match = Match.objects.get()
    assert response["Location"] == match.get_absolute_url()
    game = get_game("bit-flip")
    begun = game.play(game.play(game.start(width=5), "3"), "1")
    assert match.setup == ["3", "1"]  # the line up to the cursor, not its variations
    assert match.initial_position == begun
    assert match.current == begun and match.ply == 0  # Player 1 (the browser) to move
    assert (match.mode, match.computer_level, match.rated, match.listed) == (
        "computer",
        "perfect",
        False,
        False,
    )
    assert match.player_of_seat(1) == 1  # the browser holds seat 1, Player 1
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Started from a given position (after 2 moves from the start): 10100" in page


def test_the_side_not_to_move_lets_the_computer_move_first():
    client = Client()
    assert practise(client, side="2").status_code == 303
    match = Match.objects.get()
    assert match.player_of_seat(1) == 2 and match.computer_seat == 2
    assert match.ply == 1  # the computer, Player 1 here, moved at once, and perfectly
    game = match.rules
    analysis = game.analyse(match.initial_position)
    assert match.moves.get().text in analysis.best_moves


def test_its_replay_export_and_rematch_begin_where_it_began():
    client = Client()
    practise(client, side="1")
    match = Match.objects.get()
    token = client.session["token"]
    match = play.submit_move(
        match.public_id, by=play.Actor(frozenset({1})), text="4", ply=match.ply
    )
    play.computer_move(match.public_id)
    match.refresh_from_db()
    left = [m for m in match.rules.legal_moves(match.current)]
    assert len(left) == 1
    match = play.submit_move(match.public_id, by=play.Actor(token=token), text=left[0], ply=2)
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished" and match.winner == 1

    frames = review.replay_frames(match)
    assert frames[0].position == match.initial_position
    assert frames[-1].position == match.current
    replay = client.get(f"/m/{match.public_id}/replay/?ply=0").content.decode()
    assert 'id="setup-note"' in replay
    data = json.loads(client.get(f"/m/{match.public_id}/export.json").content)
    assert data["setup"] == ["3", "1"]
    game = get_game(data["game"])  # whoever holds only the file rebuilds the match
    pos = game.start(**data["options"])
    for text in [*data["setup"], *(move["text"] for move in data["moves"])]:
        pos = game.play(pos, text)
    assert game.to_json(pos) == match.position
    analysed = client.get(f"/m/{match.public_id}/analyse?ply=1")
    assert analysed["Location"].endswith("?width=5&moves=3.1.4")

    rematch = play.rematch(match.public_id, by=play.Actor(token=token))
    assert rematch.setup == ["3", "1"] and rematch.current == match.initial_position


@pytest.mark.parametrize(
    ("slug", "analysis", "side", "message"),
    [
        ("bit-flip", "width=5&moves=3.1.2.4-5", "1", "The game is over in this position"),
        ("bit-flip", BOARD, "3", "Choose the side you play"),
        ("bit-flip", BOARD, "", "Choose the side you play"),
        ("bit-flip", "width=5&moves=9", "1", "Move 1 ('9') cannot be played"),
        ("bit-flip", "width=5&moves=3(1", "1", "A variation is not closed"),
    ],
)
def test_a_bad_practice_is_refused_and_nothing_is_created(slug, analysis, side, message):
    response = practise(Client(), slug, analysis, side)
    assert response.status_code == 400
    said = re.search(r'<p id="refusal-message"[^>]*>([^<]*)</p>', response.content.decode())
    assert message in said.group(1).replace("&#x27;", "'")
    assert Match.objects.count() == 0


def test_practise_needs_a_post_with_its_csrf_token():
    strict = Client(enforce_csrf_checks=True)
    assert strict.get("/games/bit-flip/analysis/practise").status_code == 405
    assert practise(strict).status_code == 403
    page = strict.get(f"/games/bit-flip/analysis/?{BOARD}").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = re.search(r'<form class="panel stack" id="practise".*?</form>', page, re.S).group(0)
    assert 'action="/games/bit-flip/analysis/practise"' in form
    hidden = re.search(r'name="analysis" value="([^"]*)"', form).group(1)
    assert hidden.replace("&amp;", "&") == BOARD
    response = strict.post(
        "/games/bit-flip/analysis/practise",
        {"analysis": hidden.replace("&amp;", "&"), "side": "2", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 303 and Match.objects.count() == 1


def test_create_match_checks_a_setup():
    token = new_secret()
    with pytest.raises(ValueError, match="neither rated nor listed"):
        play.create_match("bit-flip", token=token, setup=["3"], rated=True)
    with pytest.raises(ValueError, match="There is no bit 9"):
        play.create_match("bit-flip", token=token, options={"width": 5}, setup=["9"])
    with pytest.raises(ValueError, match="The game is over in that position"):
        play.create_match(
            "bit-flip", token=token, options={"width": 2}, setup=["1 2"], mode="hotseat"
        )
    match = play.create_match(
        "bit-flip", token=token, options={"width": 5}, setup=["5 4"], mode="hotseat"
    )
    assert match.setup == ["4 5"]  # canonical, as the move log stores moves
    assert Match.objects.count() == 1
