"""The lobby's load (client side, like benchmarks.load): pages watching the lobby, and
challenges made and accepted as browsers make them.

* ``LobbyPages``: many home-page websockets (``/ws/lobby/``, no session cookie: visitors).
  A "move" is one new challenge: the new-match form POSTed with "List it in the lobby"
  by a new browser (no session yet, a CSRF cookie of its own, as a first visit has after
  loading the form), named ``seq<n>``; it is timed from sending the POST to the row
  reaching each page (``Outcome.arrived``: the first page, ``Outcome.extra``: every other
  one, so ``load.moves_result`` gives the time to the LAST page, as the fan-out does).
  Its bare counterpart is ``load.BarePair`` with as many listeners.
* ``Churn``: challenges made and accepted at a fixed rate (open loop), by a pool of
  browsers that come back: the create POST, then another's accept POST. ``BareChurn`` is
  its bare counterpart: two bare inserts + group sends (to as many bare listeners as the
  churn has pages open) at the same rate, what any two writes a cycle would cost.

Everything talks to daphne over 127.0.0.1; nothing of Django is imported.
"""

from __future__ import annotations

import asyncio
import html
import math
import re
import secrets

from benchmarks import load
from games.rules import get_game

GAME = "last-bit-standing"  # no options: the form is the same every time
SEQ_RE = re.compile(r"by seq(\d+)<")
MATCH_PATH_RE = re.compile(r"^/m/([\w-]{16})/$")
FLASH_RE = re.compile(r'<li class="flash-[a-z]+">(.*?)</li>', re.S)


def parse_cards(text: str) -> int | None:
    """A watch page's frames: 0 for its snapshot, else nothing to wait for."""
    return 0 if 'id="watch-list"' in text else None


def parse_row(text: str) -> int | None:
    """The sequence number of the challenge a lobby frame adds (0 for the snapshot a page
    gets on connect, None for anything else, such as a row's removal)."""
    found = SEQ_RE.search(text)
    if found:
        return int(found.group(1))
    return 0 if 'id="challenge-list"' in text else None


def form(name: str) -> dict[str, str]:
    """The new-match form of GAME, a friend's match listed in the lobby."""
    game = get_game(GAME)
    data = {f"{GAME}-{o.name}": str(o.default) for o in game.options}
    data.update(
        {
            f"{GAME}-first": "me",
            f"{GAME}-opponent": "friend",
            f"{GAME}-time_control": "none",
            f"{GAME}-listed": "on",
            f"{GAME}-name": name,
        }
    )
    return data


async def post_as_new_browser(
    client: load.Client, target: load.Target, path: str, data: dict | None = None
) -> tuple[int, str]:
    """POST as a browser on its first visit: no session, a CSRF cookie of its own (the
    token sent in the form too). Returns the status and the Location (redirects are not
    followed)."""
    csrf = secrets.token_hex(16)  # 32 characters: Django's unmasked form of the secret
    data = dict(data or {})
    data["csrfmiddlewaretoken"] = csrf
    headers = {"Cookie": f"csrftoken={csrf}", "Origin": target.origin}
    async with client.session.post(
        target.http + path, data=data, headers=headers, allow_redirects=False
    ) as r:
        await r.read()
        return r.status, r.headers.get("Location", "")


class LobbyPages:
    """``count`` pages watching the lobby; a move opens one challenge."""

    def __init__(self, client: load.Client, target: load.Target, count: int):
        self.client = client
        self.target = target
        self.count = count
        self.sockets: list[load.Socket] = []
        self.seq = 0

    async def open(self) -> None:
        async def page(_) -> None:
            self.sockets.append(await self.client.socket(self.target, "/ws/lobby/", parse_row))

        await load.open_all(range(self.count), page)
        for sock in self.sockets:
            await asyncio.wait_for(asyncio.shield(sock.first), load.PUSH_TIMEOUT)

    async def move(self, scheduled: float) -> load.Outcome:
        self.seq += 1
        seq = self.seq
        waits = [sock.wait_for(seq) for sock in self.sockets]
        out = load.Outcome(scheduled=scheduled, sent=load.now())
        try:
            status, location = await post_as_new_browser(
                self.client, self.target, f"/games/{GAME}/new/", form(f"seq{seq}")
            )
            out.answered = load.now()
            if status != 303 or not MATCH_PATH_RE.match(location):
                out.error = f"HTTP {status}"
        except Exception as error:
            out.error = f"POST failed: {type(error).__name__}"
        if not out.error:
            try:
                out.arrived = await asyncio.wait_for(waits[0], load.PUSH_TIMEOUT)
                for fut in waits[1:]:
                    out.extra.append(await asyncio.wait_for(fut, load.PUSH_TIMEOUT))
            except (TimeoutError, ConnectionError) as error:
                out.error = f"row missing: {type(error).__name__}"
        for fut in waits:
            if not fut.done():
                fut.cancel()
        return out

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.sockets), return_exceptions=True)


class Browser:
    """A browser that has been on the site: its session and CSRF cookies, kept from one
    request to the next (a new one gets its session from its first POST)."""

    def __init__(self):
        self.cookies = {"csrftoken": secrets.token_hex(16)}
        self.last_set: dict[str, str] = {}

    async def post(
        self, client: load.Client, target: load.Target, path: str, data: dict | None = None
    ) -> tuple[int, str]:
        data = dict(data or {})
        data["csrfmiddlewaretoken"] = self.cookies["csrftoken"]
        headers = {
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
            "Origin": target.origin,
        }
        async with client.session.post(
            target.http + path, data=data, headers=headers, allow_redirects=False
        ) as r:
            await r.read()
            session = r.cookies.get("sessionid")
            if session is not None and session.value:
                self.cookies["sessionid"] = session.value
            # The rest (the messages' cookie) only for ``notice``: carried from one request
            # to the next it would grow, and change what the churn measures.
            self.last_set = {name: m.value for name, m in r.cookies.items() if m.value}
            return r.status, r.headers.get("Location", "")

    async def notice(self, client: load.Client, target: load.Target, path: str) -> str:
        """The first message of the page the last answer redirected to (a refusal's reason)."""
        cookies = {**self.cookies, **self.last_set}
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        async with client.session.get(
            target.http + path, headers=headers, allow_redirects=False
        ) as r:
            body = await r.text()
        found = FLASH_RE.search(body)
        return html.unescape(found.group(1)).strip()[:120] if found else f"HTTP {r.status}"


class Churn:
    """Challenges made by one browser and accepted by another, at a fixed rate (open loop),
    by a pool of browsers that come back (people in the lobby have sessions)."""

    def __init__(self, client: load.Client, target: load.Target, rate: float):
        self.client = client
        self.target = target
        self.rate = rate
        # The browsers not in a cycle now. A browser has at most one open challenge of a
        # game (a new one replaces it: games/play.py), so a cycle takes two idle browsers,
        # and one that finds none takes a new browser (someone arrives): on a busy
        # machine a cycle outlasts the interval, and a creator reused while its challenge
        # still waits would withdraw it.
        self.idle = [Browser() for _ in range(max(4, 2 * math.ceil(rate)))]
        self.n = 0

    def _browser(self) -> Browser:
        return self.idle.pop() if self.idle else Browser()

    async def cycle(self, n: int) -> str:
        """One challenge made and accepted: "" or what failed."""
        creator, taker = self._browser(), self._browser()
        try:
            return await self._cycle(n, creator, taker)
        finally:
            self.idle += [creator, taker]

    async def _cycle(self, n: int, creator: Browser, taker: Browser) -> str:
        try:
            status, location = await creator.post(
                self.client, self.target, f"/games/{GAME}/new/", form(f"churn{n}")
            )
            found = MATCH_PATH_RE.match(location)
            if status != 303 or not found:
                return f"create: HTTP {status}"
            path = f"/m/{found.group(1)}/"
            status, location = await taker.post(
                self.client, self.target, f"/lobby/{found.group(1)}/accept"
            )
            if status != 303 or location != path:
                if status == 303 and location:  # refused: the reason is on the page it leads to
                    why = await taker.notice(self.client, self.target, location)
                    return f"accept refused: {why}"
                return f"accept: HTTP {status}"
        except Exception as error:
            return f"failed: {type(error).__name__}"
        return ""

    async def run(self, until: float) -> dict:
        """Until ``until`` (load.now()); how many were done and failed."""
        interval = 1.0 / self.rate
        scheduled = load.now()
        tasks: list[asyncio.Task] = []
        while scheduled < until:
            delay = scheduled - load.now()
            if delay > 0:
                await asyncio.sleep(delay)
            self.n += 1
            tasks.append(asyncio.create_task(self.cycle(self.n)))
            scheduled += interval
        results = await asyncio.gather(*tasks)
        errors = [r for r in results if r]
        return {
            "offered": len(results),
            "done": len(results) - len(errors),
            "errors": len(errors),
            "error_kinds": sorted(set(errors)),
        }


class BareChurn(Churn):
    """Two bare inserts + group sends a cycle (benchmarks.baseline), at the same rate."""

    key = "churn"

    async def cycle(self, n: int) -> str:
        try:
            for seq in (2 * n, 2 * n + 1):
                async with self.client.session.post(
                    f"{self.target.http}/bench/insert/{self.key}",
                    data={"seq": str(seq)},
                    headers={"Origin": self.target.origin},
                ) as r:
                    await r.read()
                    if r.status != 200:
                        return f"bare insert: HTTP {r.status}"
        except Exception as error:
            return f"failed: {type(error).__name__}"
        return ""
