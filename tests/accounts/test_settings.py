"""The account's settings page: change the password, see where the account is signed in,
and sign the other browsers out (accounts/devices.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client

from accounts import devices
from accounts.models import Device
from tests.accounts.helpers import PASSWORD, account, sign_in
from tests.test_limits import an_address

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/128.0.0.0 Mobile Safari/537.36"
)
NEW = "a-brand-new-password-77"


def browser(user_agent: str) -> Client:
    return Client(REMOTE_ADDR=an_address(), HTTP_USER_AGENT=user_agent)


def signed_in(client: Client) -> bool:
    return SESSION_KEY in client.session


def two_browsers():
    user = account("ada")
    laptop, phone = browser(FIREFOX), browser(PHONE)
    assert sign_in(laptop, "ada").status_code == 302
    assert sign_in(phone, "ada").status_code == 302
    return user, laptop, phone


def test_the_settings_page_asks_a_visitor_to_sign_in():
    response = Client().get("/accounts/settings/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/accounts/settings/")
    for url in ("/accounts/settings/password/", "/accounts/settings/sign-out-others/"):
        assert Client().post(url).status_code == 302
    assert Client().get("/accounts/settings/password/").status_code == 405


def test_the_page_lists_where_the_account_is_signed_in():
    user, laptop, phone = two_browsers()
    html = laptop.get("/accounts/settings/").content.decode()
    assert "Firefox on Linux" in html and "Chrome on Android" in html
    assert html.count("(this browser)") == 1
    this = html.split("(this browser)")[0].rsplit("<strong>", 1)[1]
    assert this.startswith("Firefox on Linux")
    assert set(Device.objects.filter(user=user).values_list("session_key", flat=True)) == {
        laptop.session.session_key,
        phone.session.session_key,
    }
    # Signing out forgets the browser.
    assert phone.post("/accounts/logout/").status_code == 303
    assert "Chrome on Android" not in laptop.get("/accounts/settings/").content.decode()
    assert Device.objects.filter(user=user).count() == 1


def test_sign_out_everywhere_else_keeps_this_browser():
    user, laptop, phone = two_browsers()
    response = laptop.post("/accounts/settings/sign-out-others/")
    assert response.status_code == 303
    assert "Signed out of 1 other browser." in laptop.get("/accounts/settings/").content.decode()
    assert signed_in(laptop)
    assert not signed_in(phone)
    assert "ada" not in phone.get("/").content.decode().split("</header>")[0]
    assert list(Device.objects.filter(user=user).values_list("session_key", flat=True)) == [
        laptop.session.session_key
    ]
    # Nothing else to sign out.
    laptop.post("/accounts/settings/sign-out-others/")
    assert "No other browser" in laptop.get("/accounts/settings/").content.decode()


def test_a_browser_whose_session_expired_is_no_longer_listed():
    user, laptop, phone = two_browsers()
    devices._store(phone.session.session_key).delete()  # as the session's expiry does
    html = laptop.get("/accounts/settings/").content.decode()
    assert "Chrome on Android" not in html
    assert Device.objects.filter(user=user).count() == 1


def test_changing_the_password_signs_out_the_other_browsers_only():
    user, laptop, phone = two_browsers()
    response = laptop.post(
        "/accounts/settings/password/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 303 and response["Location"] == "/accounts/settings/"
    page = laptop.get("/accounts/settings/").content.decode()
    assert "Your password is changed." in page
    assert signed_in(laptop)
    assert not signed_in(phone)
    user.refresh_from_db()
    assert user.check_password(NEW) and not user.check_password(PASSWORD)
    # This browser is listed under its new session key; the other is gone.
    assert list(Device.objects.filter(user=user).values_list("session_key", flat=True)) == [
        laptop.session.session_key
    ]
    assert sign_in(browser(FIREFOX), "ada", password=NEW).status_code == 302
    assert sign_in(browser(FIREFOX), "ada", password=PASSWORD).status_code == 200


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"old_password": "wrong", "new_password1": NEW, "new_password2": NEW}, "incorrectly"),
        ({"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW + "x"}, "match"),
        ({"old_password": PASSWORD, "new_password1": "short", "new_password2": "short"}, "short"),
        ({"old_password": PASSWORD, "new_password1": "\x00" * 3}, "NUL character"),
        ({}, "required"),
    ],
)
def test_a_refused_password_change_says_why_and_changes_nothing(data, says):
    user, laptop, phone = two_browsers()
    response = laptop.post("/accounts/settings/password/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert says in html
    assert "The password was not changed" in html or "NUL" in says  # (the edge's refusal)
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    assert signed_in(laptop) and signed_in(phone)


def test_the_settings_forms_need_the_csrf_token():
    account("ada")
    client = Client(enforce_csrf_checks=True)
    client.force_login(account("bob"))
    for url in ("/accounts/settings/password/", "/accounts/settings/sign-out-others/"):
        assert client.post(url, {}).status_code == 403


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (FIREFOX, "Firefox on Linux"),
        (PHONE, "Chrome on Android"),
        (
            "Mozilla/5.0 (Windows NT 10.0) AppleWebKit Chrome/128.0 Safari/537.36 Edg/128.0",
            "Edge on Windows",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Safari/604.1",
            "Safari on iPhone",
        ),
        ("curl/8.0", "A browser"),
        ("", "A browser"),
    ],
)
def test_a_browser_is_named_from_its_user_agent(agent, words):
    assert devices.describe(agent) == words


def test_an_over_long_user_agent_is_cut_to_what_is_kept():
    account("ada")
    client = browser("x" * 5000)
    assert sign_in(client, "ada").status_code == 302
    assert len(Device.objects.get().user_agent) == devices.USER_AGENT_KEPT
