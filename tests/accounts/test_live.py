"""My games, live: the account's socket gets its ongoing list on connect, and after every
change of one of its matches the list drawn once for it (only while it watches)."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts import live
from bitsite.asgi import application
from games import play
from tests.accounts.helpers import account, actor_of, create, match_of, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

PATH = "/ws/me/games/"


@pytest.fixture(autouse=True)
def fresh_presence():
    from games import admission

    admission.reset()
    yield
    admission.reset()


@database_sync_to_async
def cookie_of(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.session.session_key}".encode()


async def connect(cookie: bytes | None, origin: bytes = b"http://testserver"):
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, PATH, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


def ongoing_ids(html: str) -> list[str]:
    part = re.search(r'<section id="ongoing".*?</section>', html, re.S).group(0)
    return re.findall(r'id="game-([\w-]{16})"', part)


def your_turn(html: str, public_id: str) -> bool:
    row = re.search(rf'<li class="game[^"]*" id="game-{public_id}".*?</li>', html, re.S).group(0)
    return "Your turn" in row


def first_move(match) -> str:
    match.refresh_from_db()
    return match.rules.legal_moves(match.current)[0]


@database_sync_to_async
def moved(match, user):
    match.refresh_from_db()
    return play.submit_move(
        match.public_id, by=actor_of(user), text=first_move(match), ply=match.ply
    )


@pytest.fixture
def renders(monkeypatch):
    """The lists accounts/live.py drew and sent for changes: (account, whether the match
    ended), one per drawing (the consumers' own first lists are not counted)."""
    made = []
    real = live.publisher

    class Counting:
        def publish(self, group, message):
            user_id = int(group.rsplit(".", 1)[1])
            made.append((user_id, "finished-refresh" in message["html"]))
            real.publish(group, message)

    monkeypatch.setattr(live, "publisher", Counting())
    return made


async def test_a_signed_out_socket_is_closed_with_4403():
    anonymous, connected = await connect(None)
    assert connected
    assert await anonymous.receive_output(timeout=10) == {"type": "websocket.close", "code": 4403}
    browser = Client()
    await database_sync_to_async(browser.get)("/")
    session = await database_sync_to_async(lambda: browser.session)()
    await database_sync_to_async(session.save)()
    no_account, _ = await connect(f"sessionid={session.session_key}".encode())
    assert await no_account.receive_output(timeout=10) == {"type": "websocket.close", "code": 4403}


async def test_a_changed_password_closes_the_accounts_other_sockets_out():
    ada = await database_sync_to_async(account)("ada")
    cookie = await cookie_of(ada)

    def change_password():
        ada.set_password("a-brand-new-password-99")
        ada.save()

    await database_sync_to_async(change_password)()
    socket, _ = await connect(cookie)
    assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4403}


async def test_another_origin_is_refused():
    ada = await database_sync_to_async(account)("ada")
    _, connected = await connect(await cookie_of(ada), origin=b"http://evil.example")
    assert not connected


async def test_the_list_comes_on_connect_then_each_change_once_for_each_watching_account(renders):
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    mine = await database_sync_to_async(match_of)(ada, opponent=bob)
    ada_socket, _ = await connect(await cookie_of(ada))
    bob_socket, _ = await connect(await cookie_of(bob))
    first_ada, first_bob = (
        await ada_socket.receive_from(timeout=10),
        await bob_socket.receive_from(timeout=10),
    )
    assert ongoing_ids(first_ada) == [mine.public_id] == ongoing_ids(first_bob)
    assert your_turn(first_ada, mine.public_id) and not your_turn(first_bob, mine.public_id)
    assert "finished-refresh" not in first_ada

    # A move flips the mark, on both accounts' pages: drawn once for each.
    await moved(mine, ada)
    pushed_ada, pushed_bob = (
        await ada_socket.receive_from(timeout=10),
        await bob_socket.receive_from(timeout=10),
    )
    assert not your_turn(pushed_ada, mine.public_id)
    assert your_turn(pushed_bob, mine.public_id)
    assert renders == [(ada.pk, False), (bob.pk, False)]
    assert await ada_socket.receive_nothing(timeout=0.2)

    # A new match of Ada's appears on her page only (Bob is not in it).
    renders.clear()
    other = await database_sync_to_async(match_of)(ada, "bit-flip-divisor", mode="computer")
    pushed = await ada_socket.receive_from(timeout=10)
    assert set(ongoing_ids(pushed)) == {mine.public_id, other.public_id}
    assert ongoing_ids(pushed)[0] == other.public_id  # her turn there, not in the first
    assert renders == [(ada.pk, False)]
    assert await bob_socket.receive_nothing(timeout=0.2)

    # An ending leaves the ongoing list, and asks the pages to read their finished list.
    renders.clear()
    await database_sync_to_async(play.resign)(mine.public_id, by=actor_of(bob))
    ended_ada, ended_bob = (
        await ada_socket.receive_from(timeout=10),
        await bob_socket.receive_from(timeout=10),
    )
    assert ongoing_ids(ended_ada) == [other.public_id] and ongoing_ids(ended_bob) == []
    assert 'hx-trigger="load"' in ended_ada and 'hx-trigger="load"' in ended_bob
    assert renders == [(ada.pk, True), (bob.pk, True)]
    for socket in (ada_socket, bob_socket):
        await socket.disconnect()


async def test_nothing_is_drawn_for_an_account_with_no_page_open(renders):
    ada = await database_sync_to_async(account)("ada")
    bob = await database_sync_to_async(account)("bob")
    match = await database_sync_to_async(match_of)(ada, opponent=bob)
    await moved(match, ada)
    assert renders == []
    socket, _ = await connect(await cookie_of(bob))
    await socket.receive_from(timeout=10)
    await moved(match, bob)
    assert renders == [(bob.pk, False)]  # Bob watches; Ada has no page open
    await socket.disconnect()
    renders.clear()
    await moved(match, ada)
    assert renders == []


async def test_a_game_on_one_device_is_drawn_once(renders):
    ada = await database_sync_to_async(account)("ada")
    socket, _ = await connect(await cookie_of(ada))
    await socket.receive_from(timeout=10)
    match = await database_sync_to_async(match_of)(ada, "last-digit-standing", mode="hotseat")
    await socket.receive_from(timeout=10)
    renders.clear()
    await moved(match, ada)
    assert your_turn(await socket.receive_from(timeout=10), match.public_id)
    assert renders == [(ada.pk, False)]
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


async def test_an_older_list_never_replaces_a_newer_one():
    ada = await database_sync_to_async(account)("ada")
    socket, _ = await connect(await cookie_of(ada))
    await socket.receive_from(timeout=10)
    layer = get_channel_layer()
    await layer.group_send(
        live.group_name(ada.pk), {"type": "games.changed", "at": 1.0, "html": "old"}
    )
    assert await socket.receive_nothing(timeout=0.3)
    later = 4_000_000_000.0
    await layer.group_send(
        live.group_name(ada.pk), {"type": "games.changed", "at": later, "html": "new"}
    )
    assert await socket.receive_from(timeout=10) == "new"
    await socket.disconnect()


async def test_a_sync_frame_gets_the_list_and_junk_closes_the_socket():
    ada = await database_sync_to_async(account)("ada")
    match = await database_sync_to_async(match_of)(ada, joined=False)
    socket, _ = await connect(await cookie_of(ada))
    await socket.receive_from(timeout=10)
    await socket.send_to(text_data='{"type": "sync"}')
    html = await socket.receive_from(timeout=10)
    assert ongoing_ids(html) == [match.public_id] and 'hx-trigger="load"' in html
    await socket.send_to(text_data='{"type": "move"}')
    assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4400}


async def test_anonymous_matches_push_nothing_to_accounts(renders):
    ada = await database_sync_to_async(account)("ada")
    socket, _ = await connect(await cookie_of(ada))
    await socket.receive_from(timeout=10)
    from tests.factories import make_match

    await database_sync_to_async(make_match)("bit-flip", name="Eve")  # not the account's name
    assert renders == []
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


async def test_seats_claimed_on_another_device_show_up_live():
    ada = await database_sync_to_async(account)("ada")
    socket, _ = await connect(await cookie_of(ada))
    assert ongoing_ids(await socket.receive_from(timeout=10)) == []
    laptop = Client()

    def play_then_sign_in():
        match = create(laptop, "bit-flip")  # anonymous
        sign_in(laptop, "ada")
        return match

    match = await database_sync_to_async(play_then_sign_in)()
    html = await socket.receive_from(timeout=10)
    assert ongoing_ids(html) == [match.public_id] and 'hx-trigger="load"' in html
    await socket.disconnect()
