"""The settings the tests run with: the site's own (bitsite/settings.py), read from the
same environment, with two differences.

Passwords are hashed with a fast hasher, as Django's documentation advises for tests
("Speeding up the tests"): the site's PBKDF2 takes a third of a second a hash on these
machines, and the suite signs hundreds of accounts up and in. What a hash is made with
changes nothing any test checks.

For a suite run in several processes (make test: pytest-xdist), each test process (and
every daphne it starts, which inherits its environment) takes a Redis database of its
own: the channel layer's groups (the lobby's, the watch page's) and the presence sets
have site-wide names, so two processes sharing one database would see each other's
challenges and pages. PostgreSQL needs nothing: pytest-django gives each process a test
database of its own, and so does tests/conftest.py on SQLite.
"""

import os
import re

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1"... under xdist
if _worker.startswith("gw") and os.environ.get("REDIS_URL"):
    # Databases 1, 2, ... (the benchmark uses 13): the same on every import, so a daphne
    # started by a test, importing this again, keeps its test process's database.
    number = 1 + int(_worker[2:])
    os.environ["REDIS_URL"] = re.sub(r"(/\d+)?$", f"/{number}", os.environ["REDIS_URL"], count=1)

# Every test client and browser comes from 127.0.0.1: the harness exempts it from the
# limits per address (the site exempts no address by default), as a load test on the same
# host would; the tests of those limits use addresses of their own (tests/test_limits.py).
os.environ.setdefault("BITSITE_RATE_EXEMPT", "127.0.0.1,::1")

from bitsite.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
