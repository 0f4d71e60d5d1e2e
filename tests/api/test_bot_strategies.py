"""examples/bot.py without the site's server: its strategies against the site's own rules
(on random games against a random opponent each chooses one of the legal moves from the
position's JSON as the API gives it, and does what examples/README.md says it does), and
its HTTP calls answered by something that is not the API."""

from __future__ import annotations

import importlib.util
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import get_game

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
_spec = importlib.util.spec_from_file_location("example_bot", BOT)
bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bot)

OPTIONS = {
    "last-bit-standing": [{}],
    "bit-flip": [{"width": 8}, {"width": 7}, {"width": 1}, {"width": 2}, {"width": 13}],
    "last-digit-standing": [{}, {"highest": 15}],
    "bitwise-battle": [
        {},
        {"condition": "divisible", "target": 5, "max_length": 6},
        {"condition": "ones", "target": 3, "max_length": 8},
        {"condition": "equals", "target": 9, "max_length": 5},
    ],
    "bit-flip-divisor": [{}, {"divisor": 2}, {"divisor": 11}, {"divisor": 255}],
}
PLIES = 200  # Last Bit Standing need never end: a random opponent blunders long before


def playout(slug: str, options: dict, bot_player: int, seed: int):
    """The bot (as player ``bot_player``) against random legal moves; the final position
    and each (position before, the bot's move) of the bot's turns."""
    game, rng = get_game(slug), random.Random(seed)
    position, last, turns = game.start(**options), None, []
    choose = bot.STRATEGIES[slug]
    for _ in range(PLIES):
        legal = game.legal_moves(position)
        if not legal:
            break
        if position.to_move == bot_player:
            move = choose(game.to_json(position), legal, last)
            assert move in legal, (slug, options, game.to_json(position), move)
            turns.append((position, move))
        else:
            move = rng.choice(legal)
        position, last = game.play(position, move), move
    return game, position, turns


@pytest.mark.parametrize("slug", sorted(OPTIONS))
@settings(max_examples=40, deadline=None)
@given(data=st.data(), bot_player=st.sampled_from([1, 2]), seed=st.integers(0, 2**32))
def test_the_bot_always_chooses_a_legal_move(slug, data, bot_player, seed):
    options = data.draw(st.sampled_from(OPTIONS[slug]))
    playout(slug, options, bot_player, seed)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_last_bit_standing_the_bot_never_makes_a_multiple_of_3(seed):
    _, end, _ = playout("last-bit-standing", {}, 1, seed)
    assert end.result is None or end.result.winner == 1


@settings(max_examples=40, deadline=None)
@given(width=st.integers(1, 20), seed=st.integers(0, 2**32))
def test_bit_flip_by_symmetry_the_bot_moving_first_always_wins(width, seed):
    _, end, _ = playout("bit-flip", {"width": width}, 1, seed)
    assert end.result is not None and end.result.winner == 1


@pytest.mark.parametrize("slug", ["bit-flip-divisor", "bitwise-battle", "last-digit-standing"])
@settings(max_examples=40, deadline=None)
@given(data=st.data(), bot_player=st.sampled_from([1, 2]), seed=st.integers(0, 2**32))
def test_the_bot_takes_a_win_at_once_when_there_is_one(slug, data, bot_player, seed):
    options = data.draw(st.sampled_from(OPTIONS[slug]))
    game, _, turns = playout(slug, options, bot_player, seed)
    for position, move in turns:
        wins_now = [
            m
            for m in game.legal_moves(position)
            if (after := game.play(position, m)).result is not None
            and after.result.winner == position.to_move
        ]
        if wins_now:
            assert move in wins_now, (game.to_json(position), move, wins_now)


class ProxyErrorPage(BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body>502 Bad Gateway</body></html>")

    def log_message(self, *args):
        pass


def test_an_answer_that_is_not_json_is_an_error_not_a_crash():
    server = ThreadingHTTPServer(("127.0.0.1", 0), ProxyErrorPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        api = bot.Api(f"http://127.0.0.1:{server.server_address[1]}", "bit_x")
        status, answer = api.call("POST", "/games/x/move", {"move": "1", "ply": 0})
    finally:
        server.shutdown()
        server.server_close()
    assert status == 502
    assert answer["error"] == "not_json" and "Bad Gateway" in answer["message"]
