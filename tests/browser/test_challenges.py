"""Direct challenges in Chromium: A challenges B by name; B, on another page, sees the
header's badge count it live, declines with a reason, and A reads the reason live; A
challenges again, B accepts, and both land in the game. At 360 px, and blocking."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from games.models import Match
from people.models import Challenge
from tests.browser.helpers import mark_page, wait_for_socket, was_not_reloaded
from tests.ratings.helpers import sign_in_browser

pytestmark = pytest.mark.browser

LIVE = 15_000  # ms: what a push brings, on two busy cores


def signed_in(page: Page, base: str, username: str):
    user = get_user_model().objects.create_user(username, password=None)
    sign_in_browser(page, base, user)
    return user


def badge(page: Page):
    return page.locator("#challenge-badge")


def challenge(page: Page, base: str, name: str, *, clock: str = "3+2") -> None:
    """From the player's page: Challenge, the game's form, sent; the challenges page."""
    page.goto(f"{base}/players/{name}/")
    page.get_by_role("link", name=f"Challenge {name}").click()
    page.wait_for_url(re.compile(rf"/players/{name}/challenge/"))
    page.get_by_role("radio", name=re.compile(rf"^{re.escape(clock)} \(")).check()
    page.get_by_role("button", name=re.compile(rf"^Challenge {name} to ")).click()
    page.wait_for_url(re.compile(r"/challenges/$"))
    wait_for_socket(page)
    mark_page(page)


def test_a_challenge_declined_with_a_reason_then_accepted(live_server_url, new_page, artifacts):
    base = live_server_url
    ada_page, bob_page = new_page(), new_page()
    signed_in(ada_page, base, "ada")
    signed_in(bob_page, base, "bob")
    bob_page.goto(f"{base}/")  # the lobby: its own socket, and the inbox's
    wait_for_socket(bob_page)
    mark_page(bob_page)
    expect(badge(bob_page)).to_be_visible()
    expect(badge(bob_page).locator(".count")).to_have_count(0)

    challenge(ada_page, base, "bob")
    expect(ada_page.locator("#sent")).to_contain_text("Waiting for the answer")
    # Bob's header counts it, live, on the page he has open.
    expect(badge(bob_page).locator(".count")).to_have_text("1", timeout=LIVE)
    assert was_not_reloaded(bob_page)
    bob_page.screenshot(path=str(artifacts / "challenge-badge.png"))

    bob_page.locator("#challenge-badge").click()
    bob_page.wait_for_url(re.compile(r"/challenges/$"))
    wait_for_socket(bob_page)
    mark_page(bob_page)
    received = bob_page.locator("#received")
    expect(received).to_contain_text("ada challenges you: Last Bit Standing, 3+2, casual")
    received.get_by_label("Why you decline").select_option(label="That clock is too fast for me.")
    received.get_by_role("button", name="Decline").click()
    expect(bob_page.locator("#received")).to_contain_text("You declined")
    wait_for_socket(bob_page)  # the answer was a page of its own
    mark_page(bob_page)
    # Ada reads why, live.
    expect(ada_page.locator("#sent")).to_contain_text(
        "bob declined: \u201cThat clock is too fast for me.\u201d", timeout=LIVE
    )
    assert was_not_reloaded(ada_page)
    ada_page.screenshot(path=str(artifacts / "challenge-declined.png"), full_page=True)

    # Again, slower; Bob, still on his challenges page, sees it arrive and accepts.
    challenge(ada_page, base, "bob", clock="5+5")
    bob_open = bob_page.locator("#received li.open")
    expect(bob_open).to_contain_text("Last Bit Standing, 5+5, casual", timeout=LIVE)
    assert was_not_reloaded(bob_page)
    bob_open.get_by_role("button", name="Accept").click()
    bob_page.wait_for_url(re.compile(r"/m/[\w-]{16}/$"))
    match = Match.objects.get(pk=Challenge.objects.get(status="accepted").match_id)
    assert bob_page.url.endswith(match.get_absolute_url())
    # Ada, waiting on her challenges page, is taken to the game.
    ada_page.wait_for_url(re.compile(re.escape(match.get_absolute_url()) + "$"), timeout=LIVE)
    for page in (ada_page, bob_page):
        wait_for_socket(page)
        expect(page.locator("#board")).to_be_visible()
    assert (match.seat1_user.username, match.seat2_user.username) == ("ada", "bob")
    assert (match.clock_base, match.clock_increment) == (300, 5)
    # Bob follows Ada: his friends list shows her online, and the game, linked.
    bob_page.goto(f"{base}/players/ada/")
    bob_page.get_by_role("button", name="Follow").click()
    expect(bob_page.get_by_role("main")).to_contain_text("You follow ada")
    bob_page.goto(f"{base}/friends/")
    friend = bob_page.locator("#friend-ada")
    expect(friend).to_contain_text("online now")
    expect(friend.get_by_role("link", name="Last Bit Standing: ada \u2013 bob")).to_have_attribute(
        "href", match.get_absolute_url()
    )
    bob_page.screenshot(path=str(artifacts / "friends.png"))
    for page in (ada_page, bob_page):
        assert page.console_errors == []


def test_a_reason_chosen_survives_a_challenge_arriving_while_choosing(live_server_url, new_page):
    """Bob picks why he declines Ada; Cleo's challenge arrives and redraws his lists before
    he presses Decline: his pick is still the one sent, and the one Ada reads."""
    base = live_server_url
    ada_page, bob_page, cleo_page = new_page(), new_page(), new_page()
    signed_in(ada_page, base, "ada")
    signed_in(bob_page, base, "bob")
    signed_in(cleo_page, base, "cleo")
    challenge(ada_page, base, "bob")

    bob_page.goto(f"{base}/challenges/")
    wait_for_socket(bob_page)
    received = bob_page.locator("#received")
    expect(received).to_contain_text("ada challenges you")
    received.get_by_label("Why you decline").select_option(label="That clock is too fast for me.")

    challenge(cleo_page, base, "bob")
    # The lists were redrawn live: Cleo's challenge is on them, under the pick.
    expect(received).to_contain_text("cleo challenges you", timeout=LIVE)
    ada_item = received.locator("li", has_text="ada challenges you")
    expect(ada_item.get_by_label("Why you decline")).to_have_value("too_fast")
    ada_item.get_by_role("button", name="Decline").click()
    expect(ada_item).to_contain_text("You declined: That clock is too fast for me.")
    expect(ada_page.locator("#sent")).to_contain_text(
        "bob declined: \u201cThat clock is too fast for me.\u201d", timeout=LIVE
    )


def test_a_blocked_player_cannot_challenge_and_the_pages_fit_a_phone(
    live_server_url, new_page, artifacts
):
    base = live_server_url
    phone = {"width": 360, "height": 780}
    ada_page, bob_page = new_page(viewport=phone), new_page(viewport=phone)
    signed_in(ada_page, base, "ada")
    signed_in(bob_page, base, "bob")
    bob_page.goto(f"{base}/players/ada/")
    bob_page.get_by_role("button", name="Block").click()
    expect(bob_page.get_by_role("main")).to_contain_text("You blocked ada")
    ada_page.goto(f"{base}/players/bob/challenge/")
    ada_page.get_by_role("button", name=re.compile("^Challenge bob to ")).click()
    expect(ada_page.locator("#form-errors")).to_contain_text(
        "bob does not take challenges from you."
    )
    assert Challenge.objects.count() == 0
    assert ada_page.evaluate("document.documentElement.scrollWidth") <= 360
    ada_page.screenshot(path=str(artifacts / "challenge-form-360.png"), full_page=True)
    for mark in ("#challenge-badge", "#notification-bell"):  # a finger's target, 44 px
        box = ada_page.locator(mark).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (mark, box)
    bob_page.get_by_role("button", name="Unblock").click()
    expect(bob_page.get_by_role("link", name="Challenge ada")).to_be_visible()
    assert bob_page.evaluate("document.documentElement.scrollWidth") <= 360
    bob_page.goto(f"{base}/challenges/")
    assert bob_page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_correspondence_move_raises_the_bell_live_on_another_page(
    live_server_url, new_page, artifacts
):
    """Bob moves in a correspondence game; Ada, on the lobby page, sees her bell count it
    at once, and the notification takes her to the game."""
    from games import play as write_path
    from tests.browser.helpers import SCRIPTS, play

    base = live_server_url
    ada_page, bob_page = new_page(), new_page()
    ada = signed_in(ada_page, base, "ada")
    bob = signed_in(bob_page, base, "bob")
    days = {"clock": Match.Clock.CORRESPONDENCE, "days": 3}
    slug = "last-bit-standing"
    match = write_path.create_match(
        slug, token=ada.profile.token, user=ada, time_control=days, first="opponent"
    )
    write_path.join(match.public_id, token=bob.profile.token, user=bob)  # Bob starts
    ada_page.goto(f"{base}/")
    wait_for_socket(ada_page)
    mark_page(ada_page)
    expect(ada_page.locator("#notification-bell .count")).to_have_count(0)
    bob_page.goto(f"{base}{match.get_absolute_url()}")
    wait_for_socket(bob_page)
    play(bob_page, slug, SCRIPTS[slug][0][0])
    expect(ada_page.locator("#notification-bell .count")).to_have_text("1", timeout=LIVE)
    assert was_not_reloaded(ada_page)
    ada_page.screenshot(path=str(artifacts / "notification-bell.png"))
    ada_page.locator("#notification-bell").click()
    ada_page.wait_for_url(re.compile(r"/notifications/$"))
    ada_page.get_by_role("button", name="Your turn in Last Bit Standing against bob.").click()
    ada_page.wait_for_url(re.compile(re.escape(match.get_absolute_url()) + "$"))
    expect(ada_page.locator("#notification-bell .count")).to_have_count(0)
    for page in (ada_page, bob_page):
        assert page.console_errors == []


def test_without_javascript_every_new_page_is_a_plain_page(live_server_url, new_page, artifacts):
    """Challenges, their answers, follows, the friends list, the notifications and the chat,
    with JavaScript off: each form posts and the next page says what happened."""
    base = live_server_url
    ada_page = new_page(java_script_enabled=False)
    bob_page = new_page(java_script_enabled=False)
    signed_in(ada_page, base, "ada")
    signed_in(bob_page, base, "bob")
    ada_page.goto(f"{base}/players/bob/")
    ada_page.get_by_role("link", name="Challenge bob").click()
    ada_page.get_by_role("link", name="Bit Flip", exact=True).click()
    ada_page.wait_for_url(re.compile(r"/players/bob/challenge/bit-flip/$"))
    ada_page.get_by_role("button", name=re.compile("^Challenge bob to ")).click()
    ada_page.wait_for_url(re.compile(r"/challenges/$"))
    expect(ada_page.locator("#sent")).to_contain_text("Waiting for the answer")

    bob_page.goto(f"{base}/")
    expect(badge(bob_page).locator(".count")).to_have_text("1")  # drawn with the page
    bob_page.goto(f"{base}/challenges/")
    received = bob_page.locator("#received li.open")
    expect(received).to_contain_text("ada challenges you: Bit Flip")
    received.get_by_role("button", name="Accept").click()
    bob_page.wait_for_url(re.compile(r"/m/[\w-]{16}/$"))
    match = Match.objects.get(pk=Challenge.objects.get(status="accepted").match_id)

    # The chat: a form that posts, and the page comes back at it.
    bob_page.locator("#chat-text-players").fill("good luck <i>ada</i>")
    bob_page.get_by_role("button", name="Send").click()
    bob_page.wait_for_url(re.compile(r"#chat-players$"))
    expect(bob_page.locator("#chat-log-players")).to_contain_text("good luck <i>ada</i>")
    ada_page.goto(f"{base}{match.get_absolute_url()}")
    expect(ada_page.locator("#chat-log-players")).to_contain_text("good luck <i>ada</i>")

    # Ada's notifications: bob accepted; opening it marks it read and leads to the game.
    ada_page.goto(f"{base}/notifications/")
    notice = ada_page.get_by_role("button", name=re.compile("bob accepted"))
    expect(notice).to_be_visible()
    notice.click()
    ada_page.wait_for_url(re.compile(re.escape(match.get_absolute_url()) + "$"))
    ada_page.goto(f"{base}/notifications/")
    ada_page.get_by_role("button", name="Mark all as read").click()
    expect(ada_page.locator("#notification-bell .count")).to_have_count(0)

    # Follow, and the friends list.
    ada_page.goto(f"{base}/players/bob/")
    ada_page.get_by_role("button", name="Follow").click()
    expect(ada_page.get_by_role("main")).to_contain_text("You follow bob")
    ada_page.goto(f"{base}/friends/")
    expect(ada_page.locator("#friend-bob")).to_contain_text("bob")
    ada_page.screenshot(path=str(artifacts / "friends-nojs.png"), full_page=True)
