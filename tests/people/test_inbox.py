"""The inbox socket (people/consumers.py): a signed-in player's badge on every page, and
the challenges page's lists, on connect and after every change of one of their
challenges, drawn once for each account with a page open."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import Client

from bitsite.asgi import application
from people import challenges, live
from tests.ratings.helpers import account

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TERMS = {"game": "bit-flip", "options": {}, "time_control": {}, "rated": False}


@pytest.fixture(autouse=True)
def fresh_admission():
    from games import admission

    admission.reset()
    yield
    admission.reset()


@database_sync_to_async
def cookie_of(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.session.session_key}".encode()


async def connect(path: str, cookie: bytes | None, origin: bytes = b"http://testserver"):
    from channels.testing import WebsocketCommunicator

    headers = [(b"origin", origin), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


def challenge_badge(html: str) -> str:
    return html.split('id="challenge-badge"', 1)[1].split("</a>", 1)[0]


def bell(html: str) -> str:
    return html.split('id="notification-bell"', 1)[1].split("</a>", 1)[0]


@pytest.fixture
def drawn(monkeypatch):
    """The accounts people/live.py drew an inbox for, one entry per drawing."""
    made = []
    real = live.publisher

    class Counting:
        def publish(self, group, message):
            made.append(int(group.rsplit(".", 1)[1]))
            real.publish(group, message)

    monkeypatch.setattr(live, "publisher", Counting())
    return made


async def test_a_signed_out_socket_is_closed_with_4403_and_another_origin_refused():
    anonymous, connected = await connect("/ws/me/", None)
    assert connected
    assert await anonymous.receive_output(timeout=10) == {"type": "websocket.close", "code": 4403}
    ada = await database_sync_to_async(account)("ada")
    _, connected = await connect("/ws/me/", await cookie_of(ada), origin=b"http://evil.example")
    assert not connected


async def test_the_badge_and_lists_come_on_connect_then_after_each_change(drawn):
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    bob_page, _ = await connect("/ws/me/", await cookie_of(bob))
    first = await bob_page.receive_from(timeout=10)
    assert 'class="count"' not in challenge_badge(first) and 'class="count"' not in bell(first)
    assert 'id="challenge-lists"' not in first  # an ordinary page: the badge only
    ada_list, _ = await connect("/ws/me/challenges/", await cookie_of(ada))
    shown = await ada_list.receive_from(timeout=10)
    assert 'id="challenge-lists"' in shown and "You have not challenged anyone yet" in shown

    sent = await database_sync_to_async(challenges.send)(ada, bob, **TERMS)
    badge = await bob_page.receive_from(timeout=10)
    assert '<span class="count">1</span>' in challenge_badge(badge)
    assert '<span class="count">1</span>' in bell(badge)  # "ada challenges you"
    assert 'id="challenge-lists"' not in badge
    lists = await ada_list.receive_from(timeout=10)
    assert "Waiting for the answer" in lists and f'id="c-{sent.public_id}"' in lists
    assert sorted(drawn) == [ada.pk, bob.pk]  # once for each account, with a page open

    await database_sync_to_async(challenges.decline)(sent.public_id, bob, "later")
    answered = await ada_list.receive_from(timeout=10)
    assert "bob declined: \u201cNot now: please ask again later.\u201d" in answered
    badge = await bob_page.receive_from(timeout=10)
    assert 'class="count"' not in challenge_badge(badge)
    for socket in (bob_page, ada_list):
        await socket.disconnect()


async def test_nothing_is_drawn_for_an_account_with_no_page_open(drawn):
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    bob_page, _ = await connect("/ws/me/", await cookie_of(bob))
    await bob_page.receive_from(timeout=10)
    await database_sync_to_async(challenges.send)(ada, bob, **TERMS)
    await bob_page.receive_from(timeout=10)
    assert drawn == [bob.pk]
    await bob_page.disconnect()


async def test_an_accepted_challenge_brings_the_challenger_to_the_game(drawn):
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    ada_list, _ = await connect("/ws/me/challenges/", await cookie_of(ada))
    await ada_list.receive_from(timeout=10)
    sent = await database_sync_to_async(challenges.send)(ada, bob, **TERMS)
    await ada_list.receive_from(timeout=10)
    accepted = await database_sync_to_async(challenges.accept)(sent.public_id, bob)
    html = await ada_list.receive_from(timeout=10)
    url = accepted.match.get_absolute_url()
    # Taken there once; marked fresh, so a page opened in the next moments takes them too.
    assert f'href="{url}" data-follow-once="{sent.public_id}" data-fresh>Go to the game</a>' in html
    await ada_list.disconnect()


async def test_a_sync_frame_gets_what_is_current():
    ada = await database_sync_to_async(account)("ada")
    page, _ = await connect("/ws/me/", await cookie_of(ada))
    await page.receive_from(timeout=10)
    await page.send_to(text_data='{"type": "sync"}')
    assert 'id="challenge-badge"' in await page.receive_from(timeout=10)
    await page.disconnect()


async def test_the_lists_are_drawn_only_for_an_account_with_a_challenges_page_open(monkeypatch):
    listed = []
    real = live.render_lists

    def counting(user_id):
        listed.append(user_id)
        return real(user_id)

    monkeypatch.setattr(live, "render_lists", counting)
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    bob_page, _ = await connect("/ws/me/", await cookie_of(bob))
    await bob_page.receive_from(timeout=10)
    ada_list, _ = await connect("/ws/me/challenges/", await cookie_of(ada))
    await ada_list.receive_from(timeout=10)
    listed.clear()
    await database_sync_to_async(challenges.send)(ada, bob, **TERMS)
    assert "Waiting for the answer" in await ada_list.receive_from(timeout=10)
    assert 'id="challenge-lists"' not in await bob_page.receive_from(timeout=10)
    assert listed == [ada.pk]  # Bob has no challenges page open: his lists are not drawn
    await ada_list.disconnect()
    listed.clear()
    await database_sync_to_async(challenges.cancel)(
        (await database_sync_to_async(lambda: challenges.Challenge.objects.get().public_id)()),
        ada,
    )
    await bob_page.receive_from(timeout=10)
    assert listed == []
    await bob_page.disconnect()
