"""Accounts in Chromium: two accounts play a match in two browsers, each with My games
open, which follows every move live; a third browser signed into the first account finds
the same games and plays on. Without JavaScript, and at 360 px, too."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Match
from tests.browser.helpers import (
    PASSWORD,
    SCRIPTS,
    create_match,
    join,
    mark_page,
    play,
    sign_in,
    sign_up,
    status,
    wait_for_ply,
    wait_for_socket,
    was_not_reloaded,
)

pytestmark = pytest.mark.browser

SLUG = "bit-flip-divisor"  # three moves: 8, 7, 6, and Player 1 wins


def another_tab(page: Page) -> Page:
    """A second page in the same browser (the same cookies: the same person)."""
    tab = page.context.new_page()
    tab.console_errors = []
    tab.on(
        "console", lambda msg: tab.console_errors.append(msg.text) if msg.type == "error" else None
    )
    tab.on("pageerror", lambda exc: tab.console_errors.append(str(exc)))
    tab.set_default_timeout(10_000)
    return tab


def my_games(page: Page, base: str) -> Page:
    """My games, open in another tab of the same browser, its socket open."""
    tab = another_tab(page)
    tab.goto(f"{base}/accounts/games/")
    wait_for_socket(tab)
    mark_page(tab)
    return tab


def row(page: Page, section: str, public_id: str):
    return page.locator(f"#{section} #game-{public_id}")


def turn_mark(page: Page, public_id: str):
    return row(page, "ongoing", public_id).locator(".badge.turn")


def public_id(url: str) -> str:
    return re.search(r"/m/([\w-]{16})/$", url).group(1)


def test_two_accounts_play_and_my_games_follows_live_then_a_third_browser_plays_on(
    live_server_url, new_page, artifacts
):
    base = live_server_url
    ada, bob = new_page(), new_page()
    sign_up(ada, base, "ada")
    url = create_match(ada, base, SLUG)  # the name: the account's, by default
    sign_up(bob, base, "bob")
    join(bob, url)
    match_id = public_id(url)
    match = Match.objects.get(public_id=match_id)
    assert (match.seat1_user.username, match.seat2_user.username) == ("ada", "bob")
    assert (match.seat1_name, match.seat2_name) == ("ada", "bob")

    ada_games, bob_games = my_games(ada, base), my_games(bob, base)
    expect(turn_mark(ada_games, match_id)).to_have_text("Your turn")
    expect(row(bob_games, "ongoing", match_id)).to_contain_text("Waiting for Player 1 (ada)")
    expect(turn_mark(bob_games, match_id)).to_have_count(0)

    moves, winner = SCRIPTS[SLUG]
    for page in (ada, bob):
        wait_for_socket(page)
    for ply, text in enumerate(moves):
        mover, other = (ada, bob) if ply % 2 == 0 else (bob, ada)
        play(mover, SLUG, text)
        wait_for_ply(other, ply + 1)
        if ply < len(moves) - 1:  # "Your turn" goes over to the other player, live
            waiting, turn = (ada_games, bob_games) if ply % 2 == 0 else (bob_games, ada_games)
            expect(turn_mark(turn, match_id)).to_have_text("Your turn")
            expect(turn_mark(waiting, match_id)).to_have_count(0)
    assert winner == 1
    expect(status(ada)).to_contain_text("You win")

    # Over: it leaves the ongoing list and is first among the finished ones, on both pages.
    for page, result in ((ada_games, "Won"), (bob_games, "Lost")):
        finished = row(page, "finished", match_id)
        expect(finished).to_contain_text(result)
        expect(row(page, "ongoing", match_id)).to_have_count(0)
        expect(finished.get_by_role("link", name=re.compile("^Replay"))).to_have_attribute(
            "href", f"/m/{match_id}/replay/"
        )
        assert was_not_reloaded(page)
    ada_games.screenshot(path=str(artifacts / "my-games-after.png"), full_page=True)

    # A rematch (Bob moves first in it) appears in both lists, live.
    ada.get_by_role("button", name="Rematch").click()
    ada.wait_for_url(lambda address: match_id not in address)
    rematch_id = public_id(ada.url)
    assert rematch_id != match_id
    bob.wait_for_url(f"{base}/m/{rematch_id}/")
    expect(turn_mark(bob_games, rematch_id)).to_have_text("Your turn")
    expect(row(ada_games, "ongoing", rematch_id)).to_contain_text("Waiting for Player 1 (bob)")
    assert was_not_reloaded(ada_games) and was_not_reloaded(bob_games)

    # A third browser signs in as Ada: the same games, and it plays on.
    phone = new_page()
    sign_in(phone, base, "ada")
    wait_for_socket(phone)
    expect(row(phone, "ongoing", rematch_id)).to_be_visible()
    expect(row(phone, "finished", match_id)).to_contain_text("Won")
    wait_for_socket(bob)
    play(bob, "bit-flip-divisor", "8")
    expect(turn_mark(phone, rematch_id)).to_have_text("Your turn")  # live there too
    row(phone, "ongoing", rematch_id).get_by_role("link", name=re.compile("^Play")).click()
    phone.wait_for_url(f"{base}/m/{rematch_id}/")
    expect(status(phone)).to_have_text("Your turn")
    wait_for_socket(phone)
    play(phone, "bit-flip-divisor", "7")
    wait_for_ply(bob, 2)
    wait_for_ply(ada, 2)  # Ada's first browser sees its own account's move
    # And the finished one's replay opens from the third browser.
    phone.goto(f"{base}/accounts/games/")
    row(phone, "finished", match_id).get_by_role("link", name=re.compile("^Replay")).click()
    phone.wait_for_url(re.compile(rf"/m/{match_id}/replay/"))
    expect(phone.locator("#replay")).to_be_visible()
    for page in (ada, bob, ada_games, bob_games, phone):
        assert page.console_errors == [], page.console_errors


def test_signing_out_takes_the_games_off_the_browser(live_server_url, new_page):
    base = live_server_url
    page = new_page()
    url = create_match(page, base, "bit-flip")  # anonymous: the browser's seat
    sign_up(page, base, "ada")  # the seat becomes the account's
    expect(page.locator(f"#ongoing #game-{public_id(url)}")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    page.goto(url)
    expect(page.get_by_role("button", name="Join as the second player")).to_be_visible()
    page.goto(f"{base}/accounts/games/")
    page.wait_for_url(re.compile(r"/accounts/login/\?next=/accounts/games/$"))
    assert page.console_errors == []


def test_without_javascript_accounts_and_my_games_work(live_server_url, new_page):
    base = live_server_url
    page = new_page(java_script_enabled=False)
    sign_up(page, base, "nojs")
    create_match(page, base, "last-digit-standing", opponent="hotseat")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Resign").click()
    expect(status(page)).to_contain_text("wins")
    create_match(page, base, "bit-flip", opponent="computer", level="random")
    page.goto(f"{base}/accounts/games/")
    expect(page.locator("#ongoing .game")).to_have_count(1)
    expect(page.locator("#finished .game")).to_have_count(1)
    page.get_by_label("Result").select_option("won")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"result=won"))
    expect(page.locator("#finished")).to_contain_text("No finished game matches these filters.")
    page.get_by_label("Result").select_option("other")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("#finished .game")).to_have_count(1)
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{base}/")
    expect(page.get_by_role("link", name="Sign up")).to_be_visible()


def test_at_360_px_nothing_scrolls_sideways(live_server_url, new_page, artifacts):
    base = live_server_url
    page = new_page(viewport={"width": 360, "height": 780})
    long_name = "a" * 30
    page.goto(f"{base}/accounts/signup/")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    sign_up(page, base, long_name)
    create_match(page, base, "bit-flip", name="N" * 40, options={"width": 8})
    other = new_page(viewport={"width": 360, "height": 780})
    sign_up(other, base, "b" * 30)
    match = Match.objects.get()
    join(other, f"{base}/m/{match.public_id}/", name="M" * 40)
    for path in ("/accounts/games/", "/accounts/login/", "/accounts/logout/", "/"):
        page.goto(base + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
    page.goto(f"{base}/accounts/games/")
    expect(page.locator("#ongoing .game")).to_have_count(1)
    page.screenshot(path=str(artifacts / "my-games-360.png"), full_page=True)


def test_the_settings_page_changes_the_password_and_signs_the_other_browser_out(
    live_server_url, new_page, artifacts
):
    """From My games to Settings: both browsers listed, a refused change says why, a good
    one keeps this browser signed in and signs the other out; at 360 px too."""
    laptop = new_page()
    sign_up(laptop, live_server_url, "setter")
    phone = new_page(viewport={"width": 360, "height": 780})
    sign_in(phone, live_server_url, "setter")
    laptop.get_by_role("link", name="Settings").click()
    laptop.wait_for_url(re.compile(r"/accounts/settings/$"))
    devices = laptop.get_by_role("list", name="Where you are signed in")
    expect(devices.get_by_role("listitem")).to_have_count(2)
    expect(devices).to_contain_text("(this browser)")

    laptop.get_by_label("Old password").fill("not-my-password")
    laptop.get_by_label("New password", exact=True).fill("a-brand-new-password-77")
    laptop.get_by_label("New password confirmation").fill("a-brand-new-password-77")
    laptop.get_by_role("button", name="Change password").click()
    expect(laptop.locator("#form-errors")).to_contain_text("The password was not changed")
    expect(laptop.locator("#form-errors")).to_contain_text("incorrectly")

    laptop.get_by_label("Old password").fill(PASSWORD)
    laptop.get_by_label("New password", exact=True).fill("a-brand-new-password-77")
    laptop.get_by_label("New password confirmation").fill("a-brand-new-password-77")
    laptop.get_by_role("button", name="Change password").click()
    expect(laptop.get_by_role("main")).to_contain_text("Your password is changed.")
    expect(laptop.locator(".account-nav .who")).to_have_text("setter")
    expect(devices.get_by_role("listitem")).to_have_count(1)
    laptop.screenshot(path=str(artifacts / "settings.png"), full_page=True)

    phone.goto(f"{live_server_url}/accounts/settings/")
    phone.wait_for_url(re.compile(r"/accounts/login/"))
    expect(phone.get_by_role("link", name="Sign in")).to_be_visible()
    phone.get_by_label("Username").fill("setter")
    phone.get_by_label("Password").fill("a-brand-new-password-77")
    phone.get_by_role("button", name="Sign in").click()
    phone.wait_for_url(re.compile(r"/accounts/settings/$"))
    phone.screenshot(path=str(artifacts / "settings-360.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    # And the laptop signs the phone out from its settings.
    laptop.reload()
    expect(devices.get_by_role("listitem")).to_have_count(2)
    laptop.get_by_role("button", name="Sign out everywhere else").click()
    expect(laptop.get_by_role("main")).to_contain_text("Signed out of 1 other browser.")
    phone.reload()
    phone.wait_for_url(re.compile(r"/accounts/login/"))
    # The only console error: the refused change's page, answered 400 as a form's errors are.
    assert laptop.console_errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
    assert phone.console_errors == []
