"""The API's reads and challenges through the test client: a player's profile, ratings and
games, the account, and challenges sent, listed, accepted, declined and withdrawn as the
challenge pages do them (people.challenges), with JSON errors naming the problem."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Match
from people.models import Challenge
from tests.api.helpers import Api, token_for
from tests.ratings.helpers import account, rated_match, resign

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada_bob():
    return account("ada"), account("bob")


def test_a_players_profile_ratings_and_games_are_public(ada_bob):
    ada, bob = ada_bob
    match, _token1, token2 = rated_match(ada, bob)
    resign(match, token2)  # bob resigns: ada wins
    answer = Api().get("/players/ada")
    assert answer.status_code == 200
    profile = answer.json()
    assert profile["username"] == "ada" and profile["bot"] is False
    assert profile["ratings"]["bit-flip"]["games"] == 1
    assert profile["ratings"]["bit-flip"]["wins"] == 1
    games = Api().get("/players/bob/games").json()
    assert games["count"] == 1 and games["pages"] == 1
    (game,) = games["games"]
    assert game["public_id"] == match.public_id
    assert game["result"]["ending"] == Match.Ending.RESIGNED
    assert game["users"] == ["ada", "bob"]
    assert game["state"]["status"] == "finished" and game["state"]["legal_moves"] == []
    assert Api().get("/players/bob/games", game="last-bit-standing").json()["count"] == 0
    assert Api().get("/players/bob/games", against="ada").json()["count"] == 1


@pytest.mark.parametrize(
    ("path", "params", "status", "error"),
    [
        ("/players/nobody", {}, 404, "not_found"),
        ("/players/ada/games", {"game": "chess"}, 400, "unknown_game"),
        ("/players/ada/games", {"page": "many"}, 400, "invalid_request"),
        ("/players/ada/games", {"page": "0"}, 400, "bad_page"),
        ("/players/ada/games", {"against": "nobody"}, 404, "not_found"),
        ("/games/nosuchgame", {}, 404, "not_found"),
        # No operation has these addresses: the API's 404, not the site's page.
        ("/nothing-here", {}, 404, "not_found"),
        ("/players/a%2Fb", {}, 404, "not_found"),
        ("/account/", {}, 404, "not_found"),
        # Refused at the edge (bitsite/edge.py) before any view: the API's 400.
        ("/players/%00", {}, 400, "invalid_request"),
        ("/players/ada/games", {"game": "\x00"}, 400, "invalid_request"),
        ("/players/" + "x" * 3000, {}, 400, "invalid_request"),
    ],
)
def test_bad_reads_are_json_errors(ada_bob, path, params, status, error):
    answer = Api().get(path, **params)
    assert answer.status_code == status
    assert answer.json()["error"] == error
    assert answer.json()["message"]


def test_a_post_to_an_address_no_operation_has_is_the_apis_404(ada_bob):
    answer = Api(token_for(ada_bob[0])).post("/games/a%2Fb/resign")
    assert answer.status_code == 404  # not the CSRF check's 403 page
    assert answer.json()["error"] == "not_found"


def test_a_finished_games_export_has_its_verdicts_and_a_running_ones_not(ada_bob):
    ada, bob = ada_bob
    match, _token1, token2 = rated_match(ada, bob)
    api = Api(token_for(ada, "play"))
    running = api.get(f"/games/{match.public_id}").json()
    assert running["verdicts"] is None
    assert running["state"]["to_move_seat"] == 1 and running["state"]["legal_moves"]
    move = running["state"]["legal_moves"][0]
    moved = api.post(f"/games/{match.public_id}/move", {"move": move, "ply": 0})
    assert moved.status_code == 200, moved.content
    moved = moved.json()
    assert moved["state"]["ply"] == 1 and moved["moves"][0]["text"] == move
    resign(match, token2)
    finished = Api().get(f"/games/{match.public_id}").json()
    assert [v["ply"] for v in finished["verdicts"]] == [m["ply"] for m in finished["moves"]]
    assert finished["verdicts"][0]["verdict"]


def test_a_challenge_sent_accepted_and_played(ada_bob):
    ada, bob = ada_bob
    ada_api = Api(token_for(ada, "challenge", "play", "read"))
    bob_api = Api(token_for(bob, "challenge", "read"))
    sent = ada_api.post(
        "/challenges/bob",
        {"game": "last-bit-standing", "clock": "3+2", "rated": True, "first": "me"},
    )
    assert sent.status_code == 200, sent.content
    challenge = sent.json()
    assert challenge["status"] == "open" and challenge["rated"] is True
    assert challenge["time_control"] == {"clock": "realtime", "base": 180, "increment": 2}
    assert bob_api.get("/challenges").json()["received"][0]["id"] == challenge["id"]
    assert ada_api.get("/challenges").json()["sent"][0]["id"] == challenge["id"]
    accepted = bob_api.post(f"/challenges/{challenge['id']}/accept").json()
    assert accepted["status"] == "accepted" and accepted["game_id"]
    game = Api().get(f"/games/{accepted['game_id']}").json()
    assert game["users"] == ["ada", "bob"] and game["rated"] is True
    assert game["state"]["status"] == "playing"
    # Accepting twice: the challenge is no longer open.
    again = bob_api.post(f"/challenges/{challenge['id']}/accept")
    assert again.status_code == 409 and "no longer open" in again.json()["message"]


def test_declined_and_withdrawn(ada_bob):
    ada, bob = ada_bob
    ada_api = Api(token_for(ada, "challenge"))
    bob_api = Api(token_for(bob, "challenge"))
    first = ada_api.post("/challenges/bob", {"game": "bit-flip"}).json()
    declined = bob_api.post(f"/challenges/{first['id']}/decline", {"reason": "too_fast"})
    assert declined.json()["status"] == "declined" and declined.json()["reason"] == "too_fast"
    bad = bob_api.post(f"/challenges/{first['id']}/decline", {"reason": "rude"})
    assert bad.status_code in (400, 409)
    second = ada_api.post("/challenges/bob", {"game": "bit-flip"}).json()
    assert bob_api.post(f"/challenges/{second['id']}/cancel").status_code == 403
    assert ada_api.post(f"/challenges/{second['id']}/cancel").json()["status"] == "cancelled"
    assert Challenge.objects.filter(status=Challenge.Status.OPEN).count() == 0


@pytest.mark.parametrize(
    ("terms", "error"),
    [
        ({"game": "chess"}, "unknown_game"),
        ({"game": "bit-flip", "options": {"colour": 3}}, "invalid_terms"),
        ({"game": "bit-flip", "clock": "sometimes"}, "invalid_terms"),
        ({"game": "bit-flip", "clock": "custom"}, "invalid_terms"),
        ({"game": "bit-flip", "first": "whoever"}, "invalid_terms"),
        ({"game": "bit-flip", "options": {"width": 10**9}}, "invalid_terms"),
        ({"game": 5}, "invalid_request"),
        ({}, "invalid_request"),
    ],
)
def test_bad_terms_make_nothing(ada_bob, terms, error):
    answer = Api(token_for(ada_bob[0], "challenge")).post("/challenges/bob", terms)
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"] == error
    assert not Challenge.objects.exists()


def test_challenging_yourself_or_nobody(ada_bob):
    api = Api(token_for(ada_bob[0], "challenge"))
    assert api.post("/challenges/ada", {"game": "bit-flip"}).status_code == 400
    assert api.post("/challenges/nobody", {"game": "bit-flip"}).status_code == 404


def test_an_open_challenge_is_a_game_anyone_may_join_by_its_link(ada_bob):
    ada, _ = ada_bob
    answer = Api(token_for(ada, "challenge")).post(
        "/challenges/open", {"game": "bit-flip-divisor", "clock": "correspondence", "days": 3}
    )
    assert answer.status_code == 200
    match = Match.objects.get(public_id=answer.json()["game_id"])
    assert match.seat1_user == ada and match.status == Match.Status.WAITING
    assert answer.json()["url"] == match.get_absolute_url()


def test_bad_json_is_a_400(ada_bob):
    api = Api(token_for(ada_bob[0], "challenge"))
    answer = api.post("/challenges/bob", raw="{not json")
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_request"


def test_an_account_becomes_a_bot_through_the_api_before_it_has_played(ada_bob):
    ada, bob = ada_bob
    robo = account("robo")
    answer = Api(token_for(robo, "play")).post("/account/bot")
    assert answer.status_code == 200 and answer.json()["bot"] is True
    assert Api().get("/players/robo").json()["bot"] is True
    rated_match(ada, bob)
    refused = Api(token_for(ada, "play")).post("/account/bot")
    assert refused.status_code == 400 and refused.json()["error"] == "not_allowed"
    assert Api().get("/players/ada").json()["bot"] is False
    assert Api(token_for(bob, "read")).post("/account/bot").status_code == 403


def test_a_bots_open_challenge_is_casual(ada_bob):
    robo = account("robo")
    api = Api(token_for(robo, "play", "challenge"))
    assert api.post("/account/bot").status_code == 200
    refused = api.post("/challenges/open", {"game": "bit-flip", "rated": True})
    assert refused.status_code == 400 and "casual" in refused.json()["message"]
    assert not Match.objects.exists()
    assert api.post("/challenges/open", {"game": "bit-flip"}).status_code == 200


BROKEN_BODIES = [
    (
        "multipart/form-data; boundary=x",
        b'--x\r\nContent-Disposition: form-data; name="g"\r\n\r\nb',
    ),
    ("multipart/form-data", b"no boundary at all"),
    ("multipart/form-data; boundary=x", b"--x\r\n\r\n--x--"),
    ("application/json", b"{not json"),
    ("application/x-www-form-urlencoded", b"a=%%&b"),
    ("text/plain", b"\xff\xfe"),
    ("application/xml", b"<game/>"),
]


@pytest.mark.parametrize(("content_type", "data"), BROKEN_BODIES)
def test_a_body_of_any_kind_that_cannot_be_read_is_a_json_400(content_type, data):
    token = token_for(account("ada"))
    answer = Client().post(
        "/api/challenges/open",
        data,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 400, answer.content
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"] == "invalid_request" and answer.json()["message"]


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "OPTIONS"])
@pytest.mark.parametrize("path", ["/api/account", "/api/players/ada", "/api/challenges/open"])
def test_a_method_an_address_does_not_take_is_a_json_405_with_allow(method, path):
    account("ada")
    answer = Client().generic(method, path)
    assert answer.status_code == 405
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"] == "method_not_allowed"
    assert answer["Allow"] and answer["Allow"] in answer.json()["message"]


def test_addresses_under_api_that_are_nothing_are_json_404s():
    for path in ("/api/", "/api/nothing", "/api/games/x/y/z"):
        answer = Client().get(path)
        assert answer.status_code == 404, path
        assert answer.json()["error"] == "not_found", path
