"""Small factories for matches, seats and sessions."""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import connections
from django.test import Client

from games import play
from games.models import Match, new_secret


def make_match(
    game="bit-flip",
    *,
    mode="friend",
    joined=True,
    options=None,
    first="me",
    level="",
    name="Ada",
    opponent="Bob",
    time_control=None,
):
    """A match and the tokens of the browsers holding its seats (seat 1, seat 2)."""
    token1 = new_secret()
    match = play.create_match(
        game,
        token=token1,
        options=options,
        mode=mode,
        first=first,
        level=level or ("perfect" if mode == "computer" else ""),
        name=name,
        opponent_name=opponent if mode == "hotseat" else "",
        time_control=time_control,
    )
    token2 = token1 if mode == "hotseat" else None
    if mode == "friend" and joined:
        token2 = new_secret()
        play.join(match.public_id, token=token2, name=opponent)
    match.refresh_from_db()
    return match, token1, token2


def both_moved(match: Match) -> Match:
    """Each side's first move (the first legal one) in a friend's match, until both players
    have moved."""
    match.refresh_from_db()
    while match.ply < 2 and match.status == Match.Status.PLAYING and match.mode == "friend":
        seat = match.seat_of_player(match.current.to_move)
        move = match.rules.legal_moves(match.current)[0]
        by = play.Actor(frozenset({seat}))
        play.submit_move(match.public_id, by=by, text=move, ply=match.ply)
        match.refresh_from_db()
    return match


def actor(match: Match, token: str | None) -> play.Actor:
    return play.Actor(frozenset(match.seats_for([token])) if token else frozenset())


def client_with_token(token: str | None, **kwargs) -> Client:
    """A test client whose session holds ``token`` (a browser holding that seat)."""
    client = Client(**kwargs)
    if token:
        session = client.session
        session["token"] = token
        session.save()
        client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    return client


def mover_token(match: Match, token1: str, token2: str) -> str:
    """The token of the browser whose turn it is."""
    match.refresh_from_db()
    seat = match.seat_of_player(match.current.to_move)
    return token1 if seat == 1 else token2


async def until(condition, timeout: float = 30.0, every: float = 0.01) -> None:
    """Wait until ``condition()`` holds, looking every ``every`` seconds: a wait for what
    happens, never a fixed sleep; past ``timeout`` seconds (a busy machine gets them all)
    the test fails, saying so."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not so after {timeout} s: {condition}")
        await asyncio.sleep(every)


def until_sync(condition, timeout: float = 30.0, every: float = 0.01) -> None:
    """``until`` for a test without an event loop (threads it started, a server in another
    process)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not so after {timeout} s: {condition}")
        time.sleep(every)


def at_once(n: int, work) -> list:
    """``work(i)`` in ``n`` threads started together (each on a database connection of its
    own, closed after): what each returned, or the exception it raised."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except BaseException as error:  # handed to the test
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive(), "a thread is stuck (a deadlock?)"
    return results
