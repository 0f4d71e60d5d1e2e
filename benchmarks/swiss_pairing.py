"""How long one Swiss pairing takes: round 5 of a random event of 1,000 players.

    python -m benchmarks.swiss_pairing [--players 1000] [--round 5] [--runs 5] [--json]

Rounds 1 to 4 are paired by tournaments.swiss itself, with random results (a draw one game
in ten, otherwise the higher-rated player wins two games in three). Then the next round is
paired ``--runs`` times and the medians printed: wall-clock time, and the CPU time of this
process (on a shared machine, other processes' load moves the first, not the second). It
reports; it never fails on a time. ``make bench`` runs it (benchmarks/tournaments.py), in a
process of its own; ``--json`` prints the figures as one JSON line after the sentence.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from tournaments.swiss import BYE, FIRST, SECOND, Game, Player, pair


def play(players: list[Player], round_number: int, rng: random.Random) -> list[Player]:
    """The players after pairing round ``round_number`` and playing it with random results."""
    pairing = pair(players, round_number)
    rating = {p.id: p.rating for p in players}
    games = {pairing.bye: BYE} if pairing.bye is not None else {}
    for first, second in pairing.pairs:
        if rng.random() < 0.1:
            score = 0.5
        else:
            favourite = rating[first] >= rating[second]
            score = 1.0 if (rng.random() < 2 / 3) == favourite else 0.0
        games[first] = Game(second, FIRST, score)
        games[second] = Game(first, SECOND, 1 - score)
    return [Player(p.id, p.rating, (*p.games, games[p.id])) for p in players]


def event(players: int, rounds: int, seed: int = 1) -> list[Player]:
    """A random event of ``players`` after ``rounds`` rounds."""
    rng = random.Random(seed)
    field = [Player(i, round(rng.gauss(1500, 300))) for i in range(1, players + 1)]
    for number in range(1, rounds + 1):
        field = play(field, number, rng)
    return field


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--round", type=int, default=5, help="the round to pair")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="then the figures as one JSON line")
    args = parser.parse_args()
    field = event(args.players, args.round - 1)
    wall, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        pairing = pair(field, args.round)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(
        f"Swiss pairing of {args.players} players, round {args.round}, median of {args.runs} "
        f"runs: {statistics.median(wall):.2f} s wall-clock, {statistics.median(cpu):.2f} s CPU "
        f"({len(pairing.pairs)} pairs, bye: {pairing.bye})"
    )
    if args.json:
        figures = {
            "players": args.players,
            "round": args.round,
            "runs": args.runs,
            "wall_s": statistics.median(wall),
            "cpu_s": statistics.median(cpu),
            "wall_max_s": max(wall),
            "pairs": len(pairing.pairs),
            "bye": pairing.bye is not None,
        }
        print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
