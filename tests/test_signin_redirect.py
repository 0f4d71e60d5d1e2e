"""A button pressed after the session ended takes the whole page to sign in, and back to
the page it was on (bitsite/signin.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.tournaments.helpers import event

pytestmark = pytest.mark.django_db

SIGNIN = "/accounts/login/?next="


def test_join_pressed_signed_out_takes_the_page_to_sign_in_and_back_to_the_event():
    t = event(starts_in=3600)
    page = t.get_absolute_url()
    client = Client()
    response = client.post(
        f"{page}join",
        headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}"},
    )
    # Before: the sign-in page itself, followed inside the request and drawn into the
    # event's page, and its next was the button's address (a GET of it: an empty 405).
    assert response.status_code == 200 and response.content == b""
    assert response["HX-Redirect"] == SIGNIN + page
    assert client.get(f"{page}join").status_code == 405  # why next must never be it
    # Signed in from there, the person is back on the event's page, its Join button there.
    get_user_model().objects.create_user("ada", password="a-long-enough-password-42")
    signed_in = client.post(
        response["HX-Redirect"],
        {"username": "ada", "password": "a-long-enough-password-42"},
    )
    assert signed_in.status_code == 302 and signed_in["Location"] == page
    assert "Join" in client.get(page).content.decode()


def test_without_javascript_the_form_comes_back_to_the_page_it_was_on():
    t = event(starts_in=3600)
    page = t.get_absolute_url()
    response = Client().post(f"{page}join", headers={"Referer": f"http://testserver{page}"})
    assert response.status_code == 302
    assert response["Location"] == SIGNIN + page


@pytest.mark.parametrize(
    "elsewhere", ["https://evil.example/t/x/", "//evil.example/", "javascript:alert(1)", ""]
)
def test_a_page_of_another_site_is_never_where_sign_in_leads(elsewhere):
    t = event(starts_in=3600)
    headers = {"HX-Request": "true", "HX-Current-URL": elsewhere}
    response = Client().post(f"{t.get_absolute_url()}join", headers=headers)
    assert response["HX-Redirect"] == SIGNIN + "/"


def test_a_page_asked_for_signed_out_keeps_djangos_redirect():
    page = reverse("account_settings")
    response = Client().get(page)
    assert response.status_code == 302
    assert response["Location"] == SIGNIN + page
