"""A game's acts through the API (test client): moves, resigning, draws, abort and claim,
and each refusal of the write path as its JSON error and HTTP status (games.http's
refusal_status: 403 not a player, 404 no match, 422 a move the rules refuse, 409 the rest).
Nothing refused changes the game."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match
from tests.api.helpers import Api, token_for
from tests.ratings.helpers import account, rated_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    """A friend's game without a clock, ada (seat 1, to move) against bob, each with an API
    client of every scope; carol watches with a token of her own."""
    ada, bob, carol = account("ada"), account("bob"), account("carol")
    match, *_ = rated_match(ada, bob, rated=False)
    return (
        match,
        Api(token_for(ada)),
        Api(token_for(bob)),
        Api(token_for(carol)),
    )


def refused(answer, status: int, error: str) -> None:
    assert answer.status_code == status, answer.content
    body = answer.json()
    assert body["error"] == error, body
    assert body["message"]


def unchanged(match: Match) -> None:
    before = (match.ply, match.version, match.status, match.draw_offer)
    match.refresh_from_db()
    assert (match.ply, match.version, match.status, match.draw_offer) == before


def state(api: Api, match: Match) -> dict:
    return api.get(f"/games/{match.public_id}").json()["state"]


def test_a_move_on_its_turn_with_the_ply_seen(game):
    match, ada, bob, _ = game
    legal = state(ada, match)["legal_moves"]
    answer = ada.post(f"/games/{match.public_id}/move", {"move": legal[0], "ply": 0})
    assert answer.status_code == 200, answer.content
    moved = answer.json()
    assert moved["state"]["ply"] == 1 and moved["state"]["to_move_seat"] == 2
    assert moved["moves"][-1]["text"] == legal[0]
    reply = state(bob, match)["legal_moves"][0]
    assert bob.post(f"/games/{match.public_id}/move", {"move": reply, "ply": 1}).status_code == 200
    match.refresh_from_db()
    assert list(match.moves.values_list("text", flat=True)) == [legal[0], reply]


@pytest.mark.parametrize(
    ("move", "detail"),
    [
        ("banana", "Enter the bit number"),  # malformed: not the books' notation
        ("99", ""),  # well-formed, but no such bit
        ("", ""),
    ],
)
def test_a_move_the_rules_refuse_is_a_422(game, move, detail):
    match, ada, *_ = game
    answer = ada.post(f"/games/{match.public_id}/move", {"move": move, "ply": 0})
    refused(answer, 422, "illegal_move")
    assert detail in answer.json()["message"]
    unchanged(match)


def test_a_move_out_of_turn_is_a_409(game):
    match, _, bob, _ = game
    answer = bob.post(f"/games/{match.public_id}/move", {"move": "1", "ply": 0})
    refused(answer, 409, "not_your_turn")
    assert "ada" in answer.json()["message"].lower()
    unchanged(match)


def test_a_move_sent_after_the_game_moved_on_is_stale(game):
    match, ada, bob, _ = game
    first = state(ada, match)["legal_moves"][0]
    assert ada.post(f"/games/{match.public_id}/move", {"move": first, "ply": 0}).status_code == 200
    match.refresh_from_db()
    reply = state(bob, match)["legal_moves"][0]
    for ply in (0, 2, -1, 10**6):  # what bob saw before ada's move, or never was
        answer = bob.post(f"/games/{match.public_id}/move", {"move": reply, "ply": ply})
        refused(answer, 409, "stale_board")
    unchanged(match)


def test_only_its_players_act_in_a_game(game):
    match, _, _, carol = game
    refused(
        carol.post(f"/games/{match.public_id}/move", {"move": "1", "ply": 0}), 403, "not_a_player"
    )
    for act in ("resign", "draw/offer", "draw/accept", "draw/decline", "draw/withdraw"):
        refused(carol.post(f"/games/{match.public_id}/{act}"), 403, "not_a_player")
    unchanged(match)


@pytest.mark.parametrize(
    "act", ["move", "resign", "draw/offer", "draw/accept", "draw/withdraw", "abort", "claim"]
)
def test_acts_in_a_game_that_does_not_exist_are_404(game, act):
    _, ada, *_ = game
    body = {"move": "1", "ply": 0} if act == "move" else {}
    refused(ada.post(f"/games/nosuchgame/{act}", body), 404, "no_such_match")


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ("{not json", ""),
        ("[]", ""),
        ('{"move": "1"}', "ply"),  # the ply is required: a move says what it saw
        ('{"ply": 0}', "move"),
        ('{"move": "1", "ply": "first"}', "ply"),
        ('{"move": 1, "ply": 0}', "move"),
    ],
)
def test_a_body_that_is_not_a_move_is_a_400(game, raw, named):
    match, ada, *_ = game
    answer = ada.post(f"/games/{match.public_id}/move", raw=raw)
    refused(answer, 400, "invalid_request")
    assert named in answer.json()["message"]
    unchanged(match)


def test_the_token_must_be_given_valid_and_in_scope(game):
    match, *_ = game
    url = f"/games/{match.public_id}/move"
    move = {"move": "1", "ply": 0}
    refused(Api().post(url, move), 401, "no_token")
    refused(Api("bit_not-a-token").post(url, move), 401, "bad_token")
    ada = Match.objects.get(pk=match.pk).seat1_user
    refused(Api(token_for(ada, "read", "challenge")).post(url, move), 403, "out_of_scope")
    unchanged(match)


def test_a_finished_game_refuses_moves(game):
    match, ada, bob, _ = game
    for api, ply in ((ada, 0), (bob, 1)):  # both move: resigning then counts
        move = state(api, match)["legal_moves"][0]
        assert (
            api.post(f"/games/{match.public_id}/move", {"move": move, "ply": ply}).status_code
            == 200
        )
    resigned = bob.post(f"/games/{match.public_id}/resign")
    assert resigned.status_code == 200
    result = resigned.json()["state"]["result"]
    assert result["ending"] == Match.Ending.RESIGNED
    assert result["winner"] == 1 and "Ada" in result["winner_name"]
    match.refresh_from_db()
    refused(ada.post(f"/games/{match.public_id}/move", {"move": "1", "ply": 2}), 409, "game_over")
    refused(ada.post(f"/games/{match.public_id}/resign"), 409, "game_over")
    unchanged(match)


def test_draw_offered_declined_withdrawn_and_agreed(game):
    match, ada, bob, _ = game
    url = f"/games/{match.public_id}"
    refused(bob.post(f"{url}/draw/accept"), 409, "no_offer")
    refused(ada.post(f"{url}/draw/withdraw"), 409, "no_offer")
    assert ada.post(f"{url}/draw/offer").json()["state"]["draw_offer_by_seat"] == 1
    refused(ada.post(f"{url}/draw/offer"), 409, "too_early")  # one offer at a time
    refused(ada.post(f"{url}/draw/accept"), 409, "no_offer")  # not one's own
    assert bob.post(f"{url}/draw/decline").json()["state"]["draw_offer_by_seat"] is None
    assert ada.post(f"{url}/draw/offer").status_code == 200
    assert ada.post(f"{url}/draw/withdraw").json()["state"]["draw_offer_by_seat"] is None
    assert bob.post(f"{url}/draw/offer").status_code == 200
    agreed = ada.post(f"{url}/draw/accept").json()["state"]
    assert agreed["status"] == "finished"
    assert agreed["result"]["ending"] == Match.Ending.AGREEMENT
    assert agreed["result"]["winner"] is None


def test_abort_and_claim_are_for_the_games_that_have_them(game):
    match, ada, *_ = game
    # A game without a clock cannot be aborted; its opponent has not been away for
    # ABANDON_AFTER (they just began), so it cannot be claimed yet.
    refused(ada.post(f"/games/{match.public_id}/abort"), 409, "not_here")
    refused(ada.post(f"/games/{match.public_id}/claim", {"win": True}), 409, "too_early")
    refused(
        ada.post(f"/games/{match.public_id}/claim", {"win": "yes please"}), 400, "invalid_request"
    )
    unchanged(match)


def test_a_realtime_game_is_aborted_once_its_first_move_is_overdue(game, settings):
    _, ada, bob, _ = game
    sent = ada.post("/challenges/bob", {"game": "bit-flip", "clock": "3+2", "first": "me"}).json()
    game_id = bob.post(f"/challenges/{sent['id']}/accept").json()["game_id"]
    refused(ada.post(f"/games/{game_id}/abort"), 409, "too_early")
    refused(ada.post(f"/games/{game_id}/claim"), 409, "not_here")  # a clock decides instead
    # The first move awaited past ABORT_AFTER (and short of twice that, when the server
    # aborts it itself): either player may abort.
    overdue = timezone.now() - timedelta(seconds=settings.ABORT_AFTER * 1.5)
    Match.objects.filter(public_id=game_id).update(turn_started_at=overdue)
    aborted = bob.post(f"/games/{game_id}/abort").json()["state"]
    assert aborted["status"] == "finished" and aborted["result"]["ending"] == Match.Ending.ABORTED
    assert aborted["result"]["winner"] is None
