"""The solver's memory on a real server: thirty games against the perfect computer, each
with other options, played over HTTP as a browser plays them; the server's RSS before
and after (issue: a server went from 73 to 515 MB over such games).

Each game is a new browser (its own cookies): it creates a Bitwise Battle match against
the perfect computer ("divisible by k", a different k each time, 64 bits at most), moves
with random legal bits, and asks the computer for its reply after each move, as the page
does, until the game ends.
"""

from __future__ import annotations

import random
import re

import aiohttp

from benchmarks.load import CSRF_HEADER_RE, PLY_RE

STATUS_RE = re.compile(r'data-status="(\w+)"')
FINISHED_RE = re.compile(r'id="result"')


async def play_one(base: str, divisor: int, max_length: int, rng: random.Random) -> int:
    """One whole game against the perfect computer; returns the plies played."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.get(f"{base}/games/bitwise-battle/") as r:
            token = CSRF_HEADER_RE.search(await r.text()).group(1)
        form = {
            "bitwise-battle-condition": "divisible",
            "bitwise-battle-target": str(divisor),
            "bitwise-battle-max_length": str(max_length),
            "bitwise-battle-first": "me",
            "bitwise-battle-opponent": "computer",
            "bitwise-battle-level": "perfect",
        }
        headers = {"X-CSRFToken": token, "Origin": base}
        async with http.post(f"{base}/games/bitwise-battle/new/", data=form, headers=headers) as r:
            if r.status != 200 or "/m/" not in str(r.url):
                raise RuntimeError(f"creating a match answered {r.status} at {r.url}")
            path = r.url.path
        htmx = headers | {"HX-Request": "true"}
        ply = 0
        for _ in range(2 * max_length + 2):
            async with http.post(
                f"{base}{path}move", data={"move": rng.choice("01"), "ply": ply}, headers=htmx
            ) as r:
                body = await r.text()
                if r.status != 200:
                    raise RuntimeError(f"a move answered {r.status}")
            ply = int(PLY_RE.search(body).group(1))
            if FINISHED_RE.search(body):
                return ply
            async with http.post(f"{base}{path}computer", headers=htmx) as r:
                body = await r.text()
            ply = int(PLY_RE.search(body).group(1))
            if FINISHED_RE.search(body):
                return ply
        raise RuntimeError("the game did not end")


async def solver_memory(server, games: int, max_length: int, seed: int = 1) -> dict:
    """RSS before and after ``games`` games with ``games`` different divisors."""
    rng = random.Random(seed)
    before = server.memory()
    plies = []
    for n in range(games):
        plies.append(await play_one(server.url, 1000 - n, max_length, rng))
    after = server.memory()
    return {
        "games": games,
        "max_length": max_length,
        "plies": plies,
        "rss_before_mib": before["VmRSS"] / 1024,
        "rss_after_mib": after["VmRSS"] / 1024,
        "peak_mib": after["VmHWM"] / 1024,
    }
