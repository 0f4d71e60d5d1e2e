"""What a browser does with accounts, through Django's test client."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.test import Client

from accounts.models import Profile
from games.models import Match, hash_secret
from games.rules import get_game

PASSWORD = "a-long-enough-password-42"


def form_data(slug: str, **overrides) -> dict:
    """The new-match form of ``slug``, as the page posts it (a friend, I start)."""
    game = get_game(slug)
    data = {f"{slug}-{o.name}": str(o.default) for o in game.options}
    data.update({f"{slug}-first": "me", f"{slug}-opponent": "friend", f"{slug}-level": "strong"})
    data.update({f"{slug}-{k}": v for k, v in overrides.items()})
    return data


def create(client: Client, slug: str = "bit-flip", **overrides) -> Match:
    """Start a match from the game's page; the new match."""
    response = client.post(f"/games/{slug}/new/", form_data(slug, **overrides))
    assert response.status_code == 303, response.content.decode()[:500]
    public_id = re.search(r"/m/([\w-]{16})/$", response["Location"]).group(1)
    return Match.objects.get(public_id=public_id)


def join(client: Client, match: Match, name: str = "") -> Match:
    response = client.post(f"/m/{match.public_id}/join", {"name": name})
    assert response.status_code == 303, response.content.decode()[:500]
    match.refresh_from_db()
    return match


def move(client: Client, match: Match, text: str):
    """A move as the page posts it with htmx; the response (the board, with the status of
    a refusal: 403 not a player, 409 not now)."""
    match.refresh_from_db()
    return client.post(
        f"/m/{match.public_id}/move", {"move": text, "ply": match.ply}, HTTP_HX_REQUEST="true"
    )


def sign_up(client: Client, username: str, password: str = PASSWORD, **extra) -> User:
    data = {"username": username, "password1": password, "password2": password, **extra}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 303, response.content.decode()[:2000]
    return User.objects.get(username=username)


def sign_in(client: Client, username: str, password: str = PASSWORD, **extra):
    return client.post("/accounts/login/", {"username": username, "password": password, **extra})


def account(username: str, password: str = PASSWORD) -> User:
    """An account made elsewhere (the admin, createsuperuser): no profile yet."""
    return User.objects.create_user(username, password=password)


def token_of(user: User) -> str:
    return Profile.objects.get(user=user).token


def holds(match: Match, user: User) -> set[int]:
    """The seats of ``match`` held by ``user``'s account (its user and its secret)."""
    match.refresh_from_db()
    secret = hash_secret(token_of(user))
    return {
        seat
        for seat in (1, 2)
        if match.seat_user_id(seat) == user.pk and match.seat_secret_hash(seat) == secret
    }


def session_token(client: Client) -> str | None:
    return client.session.get("token")


# ---- matches between accounts, straight through the write path -----------------------------


def seat_token(user: User | None) -> str:
    """The secret a browser signed into ``user`` holds (a fresh anonymous one for None)."""
    from accounts.signin import profile_of
    from games.models import new_secret

    return profile_of(user).token if user is not None else new_secret()


def match_of(
    user: User,
    game: str = "bit-flip",
    *,
    mode: str = "friend",
    opponent: User | None = None,
    joined: bool = True,
    first: str = "me",
) -> Match:
    """A match created by ``user`` (signed in), joined by ``opponent`` (an account, or an
    anonymous browser when None) unless ``joined`` is False."""
    from games import play

    match = play.create_match(
        game,
        token=seat_token(user),
        mode=mode,
        first=first,
        level="random" if mode == "computer" else "",
        name=user.get_username(),
        user=user,
    )
    if mode == "friend" and joined:
        name = opponent.get_username() if opponent is not None else "Anon"
        play.join(match.public_id, token=seat_token(opponent), name=name, user=opponent)
    match.refresh_from_db()
    return match


def actor_of(user: User):
    from games import play

    return play.Actor(token=seat_token(user))
