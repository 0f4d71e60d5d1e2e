"""Signing up, in and out: the forms, the header, ``next``, throttling shared with the
admin, the sign-up rate limit, and password reset only when email can be sent."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, override_settings

from accounts.models import Profile
from tests.accounts.helpers import PASSWORD, account, sign_in, sign_up
from tests.test_limits import an_address

pytestmark = pytest.mark.django_db

RESET_URLS = [
    "/accounts/password-reset/",
    "/accounts/password-reset/sent/",
    "/accounts/reset/MQ/set-password/",
    "/accounts/reset/done/",
]


def header(html: str) -> str:
    return re.search(r'<header class="topbar">.*?</header>', html, re.S).group(0)


def test_the_header_offers_sign_in_and_up_or_the_account_and_sign_out():
    browser = Client()
    signed_out = header(browser.get("/").content.decode())
    assert 'href="/accounts/login/">Sign in</a>' in signed_out
    assert 'href="/accounts/signup/">Sign up</a>' in signed_out
    assert "My games" not in signed_out and "Sign out" not in signed_out
    sign_up(browser, "ada")
    signed_in = header(browser.get("/").content.decode())
    assert re.search(r'<a class="who" href="/players/ada/"[^>]*>ada</a>', signed_in)
    assert 'href="/accounts/games/">My games</a>' in signed_in
    form = re.search(r'<form method="post" action="/accounts/logout/">.*?</form>', signed_in, re.S)
    assert form and "csrfmiddlewaretoken" in form.group(0) and "Sign out" in form.group(0)
    assert "Sign in" not in signed_in


def test_sign_up_makes_the_account_and_its_profile_and_signs_in():
    browser = Client()
    user = sign_up(browser, "ada", email="ada@example.org")
    assert user.email == "ada@example.org" and user.check_password(PASSWORD)
    assert Profile.objects.filter(user=user).exists()
    assert browser.session[SESSION_KEY] == str(user.pk)
    page = browser.get("/accounts/games/").content.decode()
    assert "Welcome, ada!" in page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"username": "ada", "password1": PASSWORD, "password2": PASSWORD + "x"}, "didn"),
        ({"username": "Ada", "password1": PASSWORD, "password2": PASSWORD}, "already exists"),
        ({"username": "", "password1": PASSWORD, "password2": PASSWORD}, "required"),
        ({"username": "a" * 31, "password1": PASSWORD, "password2": PASSWORD}, "at most 30"),
        ({"username": "no spaces", "password1": PASSWORD, "password2": PASSWORD}, "valid"),
        ({"username": "bob", "password1": "12345678", "password2": "12345678"}, "too common"),
        (
            {"username": "bob", "password1": PASSWORD, "password2": PASSWORD, "email": "x@"},
            "valid email",
        ),
        # (a NUL anywhere is refused before the form: tests/test_fuzz.py)
        ({"username": ["a", "b"], "password1": [], "junk": "x"}, "required"),
    ],
)
def test_a_bad_sign_up_says_why_and_makes_nothing(data, message):
    account("ada")
    response = Client().post("/accounts/signup/", data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "The account was not made" in html and message in html
    assert User.objects.count() == 1


def test_sign_in_follows_next_only_on_this_site():
    account("ada")
    response = sign_in(Client(), "ada", next="/games/bit-flip/new/")
    assert response.status_code == 302 and response["Location"] == "/games/bit-flip/new/"
    for elsewhere in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        response = sign_in(Client(), "ada", next=elsewhere)
        assert response["Location"] == "/accounts/games/", elsewhere
    # The sign-up too.
    browser = Client()
    data = {"username": "bob", "password1": PASSWORD, "password2": PASSWORD}
    response = browser.post("/accounts/signup/?next=https://evil.example/", data)
    assert response["Location"] == "/accounts/games/"
    browser = Client()
    data = {"username": "cy", "password1": PASSWORD, "password2": PASSWORD, "next": "/m/x/"}
    assert browser.post("/accounts/signup/", data)["Location"] == "/m/x/"
    # The sign-in page carries a safe next into its form, and never an unsafe one.
    page = Client().get("/accounts/login/?next=/games/").content.decode()
    assert '<input type="hidden" name="next" value="/games/">' in page
    page = Client().get("/accounts/login/?next=https://evil.example/").content.decode()
    assert "evil.example" not in page


def test_a_wrong_password_is_refused_with_a_message():
    account("ada")
    browser = Client(REMOTE_ADDR="192.0.2.40")
    response = sign_in(browser, "ada", password="wrong")
    assert response.status_code == 200
    assert "enter a correct username and password" in response.content.decode()
    assert SESSION_KEY not in browser.session


def test_failures_on_the_site_lock_the_admin_login_and_back():
    """The site's sign-in and the admin's count together (for the name from the address);
    the name's owner, from another address, is not locked out."""
    boss = account("boss")
    boss.is_staff = True
    boss.save()
    site = Client(REMOTE_ADDR="192.0.2.50")
    for _ in range(4):
        assert sign_in(site, "boss", password="wrong").status_code == 200
    admin = Client(REMOTE_ADDR="192.0.2.50")  # the same address, at the admin
    response = admin.post("/admin/login/?next=/admin/", {"username": "boss", "password": "no"})
    assert response.status_code == 429  # the fifth failure, at the admin: paused
    response = admin.post("/admin/login/?next=/admin/", {"username": "boss", "password": PASSWORD})
    assert response.status_code == 429
    response = sign_in(Client(REMOTE_ADDR="192.0.2.50"), "boss")
    assert response.status_code == 429
    assert "wrong passwords" in response.content.decode()
    assert sign_in(Client(REMOTE_ADDR="192.0.2.52"), "boss").status_code == 302


def test_failures_at_the_admin_lock_the_site_login():
    account("ada")
    admin = Client(REMOTE_ADDR="192.0.2.60")
    for _ in range(5):
        admin.post("/admin/login/?next=/admin/", {"username": "ada", "password": "wrong"})
    response = sign_in(Client(REMOTE_ADDR="192.0.2.60"), "ada")
    assert response.status_code == 429
    assert SESSION_KEY not in Client().session


def test_one_browser_cannot_sign_up_account_after_account(settings):
    """Signing up (and out) starts a new session each time: the per-browser limit counts
    by the browser's own cookie, so it stops a browser that signs up again and again
    from an address the per-address limit leaves alone."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "account": ("3/h", "100/h")}
    browser = Client(REMOTE_ADDR=an_address())
    assert browser.get("/accounts/signup/").status_code == 200
    keys = set()
    for name in ("ann", "ben", "cat"):
        keys.add(browser.session.session_key)
        data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        assert browser.post("/accounts/signup/", data).status_code == 303
        assert browser.post("/accounts/logout/").status_code == 303
    assert len(keys) == 3 or None in keys  # a new session each time
    data = {"username": "dan", "password1": PASSWORD, "password2": PASSWORD}
    response = browser.post("/accounts/signup/", data)
    assert response.status_code == 429
    assert not User.objects.filter(username="dan").exists()
    # Another browser from the same address is not held up by this one.
    other = Client(REMOTE_ADDR=browser.defaults["REMOTE_ADDR"])
    assert other.post("/accounts/signup/", data).status_code == 303
    # A forged browser cookie counts as none: a new key.
    forged = Client(REMOTE_ADDR=an_address())
    forged.cookies["bitsite_browser"] = "not-signed"
    data = {"username": "eve", "password1": PASSWORD, "password2": PASSWORD}
    assert forged.post("/accounts/signup/", data).status_code == 303


def test_sign_ups_are_rate_limited(settings):
    # Each sign-up starts a new session (a sign-in does): it is the address that counts.
    # Per hour: a fixed window that turned over between the sign-ups would reset the count.
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "account": ("100/h", "2/h")}
    browser = Client(REMOTE_ADDR=an_address())
    for name in ("ann", "ben"):
        browser.post("/accounts/logout/")
        data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        assert browser.post("/accounts/signup/", data).status_code == 303
    data = {"username": "cat", "password1": PASSWORD, "password2": PASSWORD}
    response = browser.post("/accounts/signup/", data)
    assert response.status_code == 429
    assert not User.objects.filter(username="cat").exists()
    assert browser.get("/accounts/signup/").status_code == 200  # the page itself is not counted


def test_without_email_there_is_no_password_reset():
    page = Client().get("/accounts/login/").content.decode()
    assert "Forgot your password" not in page
    for url in RESET_URLS:
        assert Client().get(url).status_code == 404, url
    assert Client().post(RESET_URLS[0], {"email": "a@example.org"}).status_code == 404
    assert mail.outbox == []


@override_settings(PASSWORD_RESET_BY_EMAIL=True)
def test_with_email_a_password_is_reset_by_a_link():
    user = account("ada")
    user.email = "ada@example.org"
    user.save()
    page = Client().get("/accounts/login/").content.decode()
    assert 'href="/accounts/password-reset/">Forgot your password?</a>' in page
    browser = Client()
    response = browser.post("/accounts/password-reset/", {"email": "ada@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password-reset/sent/"
    assert browser.get(response["Location"]).status_code == 200
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    assert "ada" in mail.outbox[0].body
    response = browser.get(link)  # Django swaps the token for a session key
    assert response.status_code == 302
    form = browser.get(response["Location"])
    assert "Choose a new password" in form.content.decode()
    new = "another-long-password-77"
    done = browser.post(response["Location"], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert browser.get("/accounts/reset/done/").status_code == 200
    user.refresh_from_db()
    assert user.check_password(new)
    # The link works once.
    assert "does not work any more" in Client().get(link, follow=True).content.decode()
    # No email for an address without an account (and the page says the same).
    response = Client().post("/accounts/password-reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302 and len(mail.outbox) == 1


def test_reset_emails_are_rate_limited(settings):
    settings.PASSWORD_RESET_BY_EMAIL = True
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "account": ("1/m", "100/m")}
    browser = Client()
    browser.get("/")  # a session to count by
    session = browser.session
    session["x"] = 1
    session.save()
    browser.cookies["sessionid"] = session.session_key
    assert browser.post(RESET_URLS[0], {"email": "a@example.org"}).status_code == 302
    assert browser.post(RESET_URLS[0], {"email": "a@example.org"}).status_code == 429


def test_the_settings_turn_password_reset_on_with_email_host():
    from tests.test_settings import SETUP, run_python

    code = SETUP + (
        "django.setup(); from django.conf import settings; "
        "print(settings.PASSWORD_RESET_BY_EMAIL, settings.EMAIL_HOST)"
    )
    on = run_python(code, DJANGO_DEBUG="1", EMAIL_HOST="smtp.example.org")
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["True", "smtp.example.org"]
    off = run_python(code, DJANGO_DEBUG="1", EMAIL_HOST="")
    assert off.stdout.split()[0] == "False"
