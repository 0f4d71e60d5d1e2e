"""Export: one serializer for the match link, the admin action and ``manage.py export_matches``;
the exported moves replay through the rules to the stored result."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from games import review
from games.models import Match
from games.rules import GAMES, get_game
from tests.replays import BLUNDER_GAME, logged_in, played, seeded_moves, staff_user

pytestmark = pytest.mark.django_db


def exported(match: Match, client: Client | None = None) -> dict:
    response = (client or Client()).get(f"/m/{match.public_id}/export.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="bitsite-match-{match.public_id}.json"'
    )
    return json.loads(response.content)


def replayed(data: dict):
    """Feed the exported moves back through the rules, as someone holding only the file would."""
    game = get_game(data["game"])
    pos = game.start(**data["options"])
    for move in data["moves"]:
        assert move["player"] == pos.to_move
        pos = game.play(pos, move["text"])
    return game, pos


@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_exported_moves_replay_to_the_stored_result(slug):
    match = played(slug, seeded_moves(slug, 11))
    data = exported(match)
    game, pos = replayed(data)
    assert pos.result.winner == data["result"]["winner"] == match.winner
    assert game.to_json(pos) == match.position
    assert data["result"] == {
        "status": "finished",
        "winner": match.winner,
        "winner_name": match.player_name(match.winner),
        "ending": pos.result.ending.value,
        # The book's sentence, with the players named as the site names them.
        "reason": game.describe_outcome(pos, {n: match.player_name(n) for n in (1, 2)}),
        "plies": match.ply,
    }


def test_a_resigned_match_replays_to_the_position_before_the_resignation():
    match = played("last-digit-standing", ["6", "3"], resign=True)  # Player 1 (Ada) resigns
    data = exported(match)
    game, pos = replayed(data)
    assert pos.result is None
    assert data["result"]["winner"] == 2
    assert data["result"]["ending"] == "resigned"
    assert data["result"]["reason"] == "Player 1 (Ada) resigned."
    assert game.to_json(game.resign(pos, 1)) == match.position


def test_the_export_holds_options_players_times_and_no_secrets():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5}, first="opponent")
    data = exported(match)
    assert data["format"] == "bitsite-match/1"
    assert (data["public_id"], data["game"], data["mode"]) == (
        match.public_id,
        "bit-flip",
        "friend",
    )
    assert data["options"] == {"width": 5}
    assert data["first_seat"] == 2
    # Bob (seat 2) moved first, so he is the rules' Player 1.
    assert [(p["player"], p["seat"], p["name"]) for p in data["players"]] == [
        (1, 2, "Bob"),
        (2, 1, "Ada"),
    ]
    stored = list(match.moves.order_by("ply"))
    assert [m["ply"] for m in data["moves"]] == [1, 2, 3, 4]
    assert [datetime.fromisoformat(m["time"]) for m in data["moves"]] == [
        m.created_at for m in stored
    ]
    assert datetime.fromisoformat(data["finished"]) == match.finished_at
    text = json.dumps(data)
    assert match.seat1_secret not in text and match.seat2_secret not in text
    assert "secret" not in text and "seed" not in text


def test_the_link_the_admin_action_and_the_command_agree():
    match = played("bit-flip-divisor", ["8", "7", "6"])  # 00000111 = 7: Player 1 wins
    from_link = exported(match)
    action = logged_in(staff_user()).post(
        "/admin/games/match/", {"action": "export_json", "_selected_action": [match.pk]}
    )
    out = StringIO()
    call_command("export_matches", stdout=out)
    assert json.loads(action.content) == [from_link]
    assert json.loads(out.getvalue()) == [from_link]
    assert review.serialize_match(match) == from_link


def test_an_unfinished_match_exports_only_for_staff():
    match = played("bit-flip", ["3"], options={"width": 5})
    response = Client().get(f"/m/{match.public_id}/export.json")
    assert response.status_code == 404
    assert "Ada" not in response.content.decode()
    assert "not over" in json.loads(response.content)["error"]
    data = exported(match, logged_in(staff_user()))
    assert data["result"]["status"] == "playing"
    assert [m["text"] for m in data["moves"]] == ["3"]


# ---- the command ---------------------------------------------------------------------


def run(*args) -> list[dict]:
    out = StringIO()
    call_command("export_matches", *args, stdout=out)
    return json.loads(out.getvalue())


def test_the_command_filters_by_game_status_and_date(tmp_path):
    flip = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    digits = played("last-digit-standing", seeded_moves("last-digit-standing", 2))
    in_play = played("bit-flip", ["3"])
    old = played("bit-flip", ["1"], resign=True)
    Match.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    ids = lambda data: {m["public_id"] for m in data}  # noqa: E731

    assert ids(run()) == {flip.public_id, digits.public_id, in_play.public_id, old.public_id}
    assert ids(run("--game", "bit-flip", "--status", "finished")) == {
        flip.public_id,
        old.public_id,
    }
    assert ids(run("--status", "playing")) == {in_play.public_id}
    day = (timezone.now() - timedelta(days=40)).date()
    assert ids(run("--until", day.isoformat())) == {old.public_id}
    assert old.public_id not in ids(run("--since", (day + timedelta(days=1)).isoformat()))
    assert ids(run("--game", "last-digit-standing", "--since", day.isoformat())) == {
        digits.public_id
    }
    assert run("--game", "bitwise-battle") == []

    target = tmp_path / "matches.json"
    err = StringIO()
    call_command("export_matches", "--status", "finished", "--output", str(target), stderr=err)
    written = json.loads(target.read_text())
    assert ids(written) == {flip.public_id, digits.public_id, old.public_id}
    assert "Exported 3 matches" in err.getvalue()
    for data in written:  # the file alone replays every match to its result
        _, pos = replayed(data)
        if data["public_id"] != old.public_id:
            assert pos.result.winner == data["result"]["winner"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess"], "No game 'chess'"),
        (["--status", "done"], "No status 'done'"),
        (["--since", "yesterday"], "is not a date"),
    ],
)
def test_the_command_refuses_bad_filters(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("export_matches", *args, stdout=StringIO())
