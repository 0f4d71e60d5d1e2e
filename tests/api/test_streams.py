"""The NDJSON streams against a live daphne (real HTTP, real streaming): a game's full
state then a line per change to its end; an account's challenges and games starting and
ending; the per-token limit and the slot a closed stream frees; JSON errors."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from games.rules import get_game
from tests.api.helpers import token_for
from tests.api.live_api import SignedIn, call
from tests.api.streaming import Stream
from tests.factories import until_sync
from tests.ratings.helpers import account

pytestmark = pytest.mark.django_db(transaction=True)


def challenge_accepted(base, ada_token, bob_token, game="last-bit-standing", **terms):
    status, challenge = call(base, "POST", "/challenges/bob", ada_token, {"game": game, **terms})
    assert status == 200, challenge
    status, accepted = call(base, "POST", f"/challenges/{challenge['id']}/accept", bob_token)
    assert status == 200, accepted
    return challenge, accepted["game_id"]


def test_a_games_stream_tells_each_move_and_ends_with_the_game(live_server_url):
    base = live_server_url
    ada, bob = account("ada"), account("bob")
    tokens = {1: token_for(ada), 2: token_for(bob)}
    _, game_id = challenge_accepted(
        base, tokens[1], tokens[2], game="bit-flip", options={"width": 6}
    )
    watcher = Stream(base, f"/api/stream/game/{game_id}")  # anyone may watch
    player = Stream(base, f"/api/stream/game/{game_id}", tokens[1])
    assert watcher.status == 200
    assert watcher.headers["Content-Type"] == "application/x-ndjson"
    full = watcher.next()
    assert full["type"] == "full" and full["public_id"] == game_id
    assert full["users"] == ["ada", "bob"] and full["state"]["ply"] == 0
    assert player.next()["type"] == "full"
    rules = get_game("bit-flip")
    position = rules.from_json(full["state"]["position"])
    ply = 0
    while True:
        watcher_state_seat = None
        move = rules.legal_moves(position)[0]
        seat = 1 if position.to_move == 1 else 2  # the challenger (ada) moves first
        status, answer = call(
            base, "POST", f"/games/{game_id}/move", tokens[seat], {"move": move, "ply": ply}
        )
        assert status == 200, answer
        ply += 1
        position = rules.play(position, move)
        for stream in (watcher, player):
            event = stream.next()
            assert event["type"] == "state" and event["ply"] == ply
            assert event["move"]["text"] == move and event["move"]["words"]
            watcher_state_seat = event["to_move_seat"]
        if position.over:
            assert event["status"] == "finished" and event["result"]["winner"]
            break
        assert watcher_state_seat == (1 if position.to_move == 1 else 2)
    assert watcher.next() is None and player.next() is None  # the streams end with the game
    # A finished game's stream is its full state, and the end.
    done = Stream(base, f"/api/stream/game/{game_id}")
    assert done.next()["state"]["status"] == "finished"
    assert done.next() is None


def test_an_accounts_stream_tells_challenges_and_games(live_server_url):
    base = live_server_url
    ada, bob = account("ada"), account("bob")
    ada_token, bob_token = token_for(ada), token_for(bob)
    # An open challenge waiting before the stream opens is told first.
    status, early = call(base, "POST", "/challenges/bob", ada_token, {"game": "bit-flip"})
    assert status == 200
    events = Stream(base, "/api/stream/event", bob_token)
    assert events.status == 200
    first = events.next()
    assert first["type"] == "challenge" and first["challenge"]["id"] == early["id"]
    call(base, "POST", f"/challenges/{early['id']}/decline", bob_token, {"reason": "later"})
    declined = events.next()
    assert declined["challenge"]["status"] == "declined"
    challenge, game_id = challenge_accepted(base, ada_token, bob_token, game="bit-flip")
    told = events.until(
        lambda e: e["type"] == "challenge" and e["challenge"]["id"] == challenge["id"]
    )
    assert told["challenge"]["status"] == "open"
    start = events.until(lambda e: e["type"] != "challenge")
    assert start == {
        "type": "gameStart",
        "game": {
            "id": game_id,
            "game": "bit-flip",
            "url": f"/m/{game_id}/"
            if start["game"]["url"].startswith("/m/")
            else start["game"]["url"],
            "seat": 2,
            "opponent": start["game"]["opponent"],
            "rated": False,
        },
    }
    assert start["game"]["opponent"].lower() == "ada"
    # A stream opened now tells the game in play first; then its end.
    again = Stream(base, "/api/stream/event", bob_token)
    assert again.next()["type"] == "gameStart"
    status, _ = call(base, "POST", f"/games/{game_id}/resign", bob_token)
    assert status == 200
    for stream in (events, again):
        finish = stream.until(lambda e: e["type"] == "gameFinish")
        assert finish["game"]["id"] == game_id and finish["game"]["result"]["ending"]


def test_at_most_four_streams_a_token_and_a_closed_one_frees_its_slot(live_server_url):
    base = live_server_url
    ada = account("ada")
    token = token_for(ada, "read")
    streams = [Stream(base, "/api/stream/event", token) for _ in range(4)]
    assert [s.status for s in streams] == [200] * 4
    refused = Stream(base, "/api/stream/event", token)
    assert refused.status == 429
    assert refused.error()["error"] == "too_many_streams"
    streams[0].close()

    def freed():
        probe = Stream(base, "/api/stream/event", token)
        probe.close()
        return probe.status == 200

    until_sync(freed, timeout=20)
    other = Stream(base, "/api/stream/event", token_for(ada, "read"))  # its own count
    assert other.status == 200


def test_streams_opened_at_once_cannot_pass_the_limit_together(live_server_url):
    token = token_for(account("ada"), "read")
    with ThreadPoolExecutor(8) as pool:
        streams = list(
            pool.map(lambda _: Stream(live_server_url, "/api/stream/event", token), range(8))
        )
    try:
        assert sorted(s.status for s in streams) == [200] * 4 + [429] * 4
    finally:
        for stream in streams:
            stream.close()


def test_stream_errors_are_json(live_server_url):
    base = live_server_url
    unknown = Stream(base, "/api/stream/game/nosuchgame")
    assert unknown.status == 404 and unknown.error()["error"] == "not_found"
    bad = Stream(base, "/api/stream/event", "bit_nonsense")
    assert bad.status == 401 and bad.error()["error"] == "bad_token"
    nobody = Stream(base, "/api/stream/event")
    assert nobody.status == 401
    scope = Stream(base, "/api/stream/event", token_for(account("ada"), "play"))
    assert scope.status == 403


def ended_within(stream: Stream, seconds: float) -> float:
    """How long the stream took to end (its body closed by the server): at most
    ``seconds``, or the test fails."""
    started = time.monotonic()
    while stream.next(timeout=seconds + 5) is not None:
        pass  # lines told before the end
    took = time.monotonic() - started
    assert took <= seconds, f"the stream ended after {took:.1f} s"
    return took


def test_revoking_a_token_on_its_page_ends_its_open_streams_at_once(live_server_url):
    from api.models import Token

    base = live_server_url
    ada, bob = account("ada"), account("bob")
    revoked, kept = token_for(ada, name="old bot"), token_for(ada, name="new bot")
    _, game_id = challenge_accepted(base, revoked, token_for(bob), game="bit-flip")
    events = Stream(base, "/api/stream/event", revoked)
    game = Stream(base, f"/api/stream/game/{game_id}", revoked)
    other = Stream(base, f"/api/stream/game/{game_id}", kept)
    assert events.next()["type"] == "gameStart" and game.next()["type"] == "full"
    assert other.next()["type"] == "full"
    pk = Token.objects.get(name="old bot").pk
    page = SignedIn(base, ada)  # ada on her settings page, on the server
    tokens_page = "/accounts/settings/tokens/"
    assert page.post(f"{tokens_page}{pk}/revoke/", csrf_from=tokens_page) == 303
    ended_within(events, 1.0)
    ended_within(game, 1.0)
    assert call(base, "GET", "/account", revoked)[0] == 401
    # The account's other token goes on: its stream still tells the next move.
    status, _ = call(base, "POST", f"/games/{game_id}/move", kept, {"move": "1", "ply": 0})
    assert status == 200
    told = other.next()
    assert told["type"] == "state" and told["ply"] == 1
    other.close()


def test_a_stream_opened_before_the_account_became_a_bot_ends_at_once(live_server_url):
    base = live_server_url
    cy = account("cy")
    before, play_token = token_for(cy, "read"), token_for(cy, "play")
    stream = Stream(base, "/api/stream/event", before)
    stream.response.readline()  # open: its first (empty) line
    assert call(base, "POST", "/account/bot", play_token)[0] == 200
    ended_within(stream, 1.0)
    again = Stream(base, "/api/stream/event", before)
    assert again.status == 200  # the token still works, for the bot now
    again.close()


@pytest.mark.services
def test_closing_an_account_ends_its_streams_at_once_on_every_process(live_server_url):
    """Staff close the account on one process (here the test's own, as the admin would):
    the streams on another end, told through Redis."""
    base = live_server_url
    ada, bob = account("ada"), account("bob")
    streams = [Stream(base, "/api/stream/event", token_for(ada)) for _ in range(2)]
    others = Stream(base, "/api/stream/event", token_for(bob))
    for stream in (*streams, others):
        stream.response.readline()
    ada.is_active = False
    ada.save()
    for stream in streams:
        ended_within(stream, 1.0)
    # Bob's goes on: a challenge to him still reaches it.
    cy = account("cy")
    assert call(base, "POST", "/challenges/bob", token_for(cy), {"game": "bit-flip"})[0] == 200
    assert others.until(lambda e: e["type"] == "challenge")["challenge"]["challenger"] == "cy"


@pytest.mark.parametrize("through", ["daphne", "nginx"])
@pytest.mark.parametrize("how", ["close", "reset"])
def test_closed_streams_free_their_slots_at_once(live_server_url, nginx_binary, through, how):
    """A bot that drops its connections (a clean close, or a reset) reconnects at once."""
    import socket
    import struct

    from tests.servers import Nginx

    port = int(live_server_url.rsplit(":", 1)[1])
    proxy = Nginx(nginx_binary, port) if through == "nginx" else None
    base = f"http://127.0.0.1:{proxy.port}" if proxy else live_server_url
    try:
        token = token_for(account("ada"), "read")
        streams = [Stream(base, "/api/stream/event", token) for _ in range(4)]
        assert [s.status for s in streams] == [200] * 4
        for stream in streams:
            stream.response.readline()
            if how == "reset":
                raw = stream.connection.sock
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            stream.close()
        started = time.monotonic()
        again = []
        while len(again) < 4 and time.monotonic() - started < 5:
            probe = Stream(base, "/api/stream/event", token)
            if probe.status == 200:
                again.append(probe)
            else:
                probe.close()
        took = time.monotonic() - started
        assert len(again) == 4 and took <= 1.0, f"{len(again)} streams again in {took:.1f} s"
        for stream in again:
            stream.close()
    finally:
        if proxy is not None:
            proxy.stop()


@pytest.fixture
def abandon_fast(servers):
    return servers(BITSITE_ABANDON_SECONDS="2")


def test_a_player_streaming_its_game_is_present_and_cannot_be_claimed_against(abandon_fast):
    base = abandon_fast.url
    ada, bob = account("ada"), account("bob")
    ada_token, bob_token = token_for(ada), token_for(bob)
    _, game_id = challenge_accepted(base, ada_token, bob_token, game="bit-flip")
    present = Stream(base, f"/api/stream/game/{game_id}", ada_token)
    assert present.next()["type"] == "full"
    moved = call(base, "POST", f"/games/{game_id}/move", ada_token, {"move": "1", "ply": 0})
    assert moved[0] == 200, moved
    assert present.next()["ply"] == 1
    # Well past the 2 s of absence a claim needs: ada's stream keeps her present.
    bob_stream = Stream(base, f"/api/stream/game/{game_id}", bob_token)
    bob_stream.next()
    refused = {}

    def claim_refused_a_while():
        status, answer = call(base, "POST", f"/games/{game_id}/claim", bob_token, {"win": True})
        refused.setdefault("first", time.monotonic())
        assert status != 200, answer
        return time.monotonic() - refused["first"] > 4

    until_sync(claim_refused_a_while, timeout=30)
    present.close()  # ada goes: once she has been away long enough, bob may claim

    def claimed():
        return call(base, "POST", f"/games/{game_id}/claim", bob_token, {"win": True})[0] == 200

    until_sync(claimed, timeout=30)
    end = bob_stream.until(lambda e: e.get("status") == "finished")
    assert end["result"]["ending"] == "abandoned"


@pytest.mark.services
def test_a_move_on_one_process_reaches_a_stream_on_another(transactional_db):
    from django.db import connection

    from tests.servers import DaphneServer, database_url, server_env

    assert connection.vendor == "postgresql"
    env = server_env(database_url(connection.settings_dict))
    first, second = (DaphneServer(env, name=f"api-scale-{i}").start() for i in (1, 2))
    try:
        ada, bob = account("ada"), account("bob")
        ada_token, bob_token = token_for(ada), token_for(bob)
        events = Stream(second.url, "/api/stream/event", bob_token)
        _, game_id = challenge_accepted(first.url, ada_token, bob_token, game="bit-flip")
        assert events.until(lambda e: e["type"] == "gameStart")["game"]["id"] == game_id
        watcher = Stream(second.url, f"/api/stream/game/{game_id}")
        assert watcher.next()["type"] == "full"
        status, answer = call(
            first.url, "POST", f"/games/{game_id}/move", ada_token, {"move": "1", "ply": 0}
        )
        assert status == 200, answer
        event = watcher.next()
        assert event["ply"] == 1 and event["move"]["text"] == "1"
    finally:
        first.stop()
        second.stop()


async def test_a_busy_stream_stays_in_its_sets_and_a_silent_one_keeps_alive(monkeypatch):
    """Lines coming faster than the keep-alive must not let the stream's memberships
    expire (the receivers would stop publishing to it); in silence, empty lines."""
    from channels.layers import get_channel_layer

    from api import live
    from games import presence

    # Lines every 0.1 s against a keep-alive of 1.5 s and memberships of 1 s: the stream
    # outlives several heartbeats and lives, and a busy machine's stall of a second or
    # so still leaves it no silence.
    monkeypatch.setattr(presence, "HEARTBEAT", 0.25)
    monkeypatch.setattr(presence, "TTL", 1.0)
    monkeypatch.setattr(live, "KEEP_ALIVE", 1.5)
    group, sets = live.game_group("busy"), [live.game_set("busy")]
    lines = live.opened(
        group=group, sets=sets, cap=None, first=lambda: live.First([live.line({"n": 0})])
    )
    layer, clock = get_channel_layer(), asyncio.get_running_loop().time
    try:
        assert json.loads(await anext(lines)) == {"n": 0}
        busy_until, n = clock() + 4.0, 0
        while clock() < busy_until:  # a line every 0.1 s: never 1.5 s of silence
            n += 1
            await layer.group_send(group, {"type": "api.line", "line": live.line({"n": n})})
            assert json.loads(await asyncio.wait_for(anext(lines), 2)) == {"n": n}
            assert presence.counts(sets) == [1]
            await asyncio.sleep(0.1)
        assert await asyncio.wait_for(anext(lines), 5) == "\n"
        assert presence.counts(sets) == [1]
    finally:
        await lines.aclose()
    assert presence.counts(sets) == [0]  # closed: it left at once


async def test_a_stream_keeps_one_read_of_its_channel_through_its_keep_alives(monkeypatch):
    """A read cancelled at each keep-alive could take a message with it (channels-redis
    drops what a cancelled receive had in hand): the stream's one read stays pending
    through the empty lines and tells the change that comes after them."""
    from channels.layers import get_channel_layer

    from api import live

    monkeypatch.setattr(live, "KEEP_ALIVE", 0.1)
    layer = get_channel_layer()
    reads, cancelled = [], []
    receive = layer.receive

    async def counted(channel):
        reads.append(channel)
        try:
            return await receive(channel)
        except asyncio.CancelledError:
            cancelled.append(channel)
            raise

    monkeypatch.setattr(layer, "receive", counted)
    group = live.game_group("quiet")
    lines = live.opened(group=group, sets=[], cap=None, first=lambda: live.First([]))
    try:
        assert await anext(lines) == "\n"  # the answer's head
        for _ in range(3):
            assert await asyncio.wait_for(anext(lines), 2) == "\n"  # kept alive
        await layer.group_send(group, {"type": "api.line", "line": live.line({"n": 1})})
        assert json.loads(await asyncio.wait_for(anext(lines), 2)) == {"n": 1}
        assert len(reads) == 1 and cancelled == []
        assert await asyncio.wait_for(anext(lines), 2) == "\n"  # reading again
    finally:
        await lines.aclose()
    assert len(reads) == 2 and cancelled == reads[1:]  # closed: its pending read with it


async def test_a_stream_ends_when_its_channel_layer_fails(monkeypatch):
    """The layer's failed receive is one ``layer.lost`` message (bitsite/layers.py): the
    stream ends there, and its client connects again, as a page's socket does."""
    from channels.layers import get_channel_layer

    from api import live

    layer = get_channel_layer()

    async def failed(channel):
        return {"type": "layer.lost", "error": ConnectionError("Redis went away")}

    monkeypatch.setattr(layer, "receive", failed)
    lines = live.opened(
        group=live.game_group("lost"), sets=[], cap=None, first=lambda: live.First([])
    )
    assert await anext(lines) == "\n"
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(lines), 2)


@pytest.mark.services
async def test_a_waiting_stream_does_not_hold_up_the_sockets_of_its_process():
    """channels-redis reads a process's channels through one Redis list per name prefix,
    under one lock: a stream named apart ("api.") held that lock in its blocking read
    and the match pages' sockets of the process went unread (the example bot's move
    never reached its opponent's page). Its channel is named as theirs are."""
    from channels.layers import get_channel_layer

    from api import live

    layer = get_channel_layer()
    group = live.game_group("shared")
    lines = live.opened(group=group, sets=[], cap=None, first=lambda: live.First([]))
    try:
        assert await anext(lines) == "\n"
        waiting = asyncio.ensure_future(anext(lines))  # its read of the channel pending
        await asyncio.sleep(0.2)
        socket = await layer.new_channel()  # as a consumer's
        await layer.group_add("a-match-page", socket)
        await layer.group_send("a-match-page", {"type": "board.push"})
        assert (await asyncio.wait_for(layer.receive(socket), 3))["type"] == "board.push"
        await layer.group_send(group, {"type": "api.line", "line": live.line({"n": 1})})
        assert json.loads(await asyncio.wait_for(waiting, 3)) == {"n": 1}
    finally:
        await lines.aclose()
