"""The lobby in Chromium: a challenge made in one browser shows in another's lobby without a
reload, is accepted, and both land in the match; the watch page lists it with its small
picture, shows a move live, and opens it as a spectator. Without JavaScript too."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from games.models import Match
from tests.browser.helpers import (
    mark_page,
    move_button,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)

pytestmark = pytest.mark.browser

# A button's visually hidden words come after a space in Chromium's accessible name.
PLAY_ANYONE = re.compile(r"^Play anyone\W+Last Digit Standing$")
LONG = "A" * 20 + " " + "B" * 19  # 40 characters, one long word


def list_a_challenge(page: Page, base: str, slug: str, name: str = "Ada") -> str:
    """Start a match with a friend from the game's page, listed in the lobby."""
    page.goto(f"{base}/games/{slug}/new/")
    page.get_by_label("List it in the lobby").check()
    page.get_by_label("Your name (optional)").fill(name)
    page.get_by_role("button", name=re.compile(r"^Start a .* match$")).click()
    page.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    return page.url


def no_sideways_scroll(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_challenge_goes_live_to_another_lobby_is_accepted_and_watched(
    live_server_url, new_page, artifacts
):
    ada, bob, eve = new_page(), new_page(), new_page()
    bob.goto(live_server_url + "/")
    wait_for_socket(bob)
    mark_page(bob)
    expect(bob.locator(".lobby-empty")).to_be_visible()

    url = list_a_challenge(ada, live_server_url, "bit-flip", name="Ada")
    wait_for_socket(ada)
    expect(status(ada)).to_contain_text("Waiting for an opponent")
    public_id = url.rstrip("/").rsplit("/", 1)[1]

    row = bob.locator(f"#c-{public_id}")
    expect(row).to_contain_text("Bit Flip")
    expect(row).to_contain_text("by Ada")
    expect(bob.locator(".lobby-empty")).to_be_hidden()
    assert was_not_reloaded(bob)
    bob.screenshot(path=str(artifacts / "lobby-challenge.png"), full_page=True)

    row.get_by_role("button", name=re.compile("^Accept")).click()
    bob.wait_for_url(url)
    expect(bob.locator(".flash")).to_contain_text("You accepted the challenge")
    # Ada's waiting page turned into the game, live.
    expect(status(ada)).to_have_text("Your turn")
    wait_for_socket(bob)
    expect(status(bob)).to_have_text("Waiting for Player 1 (Ada)")
    assert Match.objects.get(public_id=public_id).status == Match.Status.PLAYING

    eve.goto(live_server_url + "/watch/")
    wait_for_socket(eve)
    mark_page(eve)
    card = eve.locator(f"#w-{public_id}")
    expect(card).to_contain_text("Player 1 (Ada)")
    picture = card.get_by_role("img", name="Position: 00000000")
    expect(picture).to_be_visible()
    move_button(ada, "bit-flip", "3").click()
    wait_for_ply(bob, 1)
    expect(card.get_by_role("img", name="Position: 00100000")).to_be_visible()
    expect(card.locator(".mini .one")).to_have_count(1)
    assert was_not_reloaded(eve)
    eve.screenshot(path=str(artifacts / "watch.png"), full_page=True)

    card.get_by_role("link", name=re.compile("^Bit Flip")).click()
    eve.wait_for_url(url)
    expect(status(eve)).to_have_text("Player 2 to move")
    expect(eve.locator("#board button[name=move]")).to_have_count(0)
    for page in (ada, bob, eve):
        assert page.console_errors == []


def test_play_anyone_pairs_two_players(live_server_url, new_page):
    ada, bob = new_page(), new_page()
    for page in (ada, bob):
        page.goto(live_server_url + "/")
    ada.locator("#game-last-digit-standing").get_by_role("button", name=PLAY_ANYONE).click()
    ada.wait_for_url(re.compile(r"/m/[\w-]+/$"))
    expect(ada.locator(".flash")).to_contain_text("Your challenge is open in the lobby")
    wait_for_socket(ada)
    expect(bob.locator("#challenge-list li")).to_have_count(1)  # live, in Bob's lobby
    bob.locator("#game-last-digit-standing").get_by_role("button", name=PLAY_ANYONE).click()
    bob.wait_for_url(ada.url)
    # The second click's answer, if it reached the server: the same match.
    expect(bob.locator(".flash")).to_contain_text(
        re.compile("You accepted an open challenge|You are already playing Last Digit Standing")
    )
    expect(ada.locator("#board")).to_have_attribute("data-version", re.compile(r"[1-9]"))
    expect(status(ada)).not_to_contain_text("Waiting for an opponent")
    assert ada.console_errors == [] and bob.console_errors == []


def _seats_of_the_browser(page: Page, match: Match) -> set[int]:
    """The seats of ``match`` that the session cookie this browser kept holds."""
    from django.conf import settings
    from django.contrib.sessions.backends.cached_db import SessionStore

    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    session = SessionStore(session_key=cookies[settings.SESSION_COOKIE_NAME])
    match.refresh_from_db()
    return match.seats_for([session.get("token")])


MATCH_URL = re.compile(r"/m/[\w-]{16}/$")


def _play_anyone(page: Page):
    return page.locator("#game-last-digit-standing").get_by_role("button", name=PLAY_ANYONE)


@pytest.mark.parametrize("javascript", [True, False])
def test_double_clicking_play_anyone_holds_one_seat(live_server_url, new_page, javascript):
    """D8: a first-time visitor double-clicks (no session yet), then, with other
    challenges open, a returning player does: one seat each, never paired with oneself."""
    ada = new_page(java_script_enabled=javascript)
    ada.goto(live_server_url + "/")
    _play_anyone(ada).dblclick()
    expect(ada).to_have_url(MATCH_URL)  # the URL, not the navigation: a double click aborts one
    expect(status(ada)).to_contain_text("Waiting for an opponent")
    match = Match.objects.get()
    assert ada.url == live_server_url + match.get_absolute_url()
    assert match.status == Match.Status.WAITING and not match.seat2_secret
    assert _seats_of_the_browser(ada, match) == {1}

    bob = new_page(java_script_enabled=javascript)
    list_a_challenge(bob, live_server_url, "bit-flip-divisor", name="Bob")  # he played before
    others = [list_a_challenge(new_page(), live_server_url, "last-digit-standing") for _ in "cd"]
    bob.goto(live_server_url + "/")
    _play_anyone(bob).dblclick()
    expect(bob).to_have_url(ada.url)  # Ada's, the oldest
    # The second click's answer, if it reached the server: the same match.
    expect(bob.locator(".flash")).to_contain_text(
        re.compile("You accepted an open challenge|You are already playing Last Digit Standing")
    )
    assert _seats_of_the_browser(bob, match) == {2}
    waiting = Match.objects.filter(game="last-digit-standing", status=Match.Status.WAITING)
    assert {m.get_absolute_url() for m in waiting} == {
        u.removeprefix(live_server_url) for u in others
    }
    assert ada.console_errors == [] and bob.console_errors == []


def test_play_anyone_pressed_in_two_tabs_at_once_on_a_first_visit_holds_one_seat(
    live_server_url, new_page
):
    """Two tabs of a browser that has no session yet press at once: both requests leave
    without a session cookie (each is held until the other has left too). One
    challenge, held by whichever session the browser keeps."""
    one = new_page()
    two = one.context.new_page()
    for tab in (one, two):
        tab.goto(live_server_url + "/")
    held = []
    one.context.route("**/play-anyone", lambda route: held.append(route))
    for tab in (one, two):
        tab.bring_to_front()  # a tab behind the other gets no frames to click in
        with tab.expect_request("**/play-anyone"):
            _play_anyone(tab).click(no_wait_after=True)
    deadline = time.monotonic() + 10
    while len(held) < 2:  # Playwright hands the second route over while it is waited on
        assert time.monotonic() < deadline, "the second press never left"
        one.wait_for_timeout(10)
    assert not any("sessionid" in (r.request.headers.get("cookie") or "") for r in held)
    for route in held:
        route.continue_()
    for tab in (one, two):
        expect(tab).to_have_url(MATCH_URL)
    assert one.url == two.url
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING and not match.seat2_secret
    assert _seats_of_the_browser(one, match) == {1}
    for tab in (one, two):
        expect(status(tab)).to_contain_text("Waiting for an opponent")


def test_the_creator_withdraws_from_the_lobby_and_every_lobby_sees_it(live_server_url, new_page):
    ada, bob = new_page(), new_page()
    url = list_a_challenge(ada, live_server_url, "bit-flip-divisor")
    public_id = url.rstrip("/").rsplit("/", 1)[1]
    ada_lobby = ada.context.new_page()
    ada_lobby.goto(live_server_url + "/")
    bob.goto(live_server_url + "/")
    wait_for_socket(bob)
    expect(bob.locator(f"#c-{public_id}")).to_be_visible()
    ada_lobby.locator(f"#c-{public_id}").get_by_role("button", name=re.compile("^Withdraw")).click()
    expect(ada_lobby.locator("#lobby-notice")).to_contain_text("withdrawn")
    expect(bob.locator(f"#c-{public_id}")).to_have_count(0)
    expect(ada_lobby.locator(f"#c-{public_id}")).to_have_count(0)
    expect(status(ada)).to_contain_text("cancelled")  # its page says so, live


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_listing_box_is_for_a_friend_only(live_server_url, new_page, javascript):
    page = new_page(java_script_enabled=javascript)
    page.goto(f"{live_server_url}/games/bit-flip/new/")
    box = page.get_by_label("List it in the lobby")
    expect(box).to_be_visible()
    page.get_by_text("Play the computer").click()
    expect(box).to_be_hidden()
    page.get_by_text("Pass and play on one device").click()
    expect(box).to_be_hidden()


def test_without_javascript_the_lobby_lists_and_accepts(live_server_url, new_page):
    ada = new_page()
    url = list_a_challenge(ada, live_server_url, "bitwise-battle", name="Ada")
    bob = new_page(java_script_enabled=False)
    bob.goto(live_server_url + "/")
    row = bob.locator("#challenge-list li")
    expect(row).to_have_count(1)
    row.get_by_role("button", name=re.compile("^Accept")).click()
    bob.wait_for_url(url)
    expect(bob.locator(".flash")).to_contain_text("You accepted the challenge")
    bob.goto(live_server_url + "/watch/")
    expect(bob.locator("#watch-list li")).to_have_count(1)
    expect(bob.get_by_role("img", name="Position: (empty)")).to_be_visible()


def test_lobby_and_watch_pages_at_360_px(live_server_url, new_page, artifacts):
    names = [LONG, "Grace"]
    makers = [new_page() for _ in names]
    urls = [
        list_a_challenge(maker, live_server_url, slug, name=name)
        for maker, slug, name in zip(makers, ["bit-flip", "last-bit-standing"], names, strict=True)
    ]
    page = new_page(viewport={"width": 360, "height": 780})
    page.goto(live_server_url + "/")
    expect(page.locator("#challenge-list li")).to_have_count(2)
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / "lobby-360.png"), full_page=True)
    page.locator("#challenge-list li").first.get_by_role("button").click()
    page.wait_for_url(urls[0])
    page.goto(live_server_url + "/watch/")
    expect(page.locator("#watch-list li")).to_have_count(1)
    expect(page.locator("#watch-list")).to_contain_text(LONG)
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / "watch-360.png"), full_page=True)


LOBBY_NAME = re.compile(r"^Your name for Accept and Play anyone")


@pytest.mark.parametrize("javascript", [True, False])
def test_play_anyone_and_accept_take_a_name_remembered_for_next_time(
    live_server_url, new_page, artifacts, javascript
):
    # Ada keeps her challenge's page open (its socket), else the lobby closes it.
    ada = new_page()
    ada.goto(live_server_url + "/")
    ada.get_by_label(LOBBY_NAME).fill("Ada")
    _play_anyone(ada).click()
    ada.wait_for_url(MATCH_URL)
    match_url = ada.url
    wait_for_socket(ada)
    # Her challenge's page says where it is, not "send this link".
    expect(ada.locator("#listed-note")).to_contain_text("Your challenge is open in the lobby")
    expect(ada.locator("#share")).not_to_contain_text("Send this link to a friend.")
    expect(ada.locator("#board .player.is-viewer")).to_contain_text("(Ada) · you")  # first: random
    home = ada.context.new_page()
    home.goto(live_server_url + "/")
    expect(home.get_by_label(LOBBY_NAME)).to_have_value("Ada")  # remembered

    bob = new_page(java_script_enabled=javascript)
    bob.goto(live_server_url + "/")
    row = bob.locator("#challenge-list li")
    expect(row).to_contain_text("by Ada")
    bob.get_by_label(LOBBY_NAME).fill("Bob")
    row.get_by_role("button", name=re.compile("^Accept")).click()
    bob.wait_for_url(match_url)
    expect(bob.locator(".flash")).to_contain_text(re.compile(r"you are Player [12] \(Bob\)"))
    bob.goto(live_server_url + "/")
    expect(bob.get_by_label(LOBBY_NAME)).to_have_value("Bob")
    bob.goto(f"{live_server_url}/games/bit-flip/new/")
    expect(bob.get_by_label("Your name (optional)")).to_have_value("Bob")
    bob.screenshot(path=str(artifacts / f"lobby-name-new-match-js-{javascript}.png"))
    assert ada.console_errors == [] and bob.console_errors == []


def test_a_signed_in_player_goes_by_the_user_name_and_no_name_imitates_an_account(
    live_server_url, new_page
):
    from tests.browser.helpers import sign_up

    ada = new_page()
    sign_up(ada, live_server_url, "ada")
    ada.goto(live_server_url + "/")
    expect(ada.get_by_label(LOBBY_NAME)).to_have_value("ada")  # by default
    eve = new_page(viewport={"width": 360, "height": 780})
    eve.goto(live_server_url + "/")
    eve.get_by_label(LOBBY_NAME).fill("ADA")
    _play_anyone(eve).click()
    expect(eve.locator(".flash")).to_contain_text(
        "“ADA” reads as the user name of an account: choose another name"
    )
    assert not Match.objects.exists()  # nothing changed
    assert no_sideways_scroll(eve)
