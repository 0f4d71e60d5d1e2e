"""Bot accounts (accounts/bots.py): made one on the settings page, for good and only before
any match; signed in on the web, a bot holds none of its seats and the pages that play as
the account refuse it; it plays through games.play with its account's secret (as the API
does); it is marked wherever its name is drawn and rated on its own leaderboards."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts import bots
from accounts.models import Profile
from games import play
from games.models import Match
from people import challenges
from people.models import Challenge
from ratings.models import Rating
from tests.accounts.helpers import (
    PASSWORD,
    account,
    create,
    form_data,
    sign_in,
    token_of,
)
from tests.factories import make_match

pytestmark = pytest.mark.django_db

TERMS = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}


def bot(name: str = "robo"):
    user = account(name)
    bots.make_bot(user)
    return user


def signed_in_browser(name: str) -> Client:
    client = Client()
    assert sign_in(client, name).status_code == 302
    return client


def bot_match(the_bot, human):
    """A casual match between a bot and a human, made as the API would: a challenge the
    human accepts (the seats are held by the accounts' secrets)."""
    sent = challenges.send(the_bot, human, **TERMS)
    done = challenges.accept(sent.public_id, human)
    return Match.objects.get(pk=done.match_id)


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# ---- becoming a bot ---------------------------------------------------------------------------


def test_an_account_that_never_played_becomes_a_bot_for_good():
    user = account("robo")
    old_secret = token_of(user)
    assert not bots.is_bot(user)
    bots.make_bot(user)
    profile = Profile.objects.get(user=user)
    assert profile.is_bot and profile.bot_since is not None
    assert profile.token != old_secret  # no browser holds the new one
    user.refresh_from_db()
    assert bots.is_bot(user)
    bots.make_bot(user)  # once more: nothing changes
    assert Profile.objects.get(user=user).bot_since == profile.bot_since


def test_an_account_that_has_played_is_refused_and_nothing_changes():
    user, other = account("ada"), account("bob")
    match = play.create_match("bit-flip", token=token_of(user), user=user, name="Ada")
    assert match.seat1_user_id == user.pk  # waiting for an opponent: a seat is held
    secret = token_of(user)
    with pytest.raises(bots.NotABot) as refused:
        bots.make_bot(user)
    assert "already played" in refused.value.message
    profile = Profile.objects.get(user=user)
    assert not profile.is_bot and profile.bot_since is None and profile.token == secret
    assert not bots.is_bot(other) and not bots.is_bot(None)


def test_the_settings_page_makes_a_bot_only_with_the_box_ticked():
    account("robo")
    browser = signed_in_browser("robo")
    page = browser.get("/accounts/settings/").content.decode()
    assert "I understand this cannot be undone" in page
    assert "Let bots challenge me to rated games" in page
    unticked = browser.post("/accounts/settings/bot/", {})
    assert unticked.status_code == 400 and "I understand" in unticked.content.decode()
    assert not Profile.objects.get(user__username="robo").is_bot
    done = browser.post("/accounts/settings/bot/", {"confirm": "1"})
    assert done.status_code == 303
    assert Profile.objects.get(user__username="robo").is_bot
    page = browser.get("/accounts/settings/").content.decode()
    assert "This account is a bot" in page and 'action="/accounts/settings/bot/"' not in page
    # This browser stays signed in, and does not hold the bot's secret.
    assert browser.session["token"] != token_of(Profile.objects.get(user__username="robo").user)


def test_the_settings_page_refuses_an_account_that_has_played():
    user = account("ada")
    make_match(name="Zed")  # someone else's match: not hers
    browser = signed_in_browser("ada")
    create(browser)  # now she holds a seat
    response = browser.post("/accounts/settings/bot/", {"confirm": "1"})
    assert response.status_code == 400
    assert "only an account that has never played a match can become a bot" in text_of(
        response.content.decode()
    )
    assert not Profile.objects.get(user=user).is_bot


def test_only_a_signed_in_account_posts_the_bot_forms():
    for url in ("/accounts/settings/bot/", "/accounts/settings/rated-against-bots/"):
        response = Client().post(url, {"confirm": "1", "allowed": "1"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert Client().get(url).status_code == 405
    assert not Profile.objects.filter(is_bot=True).exists()


def test_a_human_lets_bots_challenge_them_to_rated_games():
    user = account("ada")
    browser = signed_in_browser("ada")
    assert not Profile.objects.get(user=user).rated_against_bots
    assert (
        browser.post("/accounts/settings/rated-against-bots/", {"allowed": "1"}).status_code == 303
    )
    assert Profile.objects.get(user=user).rated_against_bots
    page = browser.get("/accounts/settings/").content.decode()
    assert re.search(r'name="allowed" value="1" checked', page)
    browser.post("/accounts/settings/rated-against-bots/", {})
    assert not Profile.objects.get(user=user).rated_against_bots


# ---- a bot on the web -------------------------------------------------------------------------


def test_a_bot_signed_in_on_the_web_holds_none_of_its_seats():
    robo, ada = bot(), account("ada")
    match = bot_match(robo, ada)
    browser = signed_in_browser("robo")
    assert browser.session["token"] != token_of(robo)
    assert match.seats_for([browser.session["token"]]) == set()
    page = browser.get(match.get_absolute_url()).content.decode()
    assert 'name="move"' not in page  # a spectator's board
    bot_seat = 1 if match.seat1_user_id == robo.pk else 2
    if match.player_of_seat(bot_seat) == match.current.to_move:
        text = match.rules.legal_moves(match.current)[0]
        response = browser.post(f"/m/{match.public_id}/move", {"move": text, "ply": match.ply})
        assert response.status_code == 403
    assert browser.post(f"/m/{match.public_id}/resign").status_code == 403
    assert browser.post(f"/m/{match.public_id}/draw").status_code == 403
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING and match.ply == 0 and match.draw_offer is None


def test_the_api_way_plays_a_bots_seat_with_its_secret():
    robo, ada = bot(), account("ada")
    match = bot_match(robo, ada)
    bot_seat = 1 if match.seat1_user_id == robo.pk else 2
    if match.player_of_seat(bot_seat) != match.current.to_move:
        text = match.rules.legal_moves(match.current)[0]
        play.submit_move(match.public_id, by=play.Actor(token=token_of(ada)), text=text, ply=0)
        match.refresh_from_db()
    text = match.rules.legal_moves(match.current)[0]
    played = play.submit_move(
        match.public_id, by=play.Actor(token=token_of(robo)), text=text, ply=match.ply
    )
    assert played.ply == match.ply + 1


@pytest.mark.parametrize(
    "what",
    ["new match", "join", "lobby", "challenge", "accept", "tournament"],
)
def test_the_pages_that_play_as_the_account_refuse_a_bot(what):
    robo, ada = bot(), account("ada")
    browser = signed_in_browser("robo")
    waiting, _, _ = make_match(joined=False, name="Zed")
    matches_before = Match.objects.count()
    if what == "new match":
        response = browser.post("/games/bit-flip/new/", form_data("bit-flip"))
    elif what == "join":
        response = browser.post(f"/m/{waiting.public_id}/join", {"name": ""})
    elif what == "lobby":
        response = browser.post("/games/bit-flip/play-anyone", {})
    elif what == "challenge":
        data = {"game": "bit-flip", "bit-flip-first": "me", "bit-flip-time_control": "none"}
        response = browser.post("/players/ada/challenge/bit-flip/", data)
    elif what == "accept":
        sent = challenges.send(ada, robo, **TERMS)
        response = browser.post(f"/challenges/{sent.public_id}/accept")
        assert Challenge.objects.get(pk=sent.pk).status == Challenge.Status.OPEN
    else:
        response = browser.post("/tournaments/new", {})
    assert response.status_code == 403
    assert "bot account" in response.content.decode()
    assert Match.objects.count() == matches_before
    waiting.refresh_from_db()
    assert waiting.seat2_user_id is None and not waiting.seat2_secret
    assert not Challenge.objects.filter(challenger=robo).exists()


# The pages that act as the account in play, by URL name: each must carry the mark the
# middleware refuses a bot by (a view that lost it would let a bot play on the web).
PLAYING = {
    "new_match": {"game": "bit-flip"},
    "old_new_match": {"game": "bit-flip"},
    "join": {"public_id": "A" * 16},
    "move": {"public_id": "A" * 16},
    "computer": {"public_id": "A" * 16},
    "resign": {"public_id": "A" * 16},
    "rematch": {"public_id": "A" * 16},
    "hints": {"public_id": "A" * 16},
    "offer_draw": {"public_id": "A" * 16},
    "answer_draw": {"public_id": "A" * 16},
    "withdraw_draw": {"public_id": "A" * 16},
    "abort": {"public_id": "A" * 16},
    "claim": {"public_id": "A" * 16},
    "analysis_practise": {"game": "bit-flip"},
    "lobby_accept": {"public_id": "A" * 16},
    "play_anyone": {"game": "bit-flip"},
    "tournament_create": {},
    "tournament_join": {"public_id": "A" * 16},
    "challenge_player_game": {"username": "ada", "game": "bit-flip"},
    "challenge_accept": {"public_id": "A" * 16},
}
# And some that stay open to a bot signed in on the web.
OPEN = {
    "challenge_decline": {"public_id": "A" * 16},
    "tournament_withdraw": {"public_id": "A" * 16},
    "home": {},
}


def test_every_page_that_plays_as_the_account_carries_the_mark_and_no_other_does():
    from django.urls import resolve, reverse

    from games.http import plays

    for name, kwargs in PLAYING.items():
        assert plays(resolve(reverse(name, kwargs=kwargs)).func), name
    for name, kwargs in OPEN.items():
        assert not plays(resolve(reverse(name, kwargs=kwargs)).func), name


def test_a_refusal_to_htmx_is_the_message_alone():
    bot()
    browser = signed_in_browser("robo")
    response = browser.post("/games/bit-flip/new/", form_data("bit-flip"), HTTP_HX_REQUEST="true")
    assert response.status_code == 403
    assert response.content.decode().strip().startswith('<p class="notice" id="message">')


def test_a_human_signed_in_plays_as_before():
    account("ada")
    browser = signed_in_browser("ada")
    match = create(browser)
    assert match.seat1_user.username == "ada"
    assert browser.session["token"] == token_of(match.seat1_user)


# ---- marked, and ranked apart -----------------------------------------------------------------


def test_the_board_marks_the_bots_seat_only(django_assert_max_num_queries):
    robo, ada = bot(), account("ada")
    match = bot_match(robo, ada)
    html = Client().get(match.get_absolute_url()).content.decode()
    assert html.count('class="bot-mark"') == 1
    bot_seat = 1 if match.seat1_user_id == robo.pk else 2
    seat = re.search(
        rf'data-player="{match.player_of_seat(bot_seat)}">.*?</div>', html, re.S
    ).group(0)
    assert "bot-mark" in seat and "robo" in seat.lower()
    from games import boards

    with django_assert_max_num_queries(1):  # one query for both seats
        bots.seat_marks(match)
    assert bots.seat_marks(make_match(name="Zed", opponent="Yan")[0]) == {}
    assert boards.scene(match).marks == {bot_seat: bots.MARK}


def test_a_bots_page_and_the_challenge_form_say_it_is_a_bot():
    bot(), account("ada")
    browser = signed_in_browser("ada")
    page = browser.get("/players/robo/").content.decode()
    assert 'class="bot-mark"' in page and "A bot account" in page
    assert "Challenge robo (a bot)" in text_of(page)
    form = browser.get("/players/robo/challenge/bit-flip/").content.decode()
    assert "robo is a bot" in form and "this challenge is casual" in form
    assert not re.search(r'name="bit-flip-rated"[^>]*checked', form)
    # A human's page has no mark.
    assert 'class="bot-mark"' not in Client().get("/players/ada/").content.decode()
    # A bot signed in on the web is not offered to challenge.
    other = signed_in_browser("robo")
    assert "Challenge ada" not in other.get("/players/ada/").content.decode()


def rate(user, game="bit-flip", rating=1600.0):
    return Rating.objects.create(user=user, game=game, rating=rating, deviation=50.0)


def test_bots_have_their_own_leaderboards(django_assert_max_num_queries):
    robo, ada = bot(), account("ada")
    rate(robo, rating=1900.0)
    rate(ada, rating=1500.0)
    people = Client().get("/leaderboards/").content.decode()
    assert "/players/ada/" in people and "/players/robo/" not in people
    assert 'href="/leaderboards/bots/"' in people and "Bot leaderboard" in people
    board = Client().get("/games/bit-flip/leaderboard/").content.decode()
    assert "/players/ada/" in board and "/players/robo/" not in board
    assert 'href="/games/bit-flip/leaderboard/bots/"' in board
    bots_page = Client().get("/leaderboards/bots/").content.decode()
    assert "/players/robo/" in bots_page and "/players/ada/" not in bots_page
    bots_board = Client().get("/games/bit-flip/leaderboard/bots/").content.decode()
    assert "/players/robo/" in bots_board and "/players/ada/" not in bots_board
    assert 'class="bot-mark"' in bots_board
    for n in range(5):
        rate(bot(f"bot{n}"))
    with django_assert_max_num_queries(12):  # the profiles come with the ratings
        assert Client().get("/games/bit-flip/leaderboard/bots/").status_code == 200


def test_bad_input_to_the_bot_forms_is_never_a_500():
    account("ada")
    browser = signed_in_browser("ada")
    for data in ({"confirm": "yes"}, {"confirm": ["1", "2"]}, {"confirm": "\u2013"}):
        assert browser.post("/accounts/settings/bot/", data).status_code == 400
    assert (
        browser.post("/accounts/settings/rated-against-bots/", {"allowed": "x"}).status_code == 303
    )
    assert sign_in(Client(), "ada", PASSWORD).status_code == 302


def test_the_accounts_admin_lists_and_filters_bots():
    from django.contrib.auth.models import User

    bot()
    account("ada")
    admin = User.objects.create_superuser("boss", password=PASSWORD)
    client = Client()
    client.force_login(admin)
    listed = client.get("/admin/auth/user/").content.decode()
    assert "column-is_bot" in listed and "profile__is_bot" in listed
    only_bots = client.get("/admin/auth/user/?profile__is_bot__exact=1").content.decode()
    assert ">robo<" in only_bots and ">ada<" not in only_bots
