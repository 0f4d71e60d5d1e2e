"""Challenges and bot accounts (people/challenges.py ``rated_with_bots``): a rated game
between a bot and a human needs the human's yes; bot against bot may be rated; a casual
challenge is always possible, blocks aside."""

from __future__ import annotations

import pytest

from accounts import bots
from games.models import Match
from people import challenges
from people.models import Challenge
from tests.people.test_challenges import form
from tests.ratings.helpers import account, signed_in

pytestmark = pytest.mark.django_db

CASUAL = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}
RATED = {**CASUAL, "rated": True}


def bot(name: str = "robo"):
    user = account(name)
    bots.make_bot(user)
    return user


def test_a_bot_cannot_challenge_a_human_to_a_rated_game_without_their_yes():
    robo, ada = bot(), account("ada")
    with pytest.raises(challenges.Refused) as refused:
        challenges.send(robo, ada, **RATED)
    assert refused.value.message == (
        "ada does not play rated games against bots; send a casual challenge."
    )
    assert refused.value.status == 403
    assert not Challenge.objects.exists()
    casual = challenges.send(robo, ada, **CASUAL)
    assert not Match.objects.get(pk=challenges.accept(casual.public_id, ada).match_id).rated


def test_a_human_who_said_yes_plays_bots_rated_games_both_ways():
    robo, ada = bot(), account("ada")
    bots.let_bots_rate(ada, True)
    sent = challenges.send(robo, ada, **RATED)
    assert Match.objects.get(pk=challenges.accept(sent.public_id, ada).match_id).rated
    back = challenges.send(ada, robo, **RATED)
    assert Match.objects.get(pk=challenges.accept(back.public_id, robo).match_id).rated


def test_a_human_who_did_not_say_yes_cannot_send_a_bot_a_rated_challenge():
    robo, ada = bot(), account("ada")
    with pytest.raises(challenges.Refused) as refused:
        challenges.send(ada, robo, **RATED)
    assert "You do not play rated games against bots" in refused.value.message
    assert not Challenge.objects.exists()


def test_a_yes_taken_back_refuses_the_open_rated_challenge_on_accept():
    robo, ada = bot(), account("ada")
    bots.let_bots_rate(ada, True)
    sent = challenges.send(robo, ada, **RATED)
    bots.let_bots_rate(ada, False)
    with pytest.raises(challenges.Refused):
        challenges.accept(sent.public_id, ada)
    assert Challenge.objects.get(pk=sent.pk).status == Challenge.Status.OPEN
    assert not Match.objects.exists()


def test_bots_play_each_other_rated_and_people_as_before():
    robo, tin = bot("robo"), bot("tin")
    sent = challenges.send(robo, tin, **RATED)
    assert Match.objects.get(pk=challenges.accept(sent.public_id, tin).match_id).rated
    ada, bob = account("ada"), account("bob")
    assert challenges.send(ada, bob, **RATED).rated


def test_a_block_still_refuses_a_bots_casual_challenge():
    robo, ada = bot(), account("ada")
    challenges.block(ada, robo)
    with pytest.raises(challenges.Refused):
        challenges.send(robo, ada, **CASUAL)


def test_the_challenge_page_refuses_a_rated_challenge_to_a_bot_with_the_message():
    bot()
    ada = account("ada")
    browser = signed_in(ada)
    response = browser.post("/players/robo/challenge/bit-flip/", form(rated="on"))
    assert response.status_code == 403
    assert "You do not play rated games against bots" in response.content.decode()
    assert not Challenge.objects.exists()
    response = browser.post("/players/robo/challenge/bit-flip/", form())
    assert response.status_code == 303
    assert Challenge.objects.get().challenger_id == ada.pk


def test_a_bot_is_marked_in_the_challenge_lists_and_among_friends():
    robo, ada = bot(), account("ada")
    challenges.send(robo, ada, **CASUAL)
    browser = signed_in(ada)
    lists = browser.get("/challenges/").content.decode()
    assert lists.count('class="bot-mark"') == 1
    from people.friends import follow

    follow(ada, robo)
    assert 'class="bot-mark"' in browser.get("/friends/").content.decode()
