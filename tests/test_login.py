"""Sign-in throttling (django-axes): the admin's login, and any later one."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_user():
    return User.objects.create_superuser("boss", "boss@example.org", "the-right-password-42")


def sign_in(client, password, username="boss"):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_wrong_passwords_then_the_right_one_is_refused_until_the_pause_ends(admin_user):
    client = Client(REMOTE_ADDR="192.0.2.10")
    for _ in range(4):
        assert sign_in(client, "wrong").status_code == 200  # the form again, with its error
    assert sign_in(client, "wrong").status_code == 429  # the fifth: paused
    response = sign_in(client, "the-right-password-42")
    assert response.status_code == 429
    assert "wrong passwords" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # So is any other name from that address.
    assert sign_in(client, "whatever", username="someone-else").status_code == 429
    # The pause over (the attempts expire), the right password signs in.
    AccessAttempt.objects.all().delete()
    response = sign_in(client, "the-right-password-42")
    assert response.status_code == 302 and response["Location"] == "/admin/"


def test_wrong_passwords_for_a_name_never_lock_its_owner_out_from_another_address(admin_user):
    """Someone who types wrong passwords for another player's name pauses only
    themselves: the owner, from their own address, signs in at once."""
    attacker = Client(REMOTE_ADDR="192.0.2.12")
    for _ in range(10):
        sign_in(attacker, "guess")
    assert sign_in(attacker, "the-right-password-42").status_code == 429
    owner = Client(REMOTE_ADDR="198.51.100.7")
    response = sign_in(owner, "the-right-password-42")
    assert response.status_code == 302 and response["Location"] == "/admin/"
    # And from the site's own sign-in page.
    owner.logout()
    response = owner.post(
        "/accounts/login/", {"username": "boss", "password": "the-right-password-42"}
    )
    assert response.status_code == 302
    assert owner.session["_auth_user_id"] == str(admin_user.pk)


def test_an_address_trying_many_names_is_paused(admin_user):
    client = Client(REMOTE_ADDR="192.0.2.13")
    for n in range(5):
        sign_in(client, "guess", username=f"name{n}")
    assert sign_in(client, "the-right-password-42").status_code == 429


def test_a_good_sign_in_clears_earlier_failures(admin_user):
    client = Client(REMOTE_ADDR="192.0.2.20")
    for _ in range(4):
        sign_in(client, "wrong")
    assert sign_in(client, "the-right-password-42").status_code == 302
    client.logout()
    for _ in range(4):
        assert sign_in(client, "wrong").status_code == 200
    assert sign_in(client, "the-right-password-42").status_code == 302


def test_the_limit_comes_from_the_settings(admin_user):
    with override_settings(AXES_FAILURE_LIMIT=2):
        client = Client(REMOTE_ADDR="192.0.2.30")
        for _ in range(2):
            sign_in(client, "wrong", username="nobody")
        assert sign_in(client, "the-right-password-42").status_code == 429


# ---- over-long user names: refused before authenticating, and never overflowing axes' records


LONG_NAME = "x" * 256  # axes' column holds 255; an account's name at most 150


@pytest.mark.parametrize("page", ["/accounts/login/", "/admin/login/"])
def test_an_over_long_user_name_is_refused_before_it_authenticates(page):
    response = Client().post(page, {"username": LONG_NAME, "password": "whatever-it-is"})
    assert response.status_code == 200  # the form again, saying why
    assert "No account has a user name that long: at most 150 characters." in (
        response.content.decode()
    )
    assert not AccessAttempt.objects.exists()  # not even a failure to count


def test_axes_records_a_failure_for_any_name_cut_to_what_its_records_hold():
    """Whatever calls ``authenticate`` (a form that checks nothing, a later view),
    django-axes records the failure without overflowing its column (a 500 on PostgreSQL)."""
    from django.contrib.auth import authenticate
    from django.test import RequestFactory

    request = RequestFactory().post("/somewhere/", REMOTE_ADDR="192.0.2.40")
    assert authenticate(request, username=LONG_NAME + "y" * 100, password="nope") is None
    attempt = AccessAttempt.objects.get()
    assert attempt.username == LONG_NAME[:255]


@pytest.mark.services
@pytest.mark.parametrize("page", ["/accounts/login/", "/admin/login/"])
def test_an_over_long_user_name_is_no_500_on_postgresql(page):
    from django.db import connection

    assert connection.vendor == "postgresql"
    response = Client(raise_request_exception=False).post(
        page, {"username": LONG_NAME, "password": "whatever-it-is"}
    )
    assert response.status_code == 200
    assert not AccessAttempt.objects.exists()
