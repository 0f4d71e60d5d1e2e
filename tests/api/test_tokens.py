"""Personal access tokens: made on the settings page (shown once, kept hashed), scoped,
revoked; a bad, revoked or out-of-scope token is a JSON 401/403; cookies never
authenticate an API call, and CSRF does not apply to token requests."""

from __future__ import annotations

import hashlib

import pytest

from api.models import Token
from tests.api.helpers import Api, token_for
from tests.ratings.helpers import account, signed_in

pytestmark = pytest.mark.django_db


def test_made_on_the_settings_page_shown_once_and_kept_hashed():
    ada = account("ada")
    browser = signed_in(ada)
    assert "Manage your API tokens" in browser.get("/accounts/settings/").content.decode()
    answer = browser.post(
        "/accounts/settings/tokens/", {"name": "my bot", "scopes": ["read", "play"]}
    )
    assert answer.status_code == 201
    assert answer["Cache-Control"] == "no-store"
    page = answer.content.decode()
    token = Token.objects.get(user=ada)
    start = page.index('id="new-token">') + len('id="new-token">')
    text = page[start : page.index("<", start)]
    assert text.startswith("bit_") and len(text) > 40
    assert token.digest == hashlib.sha256(text.encode()).hexdigest()
    assert text not in str(Token.objects.filter(pk=token.pk).values().first())
    assert token.scopes == ["read", "play"]
    # The list shows only its first characters afterwards.
    listed = browser.get("/accounts/settings/tokens/").content.decode()
    assert "my bot" in listed and token.prefix in listed and text not in listed
    assert Api(text).get("/account").json()["username"] == "ada"


def test_bad_input_on_the_page_makes_nothing():
    browser = signed_in(account("ada"))
    answer = browser.post("/accounts/settings/tokens/", {"name": "", "scopes": ["read"]})
    assert answer.status_code == 400
    answer = browser.post("/accounts/settings/tokens/", {"name": "x", "scopes": ["root"]})
    assert answer.status_code == 400
    assert not Token.objects.exists()


def test_revoked_token_is_refused_at_once():
    ada = account("ada")
    text = token_for(ada, "read")
    assert Api(text).get("/account").status_code == 200
    token = Token.objects.get(user=ada)
    browser = signed_in(ada)
    assert browser.post(f"/accounts/settings/tokens/{token.pk}/revoke/").status_code == 303
    answer = Api(text).get("/account")
    assert answer.status_code == 401
    assert answer.json()["error"] == "bad_token"
    # Another account cannot revoke it.
    other = token_for(ada, "read")
    mallory = signed_in(account("mallory"))
    pk = Token.objects.get(user=ada, revoked_at=None).pk
    mallory.post(f"/accounts/settings/tokens/{pk}/revoke/")
    assert Api(other).get("/account").status_code == 200


def test_last_used_is_recorded():
    ada = account("ada")
    text = token_for(ada, "read")
    assert Token.objects.get().last_used_at is None
    Api(text).get("/account")
    assert Token.objects.get().last_used_at is not None


@pytest.mark.parametrize(
    "header",
    ["", "Bearer nonsense", "Bearer bit_" + "x" * 43, "Basic YWRhOmFkYQ==", "Bearer"],
)
def test_missing_or_bad_token_is_a_json_401(header):
    client = Api()
    client.headers = {"Authorization": header} if header else {}
    answer = client.get("/account")
    assert answer.status_code == 401
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"] in ("no_token", "bad_token")


def test_out_of_scope_is_a_json_403():
    ada, bob = account("ada"), account("bob")
    reader = Api(token_for(ada, "read"))
    answer = reader.post("/challenges/bob", {"game": "bit-flip"})
    assert answer.status_code == 403
    assert answer.json()["error"] == "out_of_scope"
    assert "challenge" in answer.json()["message"]
    player = Api(token_for(bob, "play"))
    assert player.get("/account").status_code == 403


def test_cookies_do_not_authenticate_and_csrf_does_not_apply():
    ada = account("ada")
    browser = signed_in(ada)
    assert browser.get("/api/account").status_code == 401
    # A token request needs no CSRF token (the client enforces CSRF checks).
    answer = Api(token_for(ada, "challenge")).post("/challenges/open", {"game": "bit-flip"})
    assert answer.status_code == 200, answer.content


def test_each_token_has_its_own_rate(settings):
    settings.API_RATE = ("3/m", "1000/m")
    ada = account("ada")
    first, second = Api(token_for(ada, "read")), Api(token_for(ada, "read"))
    assert [first.get("/account").status_code for _ in range(3)] == [200] * 3
    over = first.get("/account")
    assert over.status_code == 429
    assert over.json()["error"] == "rate_limited"
    assert int(over["Retry-After"]) >= 1
    assert second.get("/account").status_code == 200  # another token counts apart


def test_bad_tokens_from_one_address_are_throttled_before_any_lookup(settings):
    """Guessing tokens: past the figure, an address's requests with a token get 429 at
    once, without a query (a good token from there too, until the window moves on);
    another address is not affected."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.API_BAD_TOKENS = "5/m"
    good = token_for(account("ada"), "read")
    guesser = Api()
    guesser.client.defaults["REMOTE_ADDR"] = "203.0.113.50"
    for n in range(5):
        guesser.headers = {"Authorization": f"Bearer bit_guess{n}"}
        assert guesser.get("/account").json()["error"] == "bad_token"
    guesser.headers = {"Authorization": "Bearer bit_guess99"}
    with CaptureQueriesContext(connection) as queries:
        refused = guesser.get("/account")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert len(queries) == 0
    other = Api(good)
    other.client.defaults["REMOTE_ADDR"] = "203.0.113.51"
    assert other.get("/account").status_code == 200
    guesser.headers = {"Authorization": f"Bearer {good}"}
    assert guesser.get("/account").status_code == 429
