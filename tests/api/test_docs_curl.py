"""docs/features/api.md's curl examples, run as written, in order, against a live daphne:
each exits 0 (a stream bounded by --max-time may end by it) and prints JSON or NDJSON; and
they did what the page says they do."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from games.models import Match
from people.models import Challenge
from tests.api.helpers import token_for
from tests.api.live_api import call
from tests.ratings.helpers import account

pytestmark = pytest.mark.django_db(transaction=True)

DOC = Path(__file__).resolve().parents[2] / "docs" / "features" / "api.md"
CURL_TIMED_OUT = 28


def blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.S)


def objects(output: str) -> list:
    """The JSON values printed one after another (curl adds no newline after a body)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(output) and output[at].isspace():
            at += 1
        if at == len(output):
            return found
        value, at = decoder.raw_decode(output, at)  # anything else fails the test
        found.append(value)


def test_the_page_has_examples_of_every_kind():
    text = "\n".join(blocks())
    for needed in (
        "/api/account",
        "/api/challenges/",
        "/move",
        "/api/stream/game/",
        "/api/stream/event",
    ):
        assert needed in text


def test_every_curl_example_runs(live_server_url):
    assert shutil.which("curl"), "curl is needed (.ci/run installs it)"
    base = live_server_url
    me, other, third = account("ada"), account("bob"), account("cy")
    token, other_token = token_for(me), token_for(other)
    # A challenge bob sent, one cy sent, and a game of ada's in which she moves first.
    status, challenge = call(base, "POST", "/challenges/ada", other_token, {"game": "bit-flip"})
    assert status == 200
    status, declined = call(base, "POST", "/challenges/ada", token_for(third), {"game": "bit-flip"})
    assert status == 200
    status, game = call(base, "POST", "/challenges/bob", token, {"game": "bit-flip", "first": "me"})
    assert status == 200
    status, started = call(base, "POST", f"/challenges/{game['id']}/accept", other_token)
    assert status == 200
    env = {
        **os.environ,
        "BITSITE": base,
        "TOKEN": token,
        "PLAYER": "bob",
        "CHALLENGE": challenge["id"],
        "OTHER": declined["id"],
        "GAME": started["game_id"],
    }
    for block in blocks():
        done = subprocess.run(
            ["sh", "-c", block], env=env, capture_output=True, text=True, timeout=60
        )
        ended_by_max_time = "--max-time" in block and done.returncode == CURL_TIMED_OUT
        assert done.returncode == 0 or ended_by_max_time, (block, done.stderr)
        assert objects(done.stdout), block
    # They did what the page says.
    assert Challenge.objects.get(public_id=challenge["id"]).status == Challenge.Status.ACCEPTED
    said_no = Challenge.objects.get(public_id=declined["id"])
    assert (said_no.status, said_no.reason) == (Challenge.Status.DECLINED, "later")
    opened = Match.objects.get(game="last-bit-standing")
    assert opened.seat1_user == me and opened.status == Match.Status.WAITING
    assert Challenge.objects.filter(challenger=me, challenged=other, status="open").exists()
    played = Match.objects.get(public_id=started["game_id"])
    assert played.status == Match.Status.FINISHED and played.ending == Match.Ending.ABORTED
    assert played.draw_offer is None
    assert list(played.moves.values_list("text", flat=True)) == ["4 5"]
