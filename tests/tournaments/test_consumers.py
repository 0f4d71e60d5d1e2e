"""A tournament page's websocket (tournaments/consumers.py) through the real ASGI app: the
standings first, changes pushed and drawn once however many pages are open, a player's
own panel only on that player's pages, unknown events, the cap per browser, stale pushes."""

from __future__ import annotations

import re
import threading

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from bitsite.asgi import application
from games import fanout
from tests.factories import until
from tests.test_fanout import members_in_layer
from tests.tournaments.helpers import accounts, event
from tournaments import director, live

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(autouse=True)
def fresh_presence():
    from games import admission

    admission.reset()
    yield
    admission.reset()


@pytest.fixture(autouse=True)
def drawing(monkeypatch):
    """Counts the draws in progress, so that a test knows when the drawer is idle."""
    busy = {"draws": 0}
    lock = threading.Lock()
    draw = live.drawer.draw

    def counted(public_id):
        with lock:
            busy["draws"] += 1
        try:
            return draw(public_id)
        finally:
            with lock:
                busy["draws"] -= 1

    counted.busy = busy
    monkeypatch.setattr(live.drawer, "draw", counted)
    return busy


@pytest.fixture
def renders(monkeypatch):
    """Counts the shared part's renders (on any thread)."""
    counts = {"shared": 0}
    lock = threading.Lock()
    render = live.render_shared

    def counting(*args, **kwargs):
        with lock:
            counts["shared"] += 1
        return render(*args, **kwargs)

    monkeypatch.setattr(live, "render_shared", counting)
    return counts


def cookie_of(user) -> bytes:
    """A browser signed into ``user`` (its session cookie)."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def connect(public_id, cookie=None, *, accepted=True):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    page = WebsocketCommunicator(application, f"/ws/t/{public_id}/", headers=headers)
    connected, _ = await page.connect(timeout=10)
    assert connected == accepted
    return page


async def frames_until(page, marker, timeout=10):
    """The frames the page receives up to the first that holds ``marker``."""
    frames = []
    while True:
        frame = await page.receive_from(timeout=timeout)
        frames.append(frame)
        if marker in frame:
            return frames


async def drawn_out():
    """Every change made so far has been drawn and sent (the drawer holds nothing)."""
    drawer = live.drawer
    await until(
        lambda: not drawer.window.scheduled and not drawer.since and not drawer.draw.busy["draws"],
        timeout=10,
    )


def version_of(html):
    return int(re.search(r'id="t-live"[^>]*data-version="(\d+)"', html).group(1))


async def close_all(*pages):
    for page in pages:
        await page.disconnect()


async def test_the_standings_come_first_then_a_join_is_pushed_and_drawn_once_for_every_page(
    renders,
):
    ada, bob, cy = await database_sync_to_async(accounts)("ada", "bob", "cy")
    t = await database_sync_to_async(event)("arena", starts_in=600)
    await database_sync_to_async(director.join)(t.public_id, ada)
    ada_cookie = await database_sync_to_async(cookie_of)(ada)
    bob_cookie = await database_sync_to_async(cookie_of)(bob)
    pages = [
        await connect(t.public_id, ada_cookie),
        await connect(t.public_id, bob_cookie),
        await connect(t.public_id),
    ]
    for page in pages:
        first = await page.receive_from(timeout=10)
        assert 'id="t-live"' in first and "Standings" in first and "ada" in first
        assert 'hx-swap-oob="true"' in first
    await drawn_out()
    shown = version_of(first)
    renders["shared"] = 0
    frames_before = live.drawer.frames

    # The process's relay is the event group's one member in the layer (games/fanout.py):
    # one message for the three pages.
    layer = get_channel_layer()
    assert await members_in_layer(layer, live.group(t.public_id)) == 1
    relayed = fanout.relay(layer).relayed

    await database_sync_to_async(director.join)(t.public_id, cy)
    for page in pages:
        pushed = await frames_until(page, 'id="t-live"')
        assert len(pushed) == 1  # nothing before it
        assert ">cy</a>" in pushed[0] and "2 players" in pushed[0]
        assert version_of(pushed[0]) > shown
    await drawn_out()
    assert live.drawer.frames == frames_before + 1
    assert renders["shared"] == 1  # one render for the three pages
    assert fanout.relay(layer).relayed == relayed + 1  # one message for the three pages
    for page in pages:  # and nothing more: no panel changed for these viewers
        assert await page.receive_nothing(timeout=0.3)
    await close_all(*pages)
    assert await members_in_layer(layer, live.group(t.public_id)) == 0  # the relay left too


async def test_a_players_panel_reaches_only_their_own_pages():
    ada, bob, cy = await database_sync_to_async(accounts)("ada", "bob", "cy")
    t = await database_sync_to_async(event)("arena", starts_in=-1)
    for user in (ada, bob, cy):
        await database_sync_to_async(director.join)(t.public_id, user)
    await database_sync_to_async(director.advance)(t.public_id)  # running: one pair
    ada_cookie = await database_sync_to_async(cookie_of)(ada)
    bob_cookie = await database_sync_to_async(cookie_of)(bob)
    ada_pages = [await connect(t.public_id, ada_cookie) for _ in range(2)]
    bob_page = await connect(t.public_id, bob_cookie)
    anonymous = await connect(t.public_id)
    for page in [*ada_pages, bob_page]:
        assert 'id="t-panel"' in await page.receive_from(timeout=10)  # their own, first
    assert 'id="t-panel"' not in await anonymous.receive_from(timeout=10)
    await drawn_out()

    await database_sync_to_async(director.withdraw)(t.public_id, ada)
    for page in ada_pages:  # both of Ada's pages: her own panel and the standings
        # One message of the event's group brings both (games/fanout.py: through the
        # process's relay): one frame, her panel first.
        frame = await page.receive_from(timeout=10)
        panel, shared = frame.split('id="t-live"', 1)
        assert 'id="t-panel"' in panel and 'id="t-panel"' not in shared
        assert "You are paused" in panel and "Rejoin" in panel
        assert "(paused)" in shared
    for page in (bob_page, anonymous):
        (shared,) = await frames_until(page, 'id="t-live"')
        assert "(paused)" in shared  # Ada, in the standings everyone sees
        assert 'id="t-panel"' not in shared
    await drawn_out()
    for page in (bob_page, anonymous):
        assert await page.receive_nothing(timeout=0.3)  # Ada's panel never came here
    await close_all(*ada_pages, bob_page, anonymous)


async def test_an_unknown_event_is_closed_with_4404():
    page = await connect("AAAAAAAAAAAAAAAA")
    assert await page.receive_output(timeout=10) == {"type": "websocket.close", "code": 4404}
    await page.disconnect()
    malformed = await connect("not-an-id")  # no event's id: no route
    assert await malformed.receive_output(timeout=10) == {"type": "websocket.close", "code": 4404}


async def test_sockets_past_the_cap_of_one_browser_are_refused_with_4409(settings):
    settings.SOCKETS_PER_MATCH = 3
    (ada,) = await database_sync_to_async(accounts)("ada")
    t = await database_sync_to_async(event)("arena", starts_in=600)
    cookie = await database_sync_to_async(cookie_of)(ada)
    opened = []
    for _ in range(3):
        page = await connect(t.public_id, cookie)
        assert 'id="t-live"' in await page.receive_from(timeout=10)
        opened.append(page)
    refused = await connect(t.public_id, cookie)
    assert await refused.receive_output(timeout=10) == {"type": "websocket.close", "code": 4409}
    # Another browser is let in, and a page closed frees its place.
    other = await connect(t.public_id)
    assert 'id="t-live"' in await other.receive_from(timeout=10)
    await opened.pop().disconnect()
    again = await connect(t.public_id, cookie)
    assert 'id="t-live"' in await again.receive_from(timeout=10)
    await close_all(*opened, other, again)


async def test_a_push_older_than_what_the_page_shows_is_not_forwarded():
    ada, bob = await database_sync_to_async(accounts)("ada", "bob")
    t = await database_sync_to_async(event)("arena", starts_in=600)
    await database_sync_to_async(director.join)(t.public_id, ada)
    await drawn_out()
    page = await connect(t.public_id, await database_sync_to_async(cookie_of)(ada))
    shown = version_of(await page.receive_from(timeout=10))
    layer = get_channel_layer()

    async def push(kind, version, html="", panel=None, for_whom=ada):
        message = {"type": kind, "version": version}
        group = live.group(t.public_id)
        if kind == "tournament.changed":  # the same status: no visitor's panel with it
            message.update(html=html, status="upcoming", visitor="visitor's", anonymous="anon")
            if panel is not None:
                message["panels"] = {live.panel_key(for_whom.pk): {"html": panel, "entry": True}}
        else:  # a pairing's panel, to the player's own group
            message.update(html=panel, entry=True)
            group = live.player_group(t.public_id, for_whom.pk)
        await layer.group_send(group, {**message, "group": group})  # as the publisher names it

    await push("tournament.changed", shown - 1, "stale")
    await push("tournament.changed", shown, "the same")
    await push("tournament.panel", shown, panel="stale panel")
    await push("tournament.panel", shown + 5, panel="someone else's", for_whom=bob)
    assert await page.receive_nothing(timeout=0.3)
    await push("tournament.changed", shown + 1, "newer")
    assert await page.receive_from(timeout=10) == "newer"
    await push("tournament.changed", shown, "stale again")
    await push("tournament.panel", shown + 1, panel="newer panel")
    assert await page.receive_from(timeout=10) == "newer panel"
    assert await page.receive_nothing(timeout=0.3)
    # The standings and the page's own panel in one message: one frame, the panel first.
    await push("tournament.changed", shown + 2, "newest", panel="newest panel")
    assert await page.receive_from(timeout=10) == "newest panel" + "newest"
    await push("tournament.changed", shown + 3, "later", panel="later panel")
    assert await page.receive_from(timeout=10) == "later panel" + "later"
    await push("tournament.changed", shown + 9, "last", panel="someone else's", for_whom=bob)
    assert await page.receive_from(timeout=10) == "last"  # another player's panel: not sent
    await page.disconnect()


async def test_leaving_before_the_start_reaches_the_players_other_pages():
    """Before the start, leaving deletes the entry: the player's other pages still learn
    it (their panel offers Join again)."""
    (ada,) = await database_sync_to_async(accounts)("ada")
    t = await database_sync_to_async(event)("arena", starts_in=600)
    await database_sync_to_async(director.join)(t.public_id, ada)
    await drawn_out()
    page = await connect(t.public_id, await database_sync_to_async(cookie_of)(ada))
    assert "You have joined" in await page.receive_from(timeout=10)
    await database_sync_to_async(director.withdraw)(t.public_id, ada)  # from another tab
    # One frame: the player's own panel, then the standings.
    frame = await page.receive_from(timeout=10)
    panel, shared = frame.split('id="t-live"', 1)
    assert 'id="t-panel"' in panel
    assert ">Join</button>" in panel and "You have joined" not in panel
    assert "0 players" in shared
    await page.disconnect()


async def test_a_viewer_without_an_entry_sees_the_panel_change_with_the_status():
    """No panel of their own comes to a signed-in visitor who has not joined, nor to an
    anonymous page: theirs changes with the event's status (Join, then started, then
    over), once, with the standings."""
    ada, bob, cy = await database_sync_to_async(accounts)("ada", "bob", "cy")
    t = await database_sync_to_async(event)("swiss", starts_in=-1, rounds=1)
    for user in (ada, bob):
        await database_sync_to_async(director.join)(t.public_id, user)
    await drawn_out()
    visitor = await connect(t.public_id, await database_sync_to_async(cookie_of)(cy))
    anonymous = await connect(t.public_id)
    assert ">Join</button>" in await visitor.receive_from(timeout=10)
    await anonymous.receive_from(timeout=10)
    await database_sync_to_async(director.advance)(t.public_id)  # round 1 starts
    (started,) = await frames_until(visitor, 'id="t-panel"')
    assert "has started" in started and ">Join</button>" not in started
    (seen,) = await frames_until(anonymous, 'id="t-live"')
    assert 'id="t-panel"' in seen and "to play in tournaments" in seen
    await drawn_out()
    # A change that leaves the status as it is: the standings only.
    await database_sync_to_async(director.withdraw)(t.public_id, ada)
    (again,) = await frames_until(visitor, 'id="t-live"')
    assert 'id="t-panel"' not in again
    await close_all(visitor, anonymous)
