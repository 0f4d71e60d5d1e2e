"""A match's chats in Chromium: the players' chat live for the other seat, the
spectators' chat live for every spectator, escaped; a reported message reaches the
admin; a player mutes the other; a muted account's words reach nobody else."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from chat import talk
from chat.models import Report
from tests.browser.helpers import create_match, join, mark_page, wait_for_socket, was_not_reloaded
from tests.ratings.helpers import sign_in_browser

pytestmark = pytest.mark.browser

LIVE = 15_000  # ms: what a push brings, on two busy cores


def account(page: Page, base: str, username: str, **extra):
    user = get_user_model().objects.create_user(username, password=None, **extra)
    sign_in_browser(page, base, user)
    return user


def log(page: Page, room: str = "players"):
    return page.locator(f"#chat-log-{room}")


def say(page: Page, text: str, room: str = "players") -> None:
    box = page.locator(f"#chat-text-{room}")
    box.fill(text)
    box.press("Enter")
    expect(page.locator(f"#chat-text-{room}")).to_have_value("", timeout=LIVE)


def test_players_and_spectators_talk_live_and_a_report_reaches_the_admin(
    live_server_url, new_page, artifacts
):
    base = live_server_url
    ada, bob, cleo, dan = new_page(), new_page(), new_page(), new_page()
    url = create_match(ada, base, "bit-flip", name="Ada")
    join(bob, url, name="Bob")
    account(cleo, base, "cleo")
    for page in (cleo, dan):
        page.goto(url)
    for page in (ada, bob, cleo, dan):
        wait_for_socket(page)
        mark_page(page)

    payload = "good luck <b>&amp;</b> <img src=x onerror=alert(1)>"
    say(ada, payload)
    expect(log(bob)).to_contain_text(payload, timeout=LIVE)  # as text, live
    expect(log(bob).locator("b, img")).to_have_count(0)
    expect(log(ada)).to_contain_text(payload)
    # The spectators read neither seat's chat, and have their own.
    expect(dan.locator("#chat-log-players")).to_have_count(0)
    expect(dan.locator("#chat-spectators")).to_contain_text("Sign in to write")
    say(cleo, "what a start", room="spectators")
    expect(log(dan, "spectators")).to_contain_text("cleo what a start", timeout=LIVE)
    expect(ada.locator("#chat-log-spectators")).to_have_count(0)
    say(bob, "thanks")
    expect(log(ada)).to_contain_text("thanks", timeout=LIVE)
    ada.screenshot(path=str(artifacts / "chat-players.png"), full_page=True)
    dan.screenshot(path=str(artifacts / "chat-spectators.png"), full_page=True)

    # Bob reports Ada's message; the moderators read it, with what was said around it.
    line = log(bob).locator("li", has_text="good luck")
    line.get_by_label("Report this message").click()
    line.get_by_role("button", name="Insult").click()
    expect(bob.locator("#chat-players")).to_contain_text("the moderators will read", timeout=LIVE)
    report = Report.objects.get()
    assert report.by_name == "Bob" and [m["text"] for m in report.context] == [payload, "thanks"]
    for page in (ada, bob, cleo, dan):
        assert was_not_reloaded(page)
        assert page.console_errors == []
    # A moderator reads it in the admin: Dan's browser, now signed in as one.
    staff = dan
    account(staff, base, "mod", is_staff=True, is_superuser=True)
    staff.goto(f"{base}/admin/chat/report/")
    expect(staff.locator("#result_list")).to_contain_text("good luck")
    expect(staff.locator("#result_list")).to_contain_text("Insult or harassment")


def test_a_muted_account_is_read_by_nobody_else_and_a_player_may_mute_the_other(
    live_server_url, new_page, artifacts
):
    base = live_server_url
    ada, bob = new_page(), new_page({"width": 360, "height": 780})
    ada_user = account(ada, base, "ada")
    account(bob, base, "bob")
    url = create_match(ada, base, "last-bit-standing", name="Ada")
    join(bob, url)
    for page in (ada, bob):
        wait_for_socket(page)
    moderator = get_user_model().objects.create_user("mod", password=None, is_staff=True)
    talk.silence(ada_user, 24, "abuse", moderator)

    say(ada, "you play badly")
    expect(log(ada)).to_contain_text("you play badly")  # its author reads it...
    say(bob, "hello?")
    expect(log(bob)).to_contain_text("hello?", timeout=LIVE)
    expect(log(ada)).to_contain_text("hello?", timeout=LIVE)
    expect(log(bob)).not_to_contain_text("you play badly")  # ...nobody else does
    bob.reload()
    expect(log(bob)).to_contain_text("hello?")
    expect(log(bob)).not_to_contain_text("you play badly")

    # Bob mutes Ada for this match; what she writes no longer reaches him.
    talk.Silence.objects.all().delete()
    wait_for_socket(bob)
    bob.get_by_role("button", name="Mute the other player").click()
    expect(bob.locator("#chat-players")).to_contain_text("You no longer read", timeout=LIVE)
    say(ada, "are you there?")
    say(bob, "bye")
    expect(log(ada)).to_contain_text("bye", timeout=LIVE)
    expect(log(bob)).to_contain_text("bye")
    expect(log(bob)).not_to_contain_text("are you there?")
    bob.screenshot(path=str(artifacts / "chat-phone.png"), full_page=True)
