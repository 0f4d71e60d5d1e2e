"""The bytes of a move's push, per game and kind of viewer: the whole board against what
changed (games/boards.py, ``delta``), as text and deflated as the match socket sends it.

    python -m benchmarks.push_sizes [--plies 30] [--json]

Each game is played as a friend's match through the write path (games.play), a middle
legal move that does not end the game where there is one, for ``--plies`` moves (fewer if
the game ends). At every version the board of each kind of viewer is drawn as the live
layer draws it (``boards.render_kinds``), and its push is what changed since the board of
the version before. "Deflated" is what permessage-deflate makes of each push on one
socket that got every push before it, with the ``deflate`` hook's window and memory level
(bitsite/runtime/deflate.py; autobahn compresses each message with ``Z_SYNC_FLUSH`` and
drops the last four bytes); the frame's own header adds 2 to 4 bytes. It runs in a
process of its own, on a throwaway SQLite database.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import zlib


def _setup(directory: str) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{directory}/push-sizes.sqlite3"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "push-sizes-not-secret")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


class Socket:
    """One socket's compressor, as the deflate hook sets it up."""

    def __init__(self):
        from bitsite.runtime.deflate import MEM_LEVEL, WINDOW_BITS

        self.zlib = zlib.compressobj(
            zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -WINDOW_BITS, MEM_LEVEL
        )

    def send(self, text: str) -> int:
        data = self.zlib.compress(text.encode()) + self.zlib.flush(zlib.Z_SYNC_FLUSH)
        return len(data) - 4


def measure(slug: str, plies: int) -> dict:
    from games import boards, play
    from games.models import Match, new_secret

    token = new_secret()
    match = play.create_match(slug, token=token, mode="friend", first="me", name="Ada")
    play.join(match.public_id, token=new_secret(), name="Bob")
    shown: dict[str, tuple[int, str]] = {}
    sockets = {"whole": {}, "changed": {}}
    rows: dict[str, dict[str, list[int]]] = {}
    for _ in range(plies + 1):
        match.refresh_from_db()
        for kind, html in boards.render_kinds(match).items():
            if kind in shown:
                version, before = shown[kind]
                small = boards.delta(before, html, version) or html
                row = rows.setdefault(kind, {"whole": [], "changed": [], "whole_wire": []})
                row["whole"].append(len(html.encode()))
                row["changed"].append(len(small.encode()))
                row.setdefault("changed_wire", []).append(
                    sockets["changed"].setdefault(kind, Socket()).send(small)
                )
                row["whole_wire"].append(sockets["whole"].setdefault(kind, Socket()).send(html))
            shown[kind] = (match.version, html)
        if match.status != Match.Status.PLAYING:
            break
        pos = match.current
        safe = getattr(match.rules, "safe_moves", None)  # the games whose rules name them
        moves = (safe(pos) if safe else []) or match.rules.legal_moves(pos)
        seat = match.seat_of_player(pos.to_move)
        play.submit_move(
            match.public_id,
            by=play.Actor(frozenset({seat})),
            text=moves[len(moves) // 2],
            ply=match.ply,
        )
    return {"game": slug, "plies": match.ply, "kinds": rows}


def summary(figures: dict) -> list[str]:
    lines = [
        "| game | kind of viewer | moves | whole board, text | what changed, text | "
        "whole board, deflated | what changed, deflated |",
        "|---|---|---|---|---|---|---|",
    ]
    for game in figures["games"]:
        for kind, row in game["kinds"].items():

            def cell(values: list[int]) -> str:
                return f"{statistics.median(values):,.0f} / {max(values):,}"

            lines.append(
                f"| {game['game']} | {kind} | {len(row['whole'])} | {cell(row['whole'])} | "
                f"{cell(row['changed'])} | {cell(row['whole_wire'])} | "
                f"{cell(row['changed_wire'])} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="then the figures as one JSON line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        _setup(directory)
        from games.rules import GAMES

        figures = {"plies": args.plies, "games": [measure(g.slug, args.plies) for g in GAMES]}
    print("Bytes of a move's push, median / largest, per game and kind of viewer:")
    print("\n".join(summary(figures)))
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    sys.exit(main())
