"""Cost against game length: one Last Bit Standing match to 100,000 plies.

Run by benchmarks.run in a child process on its own fresh database:

    python -m benchmarks.length --plies 100000 --out results.json

Every ply goes through the write path (games.play.submit_move, in one
transaction, with its on_commit push). A move's work on the site is then timed
as the site does it, in parts:

* ``write``:  the move view's lookup and ``submit_move`` (the on_commit group send included);
* ``answer``: the board partial the mover's htmx POST gets back (refresh, render);
* ``push``:   the push's boards: rendered once per kind of viewer (seat 1, seat 2
              and a spectator, as when all three have a page open), from one read;
* ``page``:   the whole match page, as a visitor loading it sees it.

The first and the last 1,000 plies (``--edge``) do all of it and are timed; the
plies in between do the write on every ply and the rendering on every
``--sample``-th ply (rendering writes nothing, so skipping it there changes
nothing the last 1,000 plies see; it only keeps the run short). Times per move
are means, in wall-clock time per part, and in CPU time of this process for the
whole move (``cpu``): on a shared machine the two windows, minutes apart, can
see different loads from other processes, which moves wall time but not the
CPU time this process spends on a move.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

GAME = "last-bit-standing"
PARTS = ("write", "answer", "push", "page")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")
    import django

    django.setup()


def play_long_match(plies: int, edge: int = 1000, sample: int = 100, progress=print) -> dict:
    from importlib import import_module

    from django.conf import settings
    from django.template.loader import render_to_string

    from games import play
    from games.boards import board_context, render_board, render_kinds
    from games.models import Match, Move, new_secret
    from games.play import Actor
    from games.rights import Viewer, viewer_from_session
    from games.rules import get_game

    store = import_module(settings.SESSION_ENGINE).SessionStore
    tokens = {1: new_secret(), 2: new_secret()}
    match = play.create_match(GAME, token=tokens[1], first="me")
    play.join(match.public_id, token=tokens[2])
    public_id = match.public_id
    sessions = {}
    for seat, token in tokens.items():
        session = store()
        session["token"] = token
        session.save()
        sessions[seat] = session.session_key
    share_url = "http://127.0.0.1" + match.get_absolute_url()

    game = get_game(GAME)
    pos = game.start()
    rng = random.Random(1)
    edge = min(edge, plies // 2)
    first_range = range(edge)
    last_range = range(plies - edge, plies)
    sums = {"first": dict.fromkeys(PARTS, 0.0), "last": dict.fromkeys(PARTS, 0.0)}
    cpu = {"first": 0.0, "last": 0.0}
    counts = {"first": 0, "last": 0}
    # Mean write time per 1,000-ply block, and the full move time at the sampled plies.
    blocks: list[float] = []
    block_sum = 0.0
    samples: list[tuple[int, float]] = []
    started = time.perf_counter()
    next_report = started + 10

    for ply in range(plies):
        full = ply in first_range or ply in last_range or ply % sample == 0
        legal = game.legal_moves(pos)
        going_on = [m for m in legal if game.play(pos, m).result is None]
        text = rng.choice(going_on)
        player = pos.to_move
        seat = player if match.first_seat == 1 else 3 - player

        c0 = time.process_time()
        t0 = time.perf_counter()
        found = Match.objects.get(public_id=public_id)  # the move view's lookup
        match = play.submit_move(found.public_id, by=Actor(frozenset({seat})), text=text, ply=ply)
        t1 = time.perf_counter()
        pos = game.play(pos, text)
        part = {"write": t1 - t0}
        if full:
            match.refresh_from_db()
            mover = viewer_from_session(store(session_key=sessions[seat]), match)
            render_board(match, mover, share_url=share_url)
            t2 = time.perf_counter()
            # The push: the board once per kind of viewer (both seats and a spectator).
            for html in render_kinds(match).values():
                if f'data-ply="{ply + 1}"' not in html:
                    raise AssertionError(f"the pushed board does not show ply {ply + 1}")
            t3 = time.perf_counter()
            render_to_string(
                "games/match.html", board_context(match, Viewer(), share_url=share_url)
            )
            t4 = time.perf_counter()
            part.update(answer=t2 - t1, push=t3 - t2, page=t4 - t3)
            samples.append((ply + 1, t4 - t0))
        used = time.process_time() - c0
        block_sum += part["write"]
        if (ply + 1) % 1000 == 0:
            blocks.append(block_sum / 1000)
            block_sum = 0.0
        for name, where in (("first", first_range), ("last", last_range)):
            if ply in where:
                counts[name] += 1
                cpu[name] += used
                for key in PARTS:
                    sums[name][key] += part[key]
        if time.perf_counter() >= next_report:
            elapsed = time.perf_counter() - started
            progress(f"  length: ply {ply + 1:,} of {plies:,} ({elapsed:.0f} s)")
            next_report += 10

    stored = Move.objects.filter(match__public_id=public_id).count()
    final = Match.objects.get(public_id=public_id)
    if stored != plies or final.ply != plies or final.status != Match.Status.PLAYING:
        raise AssertionError(f"expected {plies} moves in play, found {stored} (ply {final.ply})")
    means = {
        name: {key: sums[name][key] / counts[name] * 1000 for key in PARTS}
        for name in ("first", "last")
    }
    for name in means:
        means[name]["total"] = sum(means[name][key] for key in PARTS)
        means[name]["cpu"] = cpu[name] / counts[name] * 1000
    return {
        "game": GAME,
        "plies": plies,
        "edge": edge,
        "sample_every": sample,
        "first_ms": means["first"],
        "last_ms": means["last"],
        "ratio": means["last"]["total"] / means["first"]["total"],
        "cpu_ratio": means["last"]["cpu"] / means["first"]["cpu"],
        "ratio_by_part": {k: means["last"][k] / means["first"][k] for k in PARTS},
        "write_ms_per_1000": [b * 1000 for b in blocks],
        "sampled_total_ms": [(p, t * 1000) for p, t in samples],
        "seconds": time.perf_counter() - started,
        "final_length_bits": pos.length,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=100_000)
    parser.add_argument("--edge", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    _setup()
    result = play_long_match(
        args.plies, edge=args.edge, sample=args.sample, progress=lambda m: print(m, flush=True)
    )
    with open(args.out, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
