"""Notifications away from the site (people/push.py, people/delivery.py): Web Push tested
end to end against a stand-in push service that verifies the VAPID signature and decrypts
the payload (tests/people/push_service.py), email, the choices on the settings page,
subscribing, and a tournament's start.

Every push here goes the site's real way: a change commits, the notification is made,
and a background thread sends it; ``delivery.drain`` waits for those threads.
"""

from __future__ import annotations

import json
import re
import time

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.core import mail
from django.core.checks import run_checks
from django.test import Client
from py_vapid import Vapid
from pywebpush import WebPusher

from games import play
from games.models import Match
from people import challenges, delivery, push
from people.models import Notification, NotificationPreference, PushSubscription, VapidKey
from tests.people.push_service import PushService, b64url, closed_port
from tests.ratings.helpers import account, rated_match
from tests.tournaments.helpers import accounts, event
from tournaments import director

# Notifications are made after commit, as on the site.
pytestmark = pytest.mark.django_db(transaction=True)

DAYS = {"clock": Match.Clock.CORRESPONDENCE, "days": 3}
TERMS = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"


@pytest.fixture(autouse=True)
def _loopback_push(settings):
    settings.PUSH_LOOPBACK_ENDPOINTS = True  # the stand-in is http on 127.0.0.1
    yield
    assert delivery.drain(30), "the background sends did not finish"


@pytest.fixture
def service():
    found = PushService()
    yield found
    found.close()


class Browser:
    """A signed-in browser, as the settings page's JavaScript uses it: the CSRF token and
    the VAPID key read from the page, the subscription posted as JSON."""

    def __init__(self, user):
        self.user = user
        self.client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=FIREFOX)
        self.client.force_login(user)
        self.page = self.client.get("/accounts/settings/").content.decode()
        self.token = re.search(r'"X-CSRFToken": "([^"]+)"', self.page).group(1)
        self.key = re.search(r'data-key="([^"]+)"', self.page).group(1)

    def post_json(self, url: str, data, **extra):
        body = data if isinstance(data, (bytes, str)) else json.dumps(data)
        return self.client.post(
            url, body, content_type="application/json", HTTP_X_CSRFTOKEN=self.token, **extra
        )

    def post_form(self, url: str, data: dict):
        return self.client.post(url, {**data, "csrfmiddlewaretoken": self.token})

    def turn_push_on(self, service: PushService, mode: str = "ok"):
        browser = service.browser(self.key, mode)
        response = self.post_json("/push/subscribe", browser.to_json())
        assert response.status_code == 201, response.content
        return browser


def move(match: Match) -> Match:
    match.refresh_from_db()
    seat = match.seat_of_player(match.current.to_move)
    text = match.rules.legal_moves(match.current)[0]
    return play.submit_move(
        match.public_id, by=play.Actor(frozenset({seat})), text=text, ply=match.ply
    )


def correspondence(ada, bob) -> Match:
    match, _, _ = rated_match(ada, bob, "last-digit-standing", rated=False, time_control=DAYS)
    return match


# ---- end to end ---------------------------------------------------------------------------


def test_a_correspondence_move_reaches_the_players_browser_signed_and_encrypted(service):
    ada, bob = account("ada"), account("bob")
    bobs = Browser(bob)
    bobs.turn_push_on(service)
    # The first device chose every kind for push.
    assert NotificationPreference.objects.get(user=bob).push == list(Notification.Kind.values)
    match = correspondence(ada, bob)
    move(match)  # Ada moves: Bob's turn
    assert delivery.drain()
    (got,) = service.wait_for(1)
    assert (got.status, got.reason) == (201, "created")
    assert got.message == {
        "title": "Your turn",
        "body": "Your turn in Last Digit Standing against ada.",
        "url": match.get_absolute_url(),
        "tag": f"turn:{match.public_id}",
    }
    # What the stand-in verified: the token's claims, and the message's headers.
    assert got.claims["aud"] == service.origin and got.claims["sub"] == "mailto:webpush@localhost"
    assert time.time() < got.claims["exp"] <= time.time() + 24 * 3600
    assert got.headers["content-encoding"] == "aes128gcm" and got.headers["ttl"] == "86400"
    row = PushSubscription.objects.get(user=bob)
    assert row.last_success_at is not None and row.failures == 0
    assert row.user_agent == FIREFOX
    # A challenge to Bob, sent from Ada's side, reaches him too.
    challenges.send(ada, bob, **TERMS)
    assert delivery.drain()
    second = service.wait_for(2)[1]
    assert second.status == 201
    assert second.message["title"] == "A challenge"
    assert second.message["body"] == "ada challenges you: Bit Flip, no clock, casual."
    assert second.message["url"] == "/challenges/"


def test_the_stand_in_refuses_what_a_push_service_refuses(service):
    """The stand-in's checks can fail: a forged signature, altered claims, another key,
    another audience, a token valid too long."""
    site_key = push.vapid()
    browser = service.browser(push.public_key())
    info = browser.to_json()
    good = {"sub": "mailto:ops@bitsite.example.org", "aud": service.origin}

    def sent(authorization: str) -> int:
        answer = WebPusher(info).send(
            json.dumps({"title": "t"}), {"Authorization": authorization}, ttl=60, timeout=5
        )
        return answer.status_code

    def signed(key: Vapid, **claims) -> str:
        return key.sign({**good, "exp": int(time.time()) + 3600, **claims})["Authorization"]

    assert sent(signed(site_key)) == 201  # the real thing passes
    # Signed by another key, while naming the site's key.
    other = Vapid()
    other.generate_keys()
    forged_token = signed(other).split("t=", 1)[1].split(",", 1)[0]
    site_k = signed(site_key).split("k=", 1)[1]
    assert sent(f"vapid t={forged_token},k={site_k}") == 401
    # The site's token with its claims changed after signing.
    head, _, signature = signed(site_key).split("t=", 1)[1].split(",", 1)[0].split(".")
    claims = b64url(json.dumps({**good, "exp": int(time.time()) + 3600, "aud": "x"}).encode())
    assert sent(f"vapid t={head}.{claims}.{signature},k={site_k}") == 401
    # Validly signed, by a key the browser did not subscribe with.
    assert sent(signed(other)) == 403
    # Another audience; a token that lives past 24 hours.
    assert sent(signed(site_key, aud="https://elsewhere.example.org")) == 401
    assert sent(signed(site_key, exp=int(time.time()) + 2 * 24 * 3600)) == 401
    reasons = [r.reason for r in service.received]
    assert reasons == [
        "created",
        "bad signature",
        "bad signature",
        "signed with another key than the subscription's",
        "aud is not this service's origin",
        "exp not in the next 24 hours",
    ]


def test_a_subscription_the_push_service_says_is_gone_is_deleted_and_errors_are_counted(
    service,
):
    ada, bob = account("ada"), account("bob")
    bobs = Browser(bob)
    gone = bobs.turn_push_on(service, mode="gone")
    failing = bobs.turn_push_on(service, mode="error")
    move(correspondence(ada, bob))
    assert delivery.drain()
    statuses = sorted(r.status for r in service.wait_for(2))
    assert statuses == [410, 500]
    assert not PushSubscription.objects.filter(endpoint=gone.endpoint).exists()
    row = PushSubscription.objects.get(endpoint=failing.endpoint)
    assert row.failures == 1 and row.last_success_at is None


def test_a_push_service_that_hangs_or_refuses_does_not_slow_the_moves(service):
    ada, bob = account("ada"), account("bob")
    bobs = Browser(bob)
    hanging = bobs.turn_push_on(service, mode="hang")
    refused = service.browser(bobs.key)
    refused.endpoint = f"http://127.0.0.1:{closed_port()}/push/nobody"
    assert bobs.post_json("/push/subscribe", refused.to_json()).status_code == 201
    match = correspondence(ada, bob)
    for _ in range(3):  # Ada, Bob, Ada: two turns told to Bob, each pushed to both
        started = time.monotonic()
        match = move(match)
        # Each push waits up to push.TIMEOUT (5 s) on the hanging service; the move does not.
        assert time.monotonic() - started < 3.0
    assert match.ply == 3 and Match.objects.get(pk=match.pk).ply == 3
    assert Notification.objects.filter(user=bob, kind="turn").count() == 1  # one unread a game
    assert Notification.objects.filter(user=ada, kind="turn").count() == 1
    assert delivery.drain(60)
    assert PushSubscription.objects.get(endpoint=hanging.endpoint).failures == 2
    assert PushSubscription.objects.get(endpoint=refused.endpoint).failures == 2


def test_a_send_connects_only_to_the_public_address_it_checked(service, settings, resolver, caplog):
    """Rows kept before the check existed, or a name that resolves elsewhere since it was
    given (DNS rebinding): each send is refused before it connects, and counted."""
    answers, _ = resolver
    answers["rebound.example.org"] = ["127.0.0.1"]
    settings.PUSH_LOOPBACK_ENDPOINTS = False  # as on the site: no stand-in allowed
    bob = account("bob")
    browser = service.browser(Browser(bob).key)
    port = service.origin.rsplit(":", 1)[1]
    hosts = [
        "rebound.example.org",
        "127.1",
        "0x7f.1",
        "10.1",
        "169.254.43518",
        "0251.0376.0251.0376",
    ]
    rows = [
        PushSubscription.objects.create(
            user=bob,
            endpoint=f"http://{host}:{port}/push/{browser.endpoint.rsplit('/', 1)[1]}",
            p256dh=browser.to_json()["keys"]["p256dh"],
            auth=browser.to_json()["keys"]["auth"],
        )
        for host in hosts
    ]
    for row in rows:
        assert push.send(row, {"title": "t", "body": "b", "url": "/", "tag": "x"}) == "failed"
    assert service.received == []  # nothing reached the machine's own push service
    assert [r.failures for r in PushSubscription.objects.filter(user=bob)] == [1] * len(hosts)
    assert caplog.text.count("not a public address") == len(hosts)


def test_no_push_for_the_kinds_turned_off_nor_for_an_account_without_a_device(service):
    ada, bob = account("ada"), account("bob")
    bobs = Browser(bob)
    bobs.turn_push_on(service)
    answer = bobs.post_form("/notifications/choices", {"push": ["challenge"]})
    assert answer.status_code == 303
    assert NotificationPreference.objects.get(user=bob).push == ["challenge"]
    match = move(correspondence(ada, bob))  # Bob's turn: not chosen
    move(match)  # Ada's turn: Ada chose nothing, has no device
    assert delivery.drain()
    assert Notification.objects.filter(kind="turn").count() == 2
    assert service.received == []
    challenges.send(ada, bob, **TERMS)  # chosen
    assert delivery.drain()
    assert [r.message["title"] for r in service.wait_for(1)] == ["A challenge"]


# ---- email --------------------------------------------------------------------------------


def test_email_goes_only_for_the_kinds_chosen_and_only_when_the_site_sends_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://bitsite.example.org"
    ada, bob = account("ada"), account("bob")
    bob.email = "bob@example.org"
    bob.save()
    bobs = Browser(bob)
    # The site sends no email: not offered, said why, and refused if posted anyway.
    assert 'name="email"' not in bobs.page
    assert "This site does not send email" in bobs.page
    refused = bobs.post_form("/notifications/choices", {"push": ["turn"], "email": ["turn"]})
    assert refused.status_code == 400
    assert "not changed" in refused.content.decode()
    assert not NotificationPreference.objects.filter(user=bob).exists()
    # It does now.
    settings.PASSWORD_RESET_BY_EMAIL = True
    page = Browser(bob).page
    assert 'name="email" value="turn"' in page and "Email goes to bob@example.org" in page
    assert bobs.post_form("/notifications/choices", {"email": ["turn"]}).status_code == 303
    mail.outbox.clear()
    match = move(correspondence(ada, bob))  # Bob's turn: chosen
    challenges.send(ada, bob, **TERMS)  # a challenge: not chosen
    assert delivery.drain()
    (sent,) = mail.outbox
    assert sent.to == ["bob@example.org"] and sent.subject == "bitsite: Your turn"
    assert "Your turn in Last Digit Standing against ada." in sent.body
    assert f"https://bitsite.example.org{match.get_absolute_url()}" in sent.body
    # Ada chose email too, but has no address: nothing is sent, and her page says why.
    adas = Browser(ada)
    assert "Your account has no email address" in adas.page
    NotificationPreference.objects.create(user=ada, email=["turn"])
    move(match)
    assert delivery.drain()
    assert len(mail.outbox) == 1
    # Email off again on the site: nothing is sent, though Bob's choice is kept.
    settings.PASSWORD_RESET_BY_EMAIL = False
    move(Match.objects.get(pk=match.pk))
    assert delivery.drain()
    assert len(mail.outbox) == 1
    assert NotificationPreference.objects.get(user=bob).email == ["turn"]


# ---- the settings page and subscribing ----------------------------------------------------


def test_the_settings_page_offers_the_choices_and_refuses_bad_ones():
    bob = account("bob")
    bobs = Browser(bob)
    page = bobs.page
    for kind in Notification.Kind.values:
        assert f'name="push" value="{kind}"' in page
    assert " checked" not in page.split('id="notifications-title"')[1].split("</table>")[0]
    assert "Push notifications need JavaScript" in page  # hidden by push.js
    assert 'id="push-device"' in page and "site/push.js" in page
    assert "No device has push notifications on." in page
    assert bobs.post_form("/notifications/choices", {"push": ["turn", "result"]}).status_code == 303
    follow = bobs.client.get("/accounts/settings/").content.decode()
    assert "Your notification choices are saved." in follow
    assert 'value="turn" id="push-turn" aria-label="Your turn: by push" checked' in follow
    # Something the page never offers: 400, the reason, nothing changed.
    bad = bobs.post_form("/notifications/choices", {"push": ["turn", "everything"]})
    assert bad.status_code == 400
    assert "everything is not one of the available choices" in bad.content.decode()
    assert NotificationPreference.objects.get(user=bob).push == ["turn", "result"]
    # Not without the CSRF token; not signed out.
    assert bobs.client.post("/notifications/choices", {"push": ["turn"]}).status_code == 403
    answer = Client().post("/notifications/choices", {"push": ["turn"]})
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]


def test_subscribing_checks_what_the_browser_sends(service, settings, resolver):
    answers, _ = resolver
    answers["updates.push.services.mozilla.com"] = ["34.117.237.239"]
    answers["push.example.org"] = ["93.184.216.34"]
    answers["inside.example.org"] = ["127.0.0.1"]  # a name for the machine itself
    answers["mixed.example.org"] = ["93.184.216.34", "169.254.169.254"]
    bob = account("bob")
    bobs = Browser(bob)
    good = service.browser(bobs.key).to_json()
    keys = good["keys"]

    def with_(**changes):
        return {**good, **changes}

    bad = [
        b"not json",
        b"[1, 2]",
        b"\xff\xfe",
        {"keys": keys},
        with_(endpoint=5),
        with_(keys="x"),
        with_(endpoint="http://push.example.org/x"),
        with_(endpoint="https://10.0.0.1/x"),
        with_(endpoint="https://[::1]/x"),
        with_(endpoint="https://localhost/x"),
        # Internal addresses in the forms a resolver takes, and names that lead inside.
        *(
            with_(endpoint=f"https://{host}/push")
            for host in (
                "127.1",
                "0x7f.1",
                "127.0.1",
                "0x7f.0.0.1",
                "10.1",
                "169.254.43518",
                "0251.0376.0251.0376",
                "[::ffff:127.0.0.1]",
                "inside.example.org",
                "mixed.example.org",
                "nowhere.invalid",
            )
        ),
        with_(endpoint="https://push.example.org:8443/x"),
        with_(endpoint="https://user:pw@push.example.org/x"),
        with_(endpoint="https://push.example.org/a b"),
        with_(endpoint="https://push.example.org/" + "x" * 1100),
        with_(keys={"auth": keys["auth"]}),
        with_(keys={**keys, "p256dh": b64url(b"\x04" + b"\x00" * 64)}),  # not on the curve
        with_(keys={**keys, "p256dh": keys["p256dh"][:-4]}),
        with_(keys={**keys, "auth": b64url(b"x" * 15)}),
        with_(keys={**keys, "auth": "not base64!"}),
        with_(keys={**keys, "auth": 16}),
    ]
    for body in bad:
        answer = bobs.post_json("/push/subscribe", body)
        assert answer.status_code == 400, body
        assert answer.json()["error"], body
    huge = json.dumps(with_(padding="x" * 5000))
    assert bobs.post_json("/push/subscribe", huge).status_code == 400
    assert not PushSubscription.objects.exists()
    # A real push service's endpoint is taken; keys with base64 padding too.
    real = with_(endpoint="https://updates.push.services.mozilla.com/wpush/v2/gAAAAABo")
    real["keys"] = {"p256dh": keys["p256dh"] + "=", "auth": keys["auth"] + "=="}
    assert bobs.post_json("/push/subscribe", real).status_code == 201
    # Only http on 127.0.0.1 for the stand-in, and only when the setting says so.
    settings.PUSH_LOOPBACK_ENDPOINTS = False
    assert bobs.post_json("/push/subscribe", good).status_code == 400
    settings.PUSH_LOOPBACK_ENDPOINTS = True
    assert bobs.post_json("/push/subscribe", good).status_code == 201
    # Not without the CSRF token, not signed out, not by GET.
    no_token = bobs.client.post("/push/subscribe", good, content_type="application/json")
    assert no_token.status_code == 403
    signed_out = Client().post("/push/subscribe", good, content_type="application/json")
    assert signed_out.status_code == 403 and "Sign in" in signed_out.json()["error"]
    assert bobs.client.get("/push/subscribe").status_code == 405
    assert PushSubscription.objects.filter(user=bob).count() == 2


def test_an_account_keeps_ten_devices_and_turns_off_only_its_own(service):
    ada, bob = account("ada"), account("bob")
    adas, bobs = Browser(ada), Browser(bob)
    browsers = [bobs.turn_push_on(service) for _ in range(11)]
    assert PushSubscription.objects.filter(user=bob).count() == push.MAX_PER_ACCOUNT
    assert not PushSubscription.objects.filter(endpoint=browsers[0].endpoint).exists()
    # Ada signs in on Bob's last browser and turns push on there: it is hers now.
    shared = browsers[-1]
    assert adas.post_json("/push/subscribe", shared.to_json()).status_code == 201
    assert PushSubscription.objects.get(endpoint=shared.endpoint).user == ada
    # Bob cannot turn off Ada's, neither by its endpoint nor by its id.
    mine = PushSubscription.objects.get(endpoint=shared.endpoint)
    answer = bobs.post_json("/push/unsubscribe", {"endpoint": shared.endpoint})
    assert answer.json() == {"ok": True, "removed": False}
    page = bobs.post_form("/push/unsubscribe", {"subscription": str(mine.pk)})
    assert page.status_code == 303
    assert PushSubscription.objects.filter(pk=mine.pk).exists()
    # Ada can, from the list of her devices (a form) or from the browser (JSON).
    assert "Firefox on Linux" in Browser(ada).page
    adas.post_form("/push/unsubscribe", {"subscription": str(mine.pk)})
    assert not PushSubscription.objects.filter(user=ada).exists()
    bobs_own = browsers[5].endpoint
    answer = bobs.post_json("/push/unsubscribe", {"endpoint": bobs_own})
    assert answer.json() == {"ok": True, "removed": True}
    for body in (b"nope", b"[]", {"endpoint": 3}):
        assert bobs.post_json("/push/unsubscribe", body).status_code == 400
    assert bobs.client.post("/push/unsubscribe", {"subscription": "1"}).status_code == 403
    assert Client().post("/push/unsubscribe", b"{}", "application/json").status_code == 403


def test_the_service_worker_is_served_at_the_root():
    answer = Client().get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert "Content-Security-Policy" in answer
    body = answer.content.decode()
    assert 'addEventListener("push"' in body and 'addEventListener("notificationclick"' in body


# ---- the key -------------------------------------------------------------------------------


def test_the_vapid_key_is_made_once_and_kept_or_taken_from_the_settings(settings):
    push.forget_key()
    first = push.public_key()
    assert VapidKey.objects.count() == 1
    push.forget_key()  # as after a restart
    assert push.public_key() == first and VapidKey.objects.count() == 1
    private = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(private.private_numbers().private_value.to_bytes(32, "big"))
    settings.VAPID_PRIVATE_KEY = raw
    expected = Vapid.from_string(raw).public_key.public_numbers()
    assert push.vapid().public_key.public_numbers() == expected
    assert push.public_key() != first
    assert not [e for e in run_checks() if e.id.startswith("people.")]
    settings.VAPID_PRIVATE_KEY = "not a key"
    settings.VAPID_SUBJECT = "webmaster"
    found = {e.id for e in run_checks() if e.id.startswith("people.")}
    assert found == {"people.E001", "people.E002"}


# ---- a tournament's start -----------------------------------------------------------------


def test_a_tournaments_start_tells_each_entrant_and_pushes_to_who_chose_it(service):
    ada, bob, cy = accounts("ada", "bob", "cy")
    adas = Browser(ada)
    adas.turn_push_on(service)
    t = event("swiss", starts_in=-1, name="Friday Swiss")
    for user in (ada, bob, cy):
        director.join(t.public_id, user)
    assert not Notification.objects.filter(kind="tournament").exists()
    assert director.advance(t.public_id)
    notes = Notification.objects.filter(kind="tournament").order_by("user__username")
    assert [(n.user.username, n.text, n.url) for n in notes] == [
        (name, "The Friday Swiss has started.", t.get_absolute_url())
        for name in ("ada", "bob", "cy")
    ]
    assert delivery.drain()
    (got,) = service.wait_for(1)
    assert got.message["title"] == "A tournament you joined starts"
    assert got.message["body"] == "The Friday Swiss has started."
    # Told once: the event's next steps are not a start.
    director.advance(t.public_id)
    assert Notification.objects.filter(kind="tournament").count() == 3


def test_a_tournament_that_does_not_take_place_tells_nobody():
    (ada,) = accounts("ada")
    t = event("swiss", starts_in=-1)
    director.join(t.public_id, ada)
    director.advance(t.public_id)
    assert not Notification.objects.filter(kind="tournament").exists()


def test_requests_to_the_stand_in_need_its_paths(service):
    assert requests.post(f"{service.origin}/elsewhere", data=b"", timeout=5).status_code == 404


def test_past_the_waiting_bound_a_delivery_is_dropped_and_the_notification_stands(
    service, monkeypatch, caplog
):
    ada, bob = account("ada"), account("bob")
    Browser(bob).turn_push_on(service)
    monkeypatch.setattr(delivery, "WAITING", 0)  # every thread busy, the line full
    challenges.send(ada, bob, **TERMS)
    assert Notification.objects.filter(user=bob, kind="challenge").count() == 1
    assert "one for user" in caplog.text and "dropped" in caplog.text
    assert delivery.drain()
    assert service.received == []
