"""A rated game between two accounts in Chromium: two browser contexts, each signed in
(a session cookie made by Django's test client), play to the end; both pages show both
rating changes without a reload, and the player pages the new ratings."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from games import play as write_path
from games.models import Match
from ratings.models import Rating
from tests.browser.helpers import (
    SCRIPTS,
    join,
    mark_page,
    play,
    sign_up,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)
from tests.browser.helpers import sign_in as sign_in_with_password
from tests.factories import actor
from tests.ratings.helpers import rated_match, resign, sign_in_browser

pytestmark = pytest.mark.browser


def sign_in(page: Page, base: str, username: str):
    """Sign this browser context in as a new account ``username``."""
    user = get_user_model().objects.create_user(username, password=None)
    sign_in_browser(page, base, user)
    return user


def no_sideways_scroll(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_rated_game_between_two_accounts_changes_both_ratings_live(
    live_server_url, new_page, artifacts
):
    slug = "bit-flip"
    moves, winner = SCRIPTS[slug]  # Player 2 (Bob) fills the byte
    ada, bob, guest = new_page(), new_page(), new_page()
    sign_up(ada, live_server_url, "ada")  # through the site's own sign-up page
    sign_up(bob, live_server_url, "bob")

    # Ada ticks "Rated" (offered to her: she is signed in; only for a friend's match).
    ada.goto(f"{live_server_url}/games/{slug}/new/")
    rated = ada.get_by_role("checkbox", name=re.compile("^Rated: the result changes"))
    expect(rated).to_be_visible()
    ada.get_by_text("Play the computer").click()
    expect(rated).to_be_hidden()
    ada.get_by_text("Play a friend").click()
    rated.check()
    # Another account's user name as "Your name": a rated seat goes by its account's.
    ada.get_by_label("Your name (optional)").fill("bob")
    ada.get_by_role("button", name=re.compile(r"^Start a .* match$")).click()
    ada.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    url = ada.url
    expect(ada.locator("#rated")).to_have_text("Rated")
    expect(ada.locator("#board .player[data-player='1']")).to_contain_text("Player 1 (ada)")
    expect(ada.locator("#board .player[data-player='1']")).not_to_contain_text("bob")

    # A guest without an account is told to sign in, with no Join button that would fail.
    guest.goto(url)
    expect(guest.locator("#rated-join")).to_contain_text(
        "only a signed-in player can take its second seat"
    )
    expect(guest.locator("#rated-join a").first).to_have_attribute(
        "href", f"/accounts/login/?next={url.removeprefix(live_server_url)}"
    )
    expect(guest.get_by_role("button", name="Join as the second player")).to_have_count(0)
    guest.screenshot(path=str(artifacts / "rated-join-guest.png"), full_page=True)

    # A signed-in visitor is offered the seat, and nothing says to sign in.
    bob.goto(url)
    expect(bob.locator("#rated-join")).to_be_hidden()
    expect(bob.locator("#rated-join-account")).to_contain_text("under your account's user name")
    bob.screenshot(path=str(artifacts / "rated-join-account.png"), full_page=True)
    join(bob, url)
    expect(bob.locator("#board .player[data-player='2']")).to_contain_text("Player 2 (bob)")
    for page in (ada, bob):
        wait_for_socket(page)
        mark_page(page)
    for ply, move in enumerate(moves):
        mover, other = (ada, bob) if ply % 2 == 0 else (bob, ada)
        play(mover, slug, move)
        wait_for_ply(other, ply + 1)

    match = Match.objects.get()
    assert (match.rated, match.seat1_user.username, match.seat2_user.username) == (
        True,
        "ada",
        "bob",
    )
    assert match.winner == winner
    for page in (ada, bob):
        notes = page.locator("#end-notes")
        expect(notes).to_have_text("Ratings: ada 1338? (\u2212162), bob 1662? (+162)")
        assert was_not_reloaded(page)
        assert page.console_errors == []
    ada.screenshot(path=str(artifacts / "rated-game-end.png"), full_page=True)

    # The names link to the player pages, which show the new ratings.
    ada.locator("#end-notes").get_by_role("link", name="bob").click()
    ada.wait_for_url(f"{live_server_url}/players/bob/")
    expect(ada.locator("#rating-bit-flip")).to_have_text("1662?")
    expect(ada.locator("#game-bit-flip")).to_contain_text("provisional")
    bob.goto(f"{live_server_url}/players/ada/")
    expect(bob.locator("#rating-bit-flip")).to_have_text("1338?")
    expect(bob.locator("#chart-bit-flip")).to_be_visible()
    expect(bob.locator("#record-bit-flip")).to_contain_text("Losses")
    bob.screenshot(path=str(artifacts / "player-page.png"), full_page=True)
    assert Rating.objects.get(user__username="ada").games == 1

    # The replay shows the same changes.
    bob.goto(f"{url}replay/")
    expect(bob.locator("#end-notes")).to_have_text(
        "Ratings: ada 1338? (\u2212162), bob 1662? (+162)"
    )

    # The game is in both players' My games, and in a second browser signed into Bob's
    # (the guest's, who signs in as Bob now).
    match_row = f"#finished #game-{match.public_id}"
    for page, result in ((ada, "Lost"), (bob, "Won")):
        page.goto(f"{live_server_url}/accounts/games/")
        expect(page.locator(match_row)).to_contain_text(result)
    phone = guest
    assert guest.console_errors == []
    sign_in_with_password(phone, live_server_url, "bob")
    expect(phone.locator(match_row)).to_contain_text("Won")
    phone.locator(match_row).get_by_role("link", name=re.compile("^Replay")).click()
    expect(phone.locator("#end-notes")).to_contain_text("bob 1662? (+162)")


def test_at_360_px_the_rating_pages_do_not_scroll_sideways(live_server_url, new_page):
    long_name = "a" * 40 + "@example.org"
    user = get_user_model().objects.create_user(long_name, password=None)
    other = get_user_model().objects.create_user("b" * 30, password=None)
    Rating.objects.create(
        user=user,
        game="bit-flip",
        rating=2345.6,
        deviation=60,
        games=30,
        wins=20,
        losses=9,
        draws=1,
    )
    Rating.objects.create(
        user=other, game="bit-flip", rating=1987, deviation=80, games=12, wins=6, losses=6
    )
    match, token1, token2 = rated_match(user, other)
    write_path.submit_move(match.public_id, by=actor(match, token1), text="3", ply=0)
    resign(match, token2)
    page = new_page(viewport={"width": 360, "height": 780})
    for path in (
        match.get_absolute_url(),
        f"{match.get_absolute_url()}replay/",
        f"/players/{long_name}/",
        "/games/bit-flip/leaderboard/",
        "/games/bit-flip/",
    ):
        page.goto(live_server_url + path)
        expect(page.locator("h1")).to_be_visible()
        assert no_sideways_scroll(page), path
        if "/m/" in path:
            expect(page.locator("#end-notes")).to_contain_text(long_name)
    page.goto(f"{live_server_url}/games/bit-flip/leaderboard/")
    expect(page.locator("#leaderboard")).to_contain_text(long_name)
    sign_in(page, live_server_url, "carol")
    page.goto(f"{live_server_url}/games/bit-flip/new/")
    expect(
        page.get_by_role("checkbox", name=re.compile("^Rated: the result changes"))
    ).to_be_visible()
    assert no_sideways_scroll(page)
