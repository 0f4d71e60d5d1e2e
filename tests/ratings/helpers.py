"""Accounts and rated matches for the ratings tests."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from games import play
from games.models import Match, new_secret
from tests.factories import actor, both_moved, client_with_token


def account(name: str):
    return get_user_model().objects.create_user(name, password=None)


def rated_match(user1, user2, game="bit-flip", *, rated=True, **kwargs):
    """A friend's match created by ``user1`` (seat 1, moves first) and joined by ``user2``;
    returns the match and the two browsers' tokens."""
    token1, token2 = new_secret(), new_secret()
    match = play.create_match(
        game, token=token1, user=user1, rated=rated, name=user1.username.title(), **kwargs
    )
    play.join(match.public_id, token=token2, user=user2, name=user2.username.title())
    match.refresh_from_db()
    return match, token1, token2


def resign(match: Match, token: str) -> Match:
    """The holder of ``token`` resigns (and loses), once both players have moved (before,
    resigning aborts the game: games.rights.resigning_aborts)."""
    both_moved(match)
    return play.resign(match.public_id, by=actor(match, token))


def signed_in(user, token: str | None = None) -> Client:
    """A browser signed in as ``user`` (holding ``token``'s seats, if given)."""
    client = client_with_token(token)
    client.force_login(user)  # keeps the session's data (the token) under a new key
    return client


def sign_in_browser(page, base: str, user) -> None:
    """Sign a Playwright page's browser context in as ``user``: the session cookie of a
    test client's ``force_login`` (the server reads the session from the database)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
