#!/usr/bin/env python3
"""A bot for bitsite, with Python's standard library only.

It streams its account's events, accepts every challenge to a game it knows (and
declines the rest), and plays each game on a thread of its own: it streams the game and,
whenever it is its turn, sends a move chosen by a simple strategy from the rule books.

    BITSITE_URL=http://127.0.0.1:8000 BITSITE_TOKEN=bit_... python examples/bot.py

The token needs the read, play and challenge scopes (settings page, API tokens).
See examples/README.md and docs/features/api.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import signal
import sys
import threading
from urllib.parse import urlsplit

log = logging.getLogger("bot")


class Api:
    """The site's API over HTTP: JSON calls, and NDJSON streams read a line at a time."""

    def __init__(self, url: str, token: str):
        parts = urlsplit(url)
        self.secure = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.secure else 80)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def _connection(self, timeout: float | None):
        kind = http.client.HTTPSConnection if self.secure else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=timeout)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        connection = self._connection(30)
        try:
            data = json.dumps(body or {}) if method == "POST" else None
            connection.request(method, "/api" + path, body=data, headers=self.headers)
            answer = connection.getresponse()
            text = answer.read()
            try:
                return answer.status, json.loads(text or b"{}")
            except ValueError:  # a proxy's error page, say: not the API's answer
                return answer.status, {"error": "not_json", "message": text[:200].decode("latin1")}
        finally:
            connection.close()

    def stream(self, path: str):
        """Each JSON object of an NDJSON stream, until it ends (empty lines: keep-alives)."""
        connection = self._connection(60)  # a keep-alive comes every 10 s
        try:
            connection.request("GET", "/api" + path, headers=self.headers)
            answer = connection.getresponse()
            if answer.status != 200:
                raise RuntimeError(f"{path}: {answer.status} {answer.read()[:200]!r}")
            while True:
                line = answer.readline()
                if not line:
                    return
                if line.strip():
                    yield json.loads(line)
        finally:
            connection.close()


# ---- strategies (simple ones, from the rule books) ------------------------------------------


def last_bit_standing(position: dict, legal: list[str], last: str | None) -> str:
    """Never make a multiple of 3: the number's remainder is kept; appending bit b makes
    it 2 * rem + b (mod 3)."""
    rem = position["rem"]
    for bit in legal:
        if (2 * rem + int(bit)) % 3:
            return bit
    return legal[0]


def bit_flip(position: dict, legal: list[str], last: str | None) -> str:
    """Kayles by symmetry: from the start, flip the middle bit (or the middle two), which
    leaves two equal runs; then answer each move with its mirror image."""
    bits, width = position["bits"], len(position["bits"])
    if "1" not in bits:
        middle = (width + 1) // 2
        move = str(middle) if width % 2 else f"{middle} {middle + 1}"
        if move in legal:
            return move
    if last:
        mirror = " ".join(str(width + 1 - int(n)) for n in reversed(last.split()))
        if mirror in legal:
            return mirror
    return legal[0]


def last_digit_standing(position: dict, legal: list[str], last: str | None) -> str:
    """Take a number that leaves the opponent no number dividing it or divisible by it,
    if there is one (that wins at once)."""
    remaining = position["remaining"]
    for move in legal:
        n = int(move)
        if not any(m != n and (m % n == 0 or n % m == 0) for m in remaining):
            return move
    return legal[0]


def first_legal(position: dict, legal: list[str], last: str | None) -> str:
    return legal[0]


def one_move_ahead(after, outcome, moves):
    """For the games won by meeting a condition: a move that wins at once, else one that
    neither loses nor leaves the opponent a move that wins at once, else any legal one.
    ``after`` is the position a move makes, ``outcome`` "win" or "loss" for the player who
    just moved there (None: the game goes on), ``moves`` the legal moves from it."""

    def choose(position: dict, legal: list[str], last: str | None) -> str:
        made = {move: after(position, move) for move in legal}
        for move in legal:
            if outcome(made[move]) == "win":
                return move
        for move in legal:
            new = made[move]
            if outcome(new) is None and not any(
                outcome(after(new, reply)) == "win" for reply in moves(new)
            ):
                return move
        going_on = [move for move in legal if outcome(made[move]) is None]
        return (going_on or legal)[0]

    return choose


def _flipped(position: dict, move: str) -> dict:
    at = int(move)
    bits = position["bits"]
    return {**position, "bits": bits[: at - 1] + "1" + bits[at:]}


def _divisor_outcome(position: dict) -> str | None:
    """Bit Flip: Divisor: a multiple of the divisor wins; so does flipping the last 0 bit
    (the opponent has none left to flip, and loses)."""
    bits = position["bits"]
    if int(bits, 2) % position["divisor"] == 0 or "0" not in bits:
        return "win"
    return None


def _zeros(position: dict) -> list[str]:
    return [str(at) for at, bit in enumerate(position["bits"], start=1) if bit == "0"]


def _appended(position: dict, move: str) -> dict:
    return {**position, "bits": position["bits"] + move}


def _battle_outcome(position: dict) -> str | None:
    """Bitwise Battle: meeting the condition wins; reaching the maximum length without it
    loses (a sequence of zeros is never "divisible", by the rulings)."""
    bits, target = position["bits"], position["target"]
    value = int(bits, 2) if bits else 0
    met = {
        "divisible": value > 0 and value % target == 0,
        "ones": bits.count("1") == target,
        "equals": value == target,
    }.get(position["condition"], False)
    if met:
        return "win"
    return "loss" if len(bits) >= position["max_length"] else None


def _bits_to_append(position: dict) -> list[str]:
    return ["0", "1"] if len(position["bits"]) < position["max_length"] else []


STRATEGIES = {
    "last-bit-standing": last_bit_standing,
    "bit-flip": bit_flip,
    "last-digit-standing": last_digit_standing,
    "bitwise-battle": one_move_ahead(_appended, _battle_outcome, _bits_to_append),
    "bit-flip-divisor": one_move_ahead(_flipped, _divisor_outcome, _zeros),
}


# ---- playing ---------------------------------------------------------------------------------


class Bot:
    def __init__(self, api: Api):
        self.api = api
        self.games: set[str] = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.name = ""

    def run(self) -> None:
        status, account = self.api.call("GET", "/account")
        if status != 200:
            raise SystemExit(f"The token does not work: {account.get('message', status)}")
        self.name = account["username"]
        log.info("playing as %s", self.name)
        wait = 1.0
        while not self.stopping.is_set():
            try:
                for event in self.api.stream("/stream/event"):
                    wait = 1.0
                    self.on_event(event)
            except (OSError, RuntimeError, ValueError, http.client.HTTPException) as error:
                log.warning("event stream lost (%s): again in %.0f s", error, wait)
            if not self.stopping.wait(wait):
                wait = min(wait * 2, 30.0)

    def on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = event["challenge"]
            if challenge["status"] != "open" or challenge["challenged"] != self.name:
                return
            if challenge["game"] in STRATEGIES:
                status, answer = self.api.call("POST", f"/challenges/{challenge['id']}/accept")
            else:
                status, answer = self.api.call(
                    "POST", f"/challenges/{challenge['id']}/decline", {"reason": "game"}
                )
            said = answer.get("status") if status == 200 else answer.get("message")
            log.info("challenge %s from %s: %s", challenge["id"], challenge["challenger"], said)
        elif kind == "gameStart":
            game = event["game"]
            with self.lock:
                if game["id"] in self.games:
                    return
                self.games.add(game["id"])
            threading.Thread(
                target=self.play, args=(game["id"], game["game"], game["seat"]), daemon=True
            ).start()

    def play(self, game_id: str, slug: str, seat: int) -> None:
        log.info("game %s (%s): seat %d", game_id, slug, seat)
        try:
            while not self.stopping.is_set():
                try:
                    if self.follow(game_id, STRATEGIES.get(slug, first_legal), seat):
                        return
                except (OSError, RuntimeError, ValueError, http.client.HTTPException) as error:
                    log.warning("game %s: stream lost (%s)", game_id, error)
                self.stopping.wait(1.0)  # then the game's stream again, from its full state
        finally:
            with self.lock:
                self.games.discard(game_id)

    def follow(self, game_id: str, choose, seat: int) -> bool:
        """Stream the game, moving on each turn; True once it is over."""
        for event in self.api.stream(f"/stream/game/{game_id}"):
            if event["type"] == "full":
                state, moves = event["state"], event["moves"]
                last = moves[-1]["text"] if moves else None
            else:
                state, last = event, (event.get("move") or {}).get("text")
            if state["status"] == "finished":
                log.info("game %s: %s", game_id, state["result"]["reason"])
                return True
            if state["to_move_seat"] != seat or not state["legal_moves"]:
                continue
            move = choose(state["position"], state["legal_moves"], last)
            status, answer = self.api.call(
                "POST", f"/games/{game_id}/move", {"move": move, "ply": state["ply"]}
            )
            if status != 200:  # a stale ply: the next state says what to do
                log.info("game %s: move %s refused: %s", game_id, move, answer.get("message"))
        return False


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("BITSITE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("BITSITE_TOKEN", ""))
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give a token: --token or BITSITE_TOKEN")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)
    bot = Bot(Api(args.url.rstrip("/"), args.token))
    # Ctrl-C stops it, and so does a TERM (a service manager's stop), even when it was started
    # from a shell that runs it in the background: such a shell makes it ignore SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        bot.run()
    except KeyboardInterrupt:
        bot.stopping.set()
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
