"""Starting a match (each game's new-match page), the links at a game's end, and the rules
pages' solution behind a disclosure: through the Django test client."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import play
from games.models import Match
from games.rights import NothingToReplay, NotOver, replay_refusal
from games.rules import GAMES
from games.rules.computer import LEVEL_LABELS
from tests.factories import actor, client_with_token, make_match
from tests.test_views import form_data

pytestmark = pytest.mark.django_db
SLUGS = [game.slug for game in GAMES]


# ---- the new-match page ----------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_each_game_has_a_new_match_page_with_presets_and_whole_labels(slug):
    response = Client().get(f"/games/{slug}/new/")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'action="/games/{slug}/new/"' in html
    for preset in ("Play a friend", "Play the computer", "Pass and play on one device"):
        assert preset in html
    for label in LEVEL_LABELS.values():  # every level's whole text, as a radio of its own
        assert f"<span>{label}</span>" in html
    assert html.count(f'name="{slug}-level"') == len(LEVEL_LABELS)
    # What only the computer uses, and what only people use, are marked for the CSS.
    assert re.search(r'class="choices for-computer" id="level"', html)
    assert re.search(r'class="choices time-control for-people" id="clock"', html)
    assert f'href="/games/{slug}/"' in html  # the rules


def test_the_new_match_page_of_no_game_is_a_404():
    assert Client().get("/games/chess/new/").status_code == 404
    assert Client().post("/games/chess/new/", {}).status_code == 404


@pytest.mark.parametrize("slug", SLUGS)
def test_a_valid_form_starts_the_match_and_goes_there(slug):
    client = Client()
    response = client.post(f"/games/{slug}/new/", form_data(slug, name="Ada"))
    match = Match.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"/m/{match.public_id}/"
    assert (match.game, match.seat1_name) == (slug, "Ada")


def test_a_bad_form_shows_the_page_again_with_its_errors_and_starts_nothing():
    response = Client().post(
        "/games/bit-flip-divisor/new/", form_data("bit-flip-divisor", divisor="1", first="x")
    )
    html = response.content.decode()
    assert response.status_code == 400
    title = next(g.title for g in GAMES if g.slug == "bit-flip-divisor")
    assert f"<h1>New {title} match</h1>" in html
    summary = re.search(r'id="form-errors" role="alert">(.*?)</div>', html, re.S).group(1)
    assert "greater than or equal to 2" in summary
    assert "Who moves first: Select a valid choice." in summary
    assert 'action="/games/bit-flip-divisor/new/"' in html
    assert Match.objects.count() == 0


def test_the_computer_needs_a_level():
    response = Client().post(
        "/games/bit-flip/new/", form_data("bit-flip", opponent="computer", level="")
    )
    assert response.status_code == 400
    assert "Computer level: Choose the computer&#x27;s level." in response.content.decode()
    assert Match.objects.count() == 0


@pytest.mark.parametrize("opponent", ["friend", "hotseat"])
def test_the_level_is_ignored_between_people(opponent):
    response = Client().post(
        "/games/bit-flip/new/", form_data("bit-flip", opponent=opponent, level="perfect")
    )
    assert response.status_code == 303
    match = Match.objects.get()
    assert (match.mode, match.computer_level) == (opponent, "")


def test_a_level_that_is_no_level_is_refused_even_between_friends():
    response = Client().post("/games/bit-flip/new/", form_data("bit-flip", level="genius"))
    assert response.status_code == 400
    assert "Computer level: Select a valid choice." in response.content.decode()
    assert Match.objects.count() == 0


def test_the_second_name_is_for_one_device_only():
    html = Client().get("/games/bit-flip/new/").content.decode()
    assert re.search(
        r'<div class="field for-hotseat">\s*<label for="id_bit-flip-opponent_name"', html
    )
    Client().post("/games/bit-flip/new/", form_data("bit-flip", opponent_name="Bob"))
    assert Match.objects.get().seat2_name == ""


def test_the_old_form_url_still_starts_a_match_and_otherwise_leads_to_the_page():
    client = Client()
    response = client.get("/games/bit-flip/new")
    assert response.status_code == 301
    assert response["Location"] == "/games/bit-flip/new/"
    response = client.post("/games/bit-flip/new", form_data("bit-flip"))
    assert response.status_code == 303
    assert response["Location"] == Match.objects.get().get_absolute_url()
    bad = client.post("/games/bit-flip/new", form_data("bit-flip", width="1001"))
    assert bad.status_code == 400
    assert 'id="form-errors"' in bad.content.decode()
    assert Match.objects.count() == 1
    assert client.get("/games/chess/new").status_code == 404


def test_home_and_rules_pages_link_the_new_match_page_and_hold_no_form():
    home = Client().get("/").content.decode()
    for game in GAMES:
        card = re.search(
            rf'<article class="card" id="game-{game.slug}">(.*?)</article>', home, re.S
        )
        assert f'href="/games/{game.slug}/new/">New match<' in card.group(1)
        assert f'href="/games/{game.slug}/">Rules<' in card.group(1)
    rules = Client().get("/games/bit-flip/").content.decode()
    assert 'href="/games/bit-flip/new/"' in rules
    assert "<form" not in rules.split("<main", 1)[1]


# ---- rules pages: the solution behind a disclosure ----------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_the_solution_is_behind_a_disclosure(slug):
    html = Client().get(f"/games/{slug}/").content.decode()
    details = re.search(r'<details class="solution" id="solution">(.*?)</details>', html, re.S)
    assert details is not None
    assert "<summary>Show the solution</summary>" in details.group(1)
    assert 'id="perfect-play"' in details.group(1)
    outside = html.replace(details.group(0), "")
    for giveaway in ("best first", "mirroring", "a careful game never", "wins with perfect play"):
        assert giveaway not in outside


def test_the_bit_flip_strategy_is_in_its_solution():
    html = Client().get("/games/bit-flip/").content.decode()
    details = re.search(r'<details class="solution".*?</details>', html, re.S).group(0)
    assert "playing\nin the middle and then mirroring" in details
    assert "best first moves are" in details or "best first move is" in details


# ---- the end of a game -----------------------------------------------------------------------


def finished_friend_match():
    match, t1, t2 = make_match("bit-flip")
    play.submit_move(match.public_id, by=actor(match, t1), text="3", ply=0)
    play.resign(match.public_id, by=actor(match, t2))
    match.refresh_from_db()
    return match, t1, t2


def actions_of(client: Client, match: Match) -> str:
    html = client.get(match.get_absolute_url()).content.decode()
    return re.search(r'<div class="row" id="actions">(.*?)</div>', html, re.S).group(1)


def test_players_get_new_game_back_to_games_rematch_and_replay():
    match, t1, t2 = finished_friend_match()
    for token in (t1, t2):
        actions = actions_of(client_with_token(token), match)
        assert ">Rematch</button>" in actions
        assert f'href="/m/{match.public_id}/replay/" id="replay-link">Replay<' in actions
        assert 'href="/games/bit-flip/new/" id="new-game-link">New game<' in actions
        assert 'href="/" id="home-link">Back to games<' in actions


def test_spectators_get_new_game_and_replay():
    match, _, _ = finished_friend_match()
    actions = actions_of(Client(), match)
    assert 'id="replay-link"' in actions
    assert 'id="new-game-link"' in actions
    assert "Rematch" not in actions
    assert 'id="home-link"' not in actions


def test_against_the_computer_and_on_one_device_the_player_gets_every_link():
    for mode in ("computer", "hotseat"):
        match, t1, _ = make_match("bit-flip", mode=mode)
        play.submit_move(match.public_id, by=actor(match, t1), text="3", ply=0)
        play.resign(match.public_id, by=actor(match, t1))
        actions = actions_of(client_with_token(t1), match)
        for link in ("replay-link", "new-game-link", "home-link"):
            assert f'id="{link}"' in actions, (mode, link)
        assert ">Rematch</button>" in actions


def test_a_match_cancelled_before_anyone_joined_offers_no_replay():
    match, t1, _ = make_match("bit-flip", joined=False)
    play.resign(match.public_id, by=actor(match, t1))
    match.refresh_from_db()
    assert match.ending == Match.Ending.CANCELLED
    for client in (client_with_token(t1), Client()):
        actions = actions_of(client, match)
        assert "Replay" not in actions
        assert "Rematch" not in actions
        assert 'id="new-game-link"' in actions
    assert 'id="home-link"' in actions_of(client_with_token(t1), match)


def test_a_game_resigned_before_any_move_has_nothing_to_replay():
    match, t1, _ = make_match("bit-flip")
    play.resign(match.public_id, by=actor(match, t1))
    actions = actions_of(client_with_token(t1), match)
    assert "Replay" not in actions and 'id="new-game-link"' in actions
    response = Client().get(f"/m/{match.public_id}/replay/")
    assert response.status_code == 404
    assert "ended before anyone moved: there is nothing to replay" in response.content.decode()


def test_no_end_links_while_the_game_goes_on():
    match, t1, _ = make_match("bit-flip")
    actions = actions_of(client_with_token(t1), match)
    for link in ("replay-link", "new-game-link", "home-link"):
        assert link not in actions


def test_a_replay_needs_a_finished_match_with_a_move():
    match, _, _ = make_match("bit-flip")
    assert isinstance(replay_refusal(match), NotOver)
    match.status, match.ending, match.ply = Match.Status.FINISHED, Match.Ending.ABORTED, 0
    assert isinstance(replay_refusal(match), NothingToReplay)
    match.ply = 1
    assert replay_refusal(match) is None
    match.ending, match.ply = Match.Ending.CANCELLED, 0
    assert "cancelled" in replay_refusal(match).message
