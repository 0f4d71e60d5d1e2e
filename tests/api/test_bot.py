"""examples/bot.py against a live daphne: it accepts a challenge and plays a whole game
against a player using the API, and two copies of it play each other to the end."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from accounts import bots
from games.models import Match
from tests.api.helpers import token_for
from tests.api.live_api import call
from tests.api.streaming import Stream
from tests.factories import until_sync
from tests.ratings.helpers import account

pytestmark = pytest.mark.django_db(transaction=True)

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def start_bot(base: str, name: str, artifacts: Path) -> tuple[subprocess.Popen, object]:
    user = account(name)
    bots.make_bot(user)
    log = open(artifacts / f"bot-{name}.log", "w")  # noqa: SIM115 (closed by the test)
    process = subprocess.Popen(
        [sys.executable, str(BOT), "--url", base, "--token", token_for(user)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return process, log


def stop(process: subprocess.Popen, log) -> int | None:
    """Ctrl-C, as its README says to stop it; its exit status (None: it had to be killed)."""
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None
    finally:
        log.close()


def test_the_example_bot_accepts_and_plays_a_whole_game(live_server_url, artifacts):
    base = live_server_url
    process, log = start_bot(base, "bitbot", artifacts)
    try:
        ada = account("ada")
        token = token_for(ada)
        status, challenge = call(
            base, "POST", "/challenges/bitbot", token, {"game": "bit-flip", "first": "me"}
        )
        assert status == 200, challenge
        events = Stream(base, "/api/stream/event", token)
        start = events.until(lambda e: e["type"] == "gameStart", timeout=60)
        game_id = start["game"]["id"]
        game = Stream(base, f"/api/stream/game/{game_id}", token)
        state = game.next()["state"]
        while state["status"] != "finished":
            if state["to_move_seat"] == start["game"]["seat"]:
                move = state["legal_moves"][-1]
                status, answer = call(
                    base,
                    "POST",
                    f"/games/{game_id}/move",
                    token,
                    {"move": move, "ply": state["ply"]},
                )
                assert status == 200, answer
            state = game.next(timeout=60)
            assert state is not None, "the game's stream ended before the game"
        match = Match.objects.get(public_id=game_id)
        assert match.status == Match.Status.FINISHED and match.winner is not None
        assert match.moves.filter(seat=2).exists()  # the bot moved
        # Bit Flip by symmetry, second to move against an opening on the edge: the bot wins.
        assert match.seat_user_id(match.seat_of_player(match.winner)) == match.seat2_user_id
    finally:
        stopped = stop(process, log)
    assert stopped == 0, "Ctrl-C did not stop the bot cleanly"
    assert "stopped" in (artifacts / "bot-bitbot.log").read_text()


def test_two_bots_play_each_other(live_server_url, artifacts):
    base = live_server_url
    first, first_log = start_bot(base, "robo", artifacts)
    second, second_log = start_bot(base, "droid", artifacts)
    try:
        robo = get_user_model().objects.get(username="robo")
        # robo challenges droid (a program's challenge; droid's process accepts it).
        status, challenge = call(
            base, "POST", "/challenges/droid", token_for(robo), {"game": "last-digit-standing"}
        )
        assert status == 200, challenge

        def finished():
            return Match.objects.filter(status=Match.Status.FINISHED).exists()

        until_sync(finished, timeout=90)
        match = Match.objects.get()
        assert match.winner is not None and match.ply >= 1
        assert {match.seat1_user.username, match.seat2_user.username} == {"robo", "droid"}
    finally:
        stopped = [stop(first, first_log), stop(second, second_log)]
    assert stopped == [0, 0], "Ctrl-C did not stop a bot cleanly"
