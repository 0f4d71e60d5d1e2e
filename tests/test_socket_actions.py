"""A player's actions as frames on the match's websocket (games/actions.py,
games/consumers.py ``act``): the same write path, refusals and rate limit as their POSTs."""

from __future__ import annotations

import html as html_module
import json
import re

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from games.consumers import ANSWER
from games.limits import TOO_FAST
from games.models import Match, Move
from games.rights import NoBoard, StaleBoard
from tests.factories import client_with_token, make_match
from tests.test_consumers import connect, counted, fresh_presence  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def ply_of(html):
    return int(re.search(r'id="board(?:-state)?"[^>]*data-ply="(\d+)"', html).group(1))


def notice_of(html):
    """The notice an answer shows (the words of a refusal), unescaped."""
    found = re.search(r'id="message">(.*?)</p>', html, re.S)
    return html_module.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""


async def board_from(communicator, timeout=10):
    """The next frame that holds a board, or what changed on it (presence marks and counts
    come in between)."""
    while True:
        text = await communicator.receive_from(timeout=timeout)
        if 'id="board"' in text or 'id="board-state"' in text:
            return text


async def answer_from(communicator, timeout=10):
    """The next frame that answers this page's action (pushes may come before it)."""
    while True:
        text = await communicator.receive_from(timeout=timeout)
        if text.startswith(ANSWER):
            return text[len(ANSWER) :]


async def send(communicator, **frame):
    await communicator.send_to(text_data=json.dumps(frame))


@database_sync_to_async
def moves_of(match):
    return list(Move.objects.filter(match=match).order_by("ply").values_list("ply", "text"))


@database_sync_to_async
def reload(match):
    return Match.objects.get(pk=match.pk)


async def players(game="bit-flip", **kwargs):
    match, t1, t2 = await database_sync_to_async(make_match)(game, **kwargs)
    one, _ = await connect(match.public_id, t1)
    two, _ = await connect(match.public_id, t2)
    await board_from(one)
    await board_from(two)
    return match, (t1, one), (t2, two)


async def test_a_move_frame_is_played_answered_to_the_mover_and_pushed_to_the_opponent():
    match, (_, one), (_, two) = await players()
    await send(one, type="move", move="1", ply=0)
    answer = await answer_from(one)
    assert ply_of(answer) == 1 and not notice_of(answer)
    pushed = await board_from(two)
    assert ply_of(pushed) == 1
    assert await moves_of(match) == [(1, "1")]
    # The push of the same change is not sent again to the mover's page.
    await send(one, type="sync")
    assert ply_of(await board_from(one)) == 1
    assert await one.receive_nothing(timeout=0.3)
    await one.disconnect()
    await two.disconnect()


async def test_the_same_move_sent_again_is_refused_by_its_ply_and_played_once():
    """A page whose socket dropped after sending a move sends it again: the ply the player
    saw tells the write path it was played already."""
    match, (_, one), (_, two) = await players()
    await send(one, type="move", move="1", ply=0)
    await answer_from(one)
    await send(one, type="move", move="1", ply=0)
    again = await answer_from(one)
    assert ply_of(again) == 1
    assert notice_of(again) == StaleBoard.default
    assert await moves_of(match) == [(1, "1")]
    await one.disconnect()
    await two.disconnect()


@pytest.mark.parametrize(
    ("who", "frame", "words"),
    [
        ("mover", {"type": "move", "move": "1", "ply": 3}, StaleBoard.default),
        ("mover", {"type": "move", "move": "1"}, NoBoard.default),
        ("mover", {"type": "move", "move": "1", "ply": "zero"}, NoBoard.default),
        ("mover", {"type": "move", "move": "1", "ply": True}, NoBoard.default),
        ("mover", {"type": "move", "move": "nine", "ply": 0}, None),  # the rules' words
        ("mover", {"type": "move", "move": {"a": 1}, "ply": 0}, None),
        ("opponent", {"type": "move", "move": "1", "ply": 0}, "It is not your turn"),
        (
            "spectator",
            {"type": "move", "move": "1", "ply": 0},
            "You are watching this match: only its players can",
        ),
        ("spectator", {"type": "resign"}, "You are watching this match: only its players can"),
        (
            "spectator",
            {"type": "claim", "result": "win"},
            "You are watching this match: only its players can",
        ),
        ("mover", {"type": "answer_draw", "answer": "accept"}, None),  # no offer to accept
        ("mover", {"type": "withdraw_draw"}, None),
        ("mover", {"type": "claim", "result": "draw"}, None),  # the opponent is here
    ],
)
async def test_a_refused_frame_changes_nothing_and_says_what_its_post_says(who, frame, words):
    match, (t1, one), (t2, two) = await players()
    token, page = {"mover": (t1, one), "opponent": (t2, two), "spectator": (None, None)}[who]
    if page is None:
        page, _ = await connect(match.public_id)
        await board_from(page)
    await send(page, **frame)
    answer = await answer_from(page)
    said = notice_of(answer)
    assert said, answer
    if words is not None:
        assert said.startswith(words)
    assert ply_of(answer) == 0
    assert await moves_of(match) == []
    after = await reload(match)
    assert (after.version, after.status) == (match.version, match.status)
    # The POST of the same action, from the same browser, says the same words.
    post = await database_sync_to_async(posted)(match, token, frame)
    assert post.status_code >= 400
    assert notice_of(post.content.decode()) == said
    for communicator in {one, two, page}:
        await communicator.disconnect()


def posted(match, token, frame):
    client = client_with_token(token, HTTP_HX_REQUEST="true")
    fields = {k: v for k, v in frame.items() if k != "type" and isinstance(v, str | int)}
    if isinstance(frame.get("ply"), bool):
        fields.pop("ply")
    return client.post(reverse(frame["type"], args=[match.public_id]), fields)


async def test_draw_offer_answer_and_resign_by_frames():
    match, (_, one), (_, two) = await players()
    await send(one, type="move", move="1", ply=0)
    await answer_from(one)
    await send(two, type="move", move="2", ply=1)
    await answer_from(two)
    await send(one, type="offer_draw")
    offered = await answer_from(one)
    assert "Withdraw the offer" in offered
    assert "Accept the draw" in await board_from(two)
    await send(two, type="answer_draw", answer="decline")
    declined = await answer_from(two)
    assert "Accept the draw" not in declined
    assert (await reload(match)).draw_offer is None
    await send(two, type="resign")
    over = await answer_from(two)
    after = await reload(match)
    assert after.status == Match.Status.FINISHED and after.winner_seat == 1
    assert ply_of(over) == 2
    for communicator in (one, two):
        await communicator.disconnect()


async def test_against_the_computer_a_draw_offer_frame_is_answered_at_once():
    match, token, _ = await database_sync_to_async(make_match)("bit-flip", mode="computer")
    page, _ = await connect(match.public_id, token)
    await board_from(page)
    await send(page, type="move", move="1", ply=0)
    await answer_from(page)
    await send(page, type="offer_draw")
    answer = await answer_from(page)
    assert "declines" in notice_of(answer) or "draw" in notice_of(answer).lower()
    assert (await reload(match)).draw_offer is None
    await page.disconnect()


async def test_move_frames_count_against_the_move_rate_limit_as_posts_do():
    rates = {**settings.RATE_LIMITS, "move": ("2/m", "1000/m")}
    with override_settings(RATE_LIMITS=rates):
        match, (_, one), (_, two) = await players()
        await send(one, type="move", move="1", ply=0)
        await answer_from(one)
        await send(one, type="move", move="3", ply=1)  # refused (not its turn), and counted
        assert notice_of(await answer_from(one)).startswith("It is not your turn")
        await send(two, type="move", move="2", ply=1)  # another browser: its own count
        await answer_from(two)
        await send(one, type="move", move="3", ply=2)
        assert notice_of(await answer_from(one)) == TOO_FAST
        assert await moves_of(match) == [(1, "1"), (2, "2")]
        for communicator in (one, two):
            await communicator.disconnect()


async def test_a_move_frame_draws_each_kinds_board_once_and_answers_with_the_movers(counted):  # noqa: F811
    """The mover's answer is the board its kind's push drew: no render of its own."""
    _, (_, one), (_, two) = await players("last-bit-standing")
    counted.update(queries=0, renders=0)
    await send(one, type="move", move="0", ply=0)
    answer = await answer_from(one)
    assert ply_of(await board_from(two)) == ply_of(answer) == 1
    assert counted["renders"] == 2  # seat 1's and seat 2's boards, nothing else
    for communicator in (one, two):
        await communicator.disconnect()


def _pool_in_use():
    """Connections of this process's PostgreSQL pool that some thread holds."""
    from django.db import connections

    stats = connections["default"].pool.get_stats()
    return stats.get("pool_size", 0) - stats.get("pool_available", 0)


@pytest.mark.services
async def test_a_frames_thread_gives_its_connection_back_to_the_pool():
    """On PostgreSQL a frame's action runs on a thread of the loop's pool, which outlives
    the action: its connection must go back to the pool as the action ends, or every loop
    that ends takes one with it (each test's loop did, until the pool ran dry)."""
    match, (_, one), (_, two) = await players()
    before = _pool_in_use()
    for ply, (page, move) in enumerate([(one, "1"), (two, "2"), (one, "3")]):
        await send(page, type="move", move=move, ply=ply)
        await answer_from(page)
        assert _pool_in_use() <= before
    assert await moves_of(match) == [(1, "1"), (2, "2"), (3, "3")]
    for page in (one, two):
        await page.disconnect()
