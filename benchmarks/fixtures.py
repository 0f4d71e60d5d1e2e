"""Benchmark data, made through the site's own code in a child process.

Run by benchmarks.run with the server's environment (DATABASE_URL, REDIS_URL),
so that the data lands in the database the server under test reads:

    python -m benchmarks.fixtures prepare            migrate, and make the bare table
    python -m benchmarks.fixtures matches COUNT      friend matches, joined, as JSON lines

Matches are made with games.play (create_match, then join), exactly as two
browsers make them; each seat's secret goes into a real database session, whose
key the load generator sends as the ``sessionid`` cookie, so each socket and each
POST belongs to its seat.
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
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
