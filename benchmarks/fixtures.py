"""Benchmark data, made through the site's own code in a child process.

Run by benchmarks.run with the server's environment (DATABASE_URL, REDIS_URL),
so that the data lands in the database the server under test reads:

    python -m benchmarks.fixtures prepare            migrate, and make the bare table
    python -m benchmarks.fixtures matches COUNT      friend matches, joined, as JSON lines
    python -m benchmarks.fixtures arena PLAYERS [OTHERS]
                                                     an arena starting in an hour, PLAYERS
                                                     accounts joined, OTHERS not: one JSON
    python -m benchmarks.fixtures start PUBLIC_ID    the event is due now (the server's
                                                     scheduler starts it on its next tick)

Matches are made with games.play (create_match, then join), exactly as two
browsers make them; each seat's secret goes into a real database session, whose
key the load generator sends as the ``sessionid`` cookie, so each socket and each
POST belongs to its seat.

Tournament players are accounts (``bench-t<n>``, with an unusable password: hashing a
thousand passwords would take minutes, and nobody signs in with one), each with a
signed-in session as Django's ``login`` leaves it (the user, the backend, the password's
session hash, and the account's seat secret as accounts/signin.py puts it there). They
join through the write path (``tournaments.director.join``).
"""

from __future__ import annotations

import json
import os
import sys

GAME = "last-bit-standing"


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")
    import django

    django.setup()


def prepare() -> None:
    from django.core.management import call_command
    from django.db import connection

    from benchmarks.baseline import create_table_sql

    call_command("migrate", interactive=False, verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(create_table_sql(connection.vendor))


def session_key(token: str) -> str:
    from importlib import import_module

    from django.conf import settings

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["token"] = token
    store.save()
    return store.session_key


def make_matches(count: int, game: str = GAME):
    from games import play
    from games.models import new_secret

    for _ in range(count):
        token1, token2 = new_secret(), new_secret()
        match = play.create_match(game, token=token1, first="me")
        play.join(match.public_id, token=token2)
        yield {
            "public_id": match.public_id,
            "game": game,
            "first_seat": match.first_seat,
            "sessions": {"1": session_key(token1), "2": session_key(token2)},
        }


def signed_in_session(user) -> str:
    """A session signed into ``user``'s account, as ``login`` (and accounts/signin.py)
    leave it; its key."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from accounts.signin import ACCOUNT_KEY, profile_of

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    pk = user._meta.pk.value_to_string(user)
    store[SESSION_KEY] = pk
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store["token"] = profile_of(user).token
    store[ACCOUNT_KEY] = pk
    store.save()
    return store.session_key


def make_accounts(count: int, start: int) -> list:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    users = []
    for n in range(start, start + count):
        user = get_user_model()(username=f"bench-t{n}", password=make_password(None))
        user.save()  # one at a time: saving makes the profile (accounts/models.py)
        users.append(user)
    return users


def make_arena(players: int, others: int = 0, game: str = GAME) -> dict:
    """An arena of ``game`` starting in an hour and lasting two, with ``players`` accounts
    joined and ``others`` not yet (each with its signed-in session)."""
    from datetime import timedelta

    from django.utils import timezone

    from tournaments import director

    event = director.create(
        name="Benchmark arena",
        kind="arena",
        game=game,
        starts_at=timezone.now() + timedelta(hours=1),
        minutes=120,
        rated=True,
    )
    joined = make_accounts(players, 1)
    waiting = make_accounts(others, players + 1)
    for user in joined:
        director.join(event.public_id, user)
    return {
        "public_id": event.public_id,
        "game": game,
        "players": [
            {"user_id": u.pk, "name": u.username, "session": signed_in_session(u)} for u in joined
        ],
        "others": [
            {"user_id": u.pk, "name": u.username, "session": signed_in_session(u)} for u in waiting
        ],
    }


def start_now(public_id: str) -> None:
    from django.utils import timezone

    from tournaments.models import Tournament

    Tournament.objects.filter(public_id=public_id).update(starts_at=timezone.now())


def main(argv: list[str]) -> int:
    _setup()
    if argv[:1] == ["prepare"]:
        prepare()
        return 0
    if argv[:1] == ["matches"] and len(argv) >= 2:
        game = argv[2] if len(argv) > 2 else GAME
        out = sys.stdout
        for row in make_matches(int(argv[1]), game):
            out.write(json.dumps(row) + "\n")
        out.flush()
        return 0
    if argv[:1] == ["arena"] and len(argv) >= 2:
        others = int(argv[2]) if len(argv) > 2 else 0
        sys.stdout.write(json.dumps(make_arena(int(argv[1]), others)) + "\n")
        return 0
    if argv[:1] == ["start"] and len(argv) == 2:
        start_now(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
