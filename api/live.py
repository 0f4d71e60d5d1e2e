"""The API's NDJSON streams, fed by the same after-commit messages the pages get.

How a change reaches a stream: the write path commits and sends ``match_changed``
(games/signals.py; people's ``challenge_changed`` for a challenge); the receivers here
ask the presence store (games/presence.py) in one round trip whether any stream of that
game, or of its players' accounts, is open in any process; if one is, they draw the
event's line once (api/state.py) and publish it to the stream's group through the live
layer's publisher (games/live.py: never holding up the write, kept through a Redis
outage). Each stream is a channel of the channel layer in that group: it forwards the
lines it receives, reading the database only once, for its first lines. So a change
costs one line drawn whether one program streams the game or two hundred, and nothing
when none does.

A stream is a member of expiring sets, like a page's socket: its game's or its
account's (so the receivers know it is there), its token's (at most
``settings.API_STREAMS_PER_TOKEN`` open at once) or its address's, and, for a player
streaming its own game, its seat's (the player counts as connected: the opponent cannot
claim the game as abandoned while its stream is open). It renews them every
``presence.HEARTBEAT`` however busy it is, takes its place in the token's set in one
atomic step (streams opened at once cannot all pass the cap), and, closed by its client,
is cancelled by Django's ASGI handler and leaves them all at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from accounts.models import Profile
from games import presence
from games.live import publisher
from games.models import Match
from games.presenters import presenter_for

log = logging.getLogger(__name__)

KEEP_ALIVE = 10.0  # seconds of silence before an empty line
ADDRESS_FACTOR = 5  # anonymous streams one address may hold: this times the token's limit


def game_group(public_id: str) -> str:
    return f"api.game.{public_id}"


def user_group(user_id: int) -> str:
    return f"api.user.{user_id}"


def game_set(public_id: str) -> str:
    return f"api-game:{public_id}"


def user_set(user_id: int) -> str:
    return f"api-user:{user_id}"


def token_set(token_id: int) -> str:
    return f"api-token:{token_id}"


def account_group(user_id: int) -> str:
    """Every stream opened with a token of the account: told to check its token again."""
    return f"api.account.{user_id}"


def account_set(user_id: int) -> str:
    return f"api-account:{user_id}"


def address_set(address: str) -> str:
    return f"api-address:{address}"


def line(event: dict) -> str:
    return json.dumps(event, separators=(",", ":")) + "\n"


# ---- what a change tells (after commit, in the process that made it) -------------------


def last_move(match: Match) -> dict | None:
    if not match.ply:
        return None
    move = match.moves.order_by("-ply").values("ply", "player", "text").first()
    if move is None:
        return None
    presenter = presenter_for(match.rules)
    return {**move, "words": presenter.describe(move["text"], match.current)}


def game_summary(match: Match, seat: int) -> dict:
    return {
        "id": match.public_id,
        "game": match.game,
        "url": match.get_absolute_url(),
        "seat": seat,
        "opponent": match.seat_name(3 - seat),
        "rated": match.rated,
    }


def match_changed(sender, match: Match, **kwargs) -> None:
    """games.signals.match_changed: the game's streams get its new state; the accounts
    seated get a gameStart when it begins and a gameFinish when it ends."""
    from api.state import now_state

    seated = [(seat, match.seat_user_id(seat)) for seat in (1, 2) if match.seat_user_id(seat)]
    counts = presence.counts([game_set(match.public_id)] + [user_set(uid) for _, uid in seated])
    if counts is None:
        counts = [1] * (1 + len(seated))  # unknown: send (a send to an empty group is cheap)
    if counts[0]:
        event = {"type": "state", **now_state(match), "move": last_move(match)}
        last = match.status == Match.Status.FINISHED
        publish(game_group(match.public_id), line(event), version=match.version, last=last)
    started = match.status == Match.Status.PLAYING and match.ply == 0
    finished = match.status == Match.Status.FINISHED and match.started_at is not None
    if not (started or finished):
        return
    for (seat, user_id), count in zip(seated, counts[1:], strict=True):
        if not count:
            continue
        summary = game_summary(match, seat)
        if finished:
            summary["result"] = now_state(match)["result"]
        kind = "gameFinish" if finished else "gameStart"
        text = line({"type": kind, "game": summary})
        publish(user_group(user_id), text, key=event_key(kind, match.public_id))


def challenge_changed(sender, challenge, user_ids: list[int], **kwargs) -> None:
    """people.signals.challenge_changed: both accounts' event streams get the challenge."""
    from api.routes.challenges import challenge_json

    counts = presence.counts([user_set(uid) for uid in user_ids])
    wanted = [uid for i, uid in enumerate(user_ids) if counts is None or counts[i]]
    if not wanted:
        return
    text = line({"type": "challenge", "challenge": challenge_json(challenge)})
    for user_id in wanted:
        publish(user_group(user_id), text)


def standing_changed(user_id: int) -> None:
    """After commit, when a token of the account was revoked or changed, or the account
    closed or made a bot or not: its open streams check their token again at once, and
    those it no longer admits end (within the round trip of one message)."""
    counts = presence.counts([account_set(user_id)])
    if counts is None or counts[0]:
        publisher.publish(account_group(user_id), {"type": "api.recheck"})


def token_saved(sender, instance, created: bool, **kwargs) -> None:
    """post_save of a token: revoked (or its scopes changed), its streams check it."""
    if not created:
        user_id = instance.user_id
        transaction.on_commit(lambda: standing_changed(user_id))


def account_saved(sender, instance, created: bool, **kwargs) -> None:
    """post_save of an account (closed?) or of its profile (a bot or not?): its streams
    check their tokens."""
    if created or (sender is not Profile and instance.is_active):
        return
    user_id = instance.user_id if sender is Profile else instance.pk
    transaction.on_commit(lambda: standing_changed(user_id))


def event_key(kind: str, public_id: str) -> str:
    return f"{kind}:{public_id}"


def publish(group: str, text: str, *, version: int = 0, key: str = "", last=False) -> None:
    message = {"type": "api.line", "line": text, "version": version, "key": key, "last": last}
    publisher.publish(group, message)


# ---- the streams -----------------------------------------------------------------------


class TooMany(Exception):
    """Too many streams open for this token (or address)."""


class First:
    """A stream's first lines, read once from the database: the version of the match they
    show (later messages of that version or older are stale), the keys of the events
    they tell (not told again), and whether the stream ends there (a finished game)."""

    def __init__(self, lines: list[str], version: int = 0, keys=(), done: bool = False):
        self.lines, self.version, self.keys, self.done = lines, version, set(keys), done


def opened(
    *,
    group: str,
    sets: list[str],
    cap: tuple[str, int] | None,
    first: Callable[[], First],
    seat: tuple[str, int] | None = None,
    account: tuple[int, Callable[[], bool]] | None = None,
) -> AsyncIterator[str]:
    """A stream's lines: refused (TooMany) now if ``cap`` (a set and how many members it
    may have) is full; else, once iterated, its channel joins ``group`` and the presence
    ``sets`` (and ``seat``'s: a player's own game), then ``first()``'s lines, then every
    line published to the group, an empty line every KEEP_ALIVE seconds, until a message
    marked ``last``. Whatever way it ends (the client gone: cancelled), it leaves them.

    ``account``: the stream's token's account and whether the token still stands
    (api.tokens.stands): the stream ends as soon as it does not (revoked, changed, the
    account closed), told through the account's group, and checked at every heartbeat."""
    # The stream's name in its sets. It takes its place in the capped set now, in one
    # atomic step (streams opened at once cannot all pass a count read before any joined);
    # should the answer never start, the place expires by itself within presence.TTL.
    member = f"api-stream.{uuid.uuid4().hex}"
    if cap is not None and presence.join_capped(member, *cap) is False:
        raise TooMany()
    names = [*sets, cap[0]] if cap else list(sets)
    groups = [group]
    standing = None
    if account is not None:
        user_id, standing = account
        names.append(account_set(user_id))
        groups.append(account_group(user_id))
    return _lines(groups, names, first, seat, member, standing)


async def _lines(groups, names, first, seat, member, standing) -> AsyncIterator[str]:
    layer = get_channel_layer()
    # Channels' default name, as every socket's: channels-redis reads all the channels
    # of a process through one Redis list per name prefix but under one lock, so a
    # stream's read of an "api." list held the lock while the sockets' list went unread.
    channel = await layer.new_channel()
    attended = reading = None
    try:
        # Members first, then the first lines: no change falls between the two.
        await presence.call(presence.join_sets, member, names)
        for group in groups:
            await layer.group_add(group, channel)
        if standing is not None and not await sync_to_async(standing)():
            return  # revoked between the request's check and the joins
        if seat is not None:
            attended = await presence.call(presence.attend, seat[0], member, seat[1])
        told = await sync_to_async(first)()
        for text in told.lines:
            yield text
        if not told.lines:
            yield "\n"  # the answer's head goes out with its first bytes: now, not later
        if told.done:
            return
        clock = asyncio.get_running_loop().time
        spoke = refreshed = clock()
        # One read of the channel stays pending across the keep-alive waits: a read
        # cancelled by a timeout may take a message with it (channels-redis drops what a
        # cancelled receive had in hand), and the stream would never tell that change.
        while True:
            # Its memberships are kept alive every HEARTBEAT, however busy the stream (a
            # game moving faster than KEEP_ALIVE must not let them expire: the receivers
            # would stop publishing to it), and an empty line follows KEEP_ALIVE of silence.
            if clock() - refreshed >= presence.HEARTBEAT:
                refreshed = clock()
                if standing is not None and not await sync_to_async(standing)():
                    return  # a change nobody told it of (a bulk update): checked anyway
                await presence.call(presence.join_sets, member, names)  # still here
                if attended is not None:
                    await presence.call(presence.refresh, attended)
            wait = min(spoke + KEEP_ALIVE, refreshed + presence.HEARTBEAT) - clock()
            if reading is None:
                reading = asyncio.ensure_future(layer.receive(channel))
            done, _ = await asyncio.wait({reading}, timeout=max(wait, 0.0))
            if not done:
                if clock() - spoke >= KEEP_ALIVE:
                    spoke = clock()
                    yield "\n"
                continue
            message, reading = reading.result(), None
            if message.get("type") == "layer.lost":
                return  # the channel layer failed (bitsite/layers.py): the client reconnects
            if message.get("type") == "api.recheck":
                if standing is not None and not await sync_to_async(standing)():
                    return  # the token no longer admits this stream
                continue
            if message.get("version") and message["version"] <= told.version:
                continue  # already told by the first lines
            key = message.get("key")
            if key:
                if key in told.keys:
                    continue  # told once (a game starts once, ends once)
                told.keys.add(key)
            spoke = clock()
            yield message["line"]
            if message.get("last"):
                return
    finally:
        if reading is not None:
            reading.cancel()  # the stream is closing: what it would read is nobody's
            await asyncio.wait({reading})
        try:
            for group in groups:
                await layer.group_discard(group, channel)
        except Exception as error:
            publisher.lost(error)
        await presence.call(presence.leave_sets, member, names)
        if attended is not None:
            await presence.call(presence.depart, attended)


def address_cap(address: str) -> tuple[str, int] | None:
    """The anonymous streams' cap for a client address (none for an exempt address)."""
    if not address or address in settings.RATE_LIMIT_EXEMPT:
        return None
    return address_set(address), settings.API_STREAMS_PER_TOKEN * ADDRESS_FACTOR
