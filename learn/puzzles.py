"""Puzzles made from the solver: positions where the side to move can force a win.

Pure Python on top of games/rules (no Django). A puzzle is a position, given as the
game, its options and the moves from the start that reach it, that passes the rule:

* the side to move can force a win (``analyse(pos).winner`` is the mover);
* not trivially: the win takes at least ``MIN_DEPTH`` = 3 plies under perfect play
  (``Analysis.plies``: the winner's move, the defence, the winner's move...);
* few winning moves: at most ``max(1, legal // 3)`` of the legal moves keep the win,
  and at least one loses (with 2 to 5 legal moves exactly one wins; with 9 at most 3;
  a position with a single legal move is never a puzzle).

Each puzzle is graded by its depth and by how many of its legal moves lose; its
``difficulty`` is their sum, and a game's puzzles are numbered 1, 2, ... in that order
(ties by their options' set and their moves), easiest first.

Generation is a pure function of the seed: for each of the game's ``puzzle_options``
(the defaults first), random legal games from ``random.Random(f"{seed}:{slug}:{i}")``,
collecting every position that passes the rule, once per position, until the set's
share of ``LIMIT`` is full or ``WALKS`` games were played. ``python manage.py
generate_puzzles`` writes the result to ``learn/puzzles_data/<slug>.json``, and the site
reads that file (or generates the same puzzles when it is missing); a test checks the
files equal what ``generate`` makes.

Solving checks every answer against the exact analysis, never against a stored
answer: any move after which the mover still wins is right (``accepted_moves``), and
the opponent then plays its best defence, the move that delays the loss longest.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from games.rules import Analysis, Game, IllegalMove, MoveVerdict, Position, get_game

SEED = 14
LIMIT = 60  # puzzles per game at most
WALKS = 400  # random games per option set at most
MIN_DEPTH = 3  # plies to the end under perfect play, at least
DATA = Path(__file__).resolve().parent / "puzzles_data"
FORMAT = 1

RULE = (
    f"The side to move can force a win in at least {MIN_DEPTH} plies, at least one legal "
    "move loses, and at most a third of the legal moves (one, when there are fewer than 6) "
    "keep the win. Difficulty: the plies to the win plus the number of legal moves that lose."
)


@dataclass(frozen=True)
class Puzzle:
    """One puzzle of a game: ``n`` is its number (1 is the easiest)."""

    n: int
    slug: str
    options: dict[str, Any]
    moves: tuple[str, ...]
    to_move: int
    depth: int  # plies to the end under perfect play
    legal: int  # legal moves
    winning: int  # legal moves that keep the win
    difficulty: int
    notation: str

    @property
    def losing(self) -> int:
        return self.legal - self.winning

    @property
    def game(self) -> Game:
        return get_game(self.slug)

    def position(self) -> Position:
        """The puzzle's position, played from the start."""
        game = self.game
        pos = game.start(**self.options)
        for move in self.moves:
            pos = game.play(pos, move)
        return pos

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "options": self.options,
            "moves": list(self.moves),
            "position": self.notation,
            "to_move": self.to_move,
            "depth": self.depth,
            "legal": self.legal,
            "winning": self.winning,
            "losing": self.losing,
            "difficulty": self.difficulty,
        }

    @classmethod
    def from_json(cls, slug: str, data: dict[str, Any]) -> Puzzle:
        return cls(
            n=int(data["n"]),
            slug=slug,
            options=dict(data["options"]),
            moves=tuple(data["moves"]),
            to_move=int(data["to_move"]),
            depth=int(data["depth"]),
            legal=int(data["legal"]),
            winning=int(data["winning"]),
            difficulty=int(data["difficulty"]),
            notation=str(data["position"]),
        )


def few_winning(winning: int, legal: int) -> bool:
    """The "few winning moves" rule: some move wins, some move loses, and at most a third
    of them win (exactly one, when there are fewer than 6 legal moves)."""
    return 1 <= winning <= max(1, legal // 3) and winning < legal


def grade(game: Game, pos: Position) -> dict[str, int] | None:
    """The puzzle's grades if ``pos`` passes the rule, else None."""
    if pos.over:
        return None
    analysis = game.analyse(pos)
    if analysis.winner != pos.to_move or analysis.plies is None or analysis.plies < MIN_DEPTH:
        return None
    legal = len(game.legal_moves(pos))
    winning = len(accepted_moves(game, pos))
    if not few_winning(winning, legal):
        return None
    return {
        "depth": analysis.plies,
        "legal": legal,
        "winning": winning,
        "difficulty": analysis.plies + legal - winning,
    }


def generate(game: Game, seed: int = SEED, limit: int = LIMIT) -> list[Puzzle]:
    """The game's puzzles from ``seed``: the same seed, the same puzzles, in order."""
    sets = game.puzzle_options
    share = -(-limit // len(sets))
    found: list[tuple[int, tuple[str, ...], dict, Position, dict]] = []
    seen: set[str] = set()
    for index, options in enumerate(sets):
        rng = random.Random(f"{seed}:{game.slug}:{index}")
        start = game.start(**options)
        cleaned = game.options_of(start)
        taken = 0
        for _ in range(WALKS):
            if taken >= share:
                break
            pos, moves = start, ()
            while not pos.over and taken < share:
                key = json.dumps(game.to_json(pos), sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    grades = grade(game, pos)
                    if grades is not None:
                        found.append((index, moves, cleaned, pos, grades))
                        taken += 1
                move = rng.choice(game.legal_moves(pos))
                pos, moves = game.play(pos, move), (*moves, move)
    found.sort(key=lambda item: (item[4]["difficulty"], item[0], item[1]))
    return [
        Puzzle(
            n=n,
            slug=game.slug,
            options=cleaned,
            moves=moves,
            to_move=pos.to_move,
            notation=game.notation(pos),
            **grades,
        )
        for n, (_, moves, cleaned, pos, grades) in enumerate(found[:limit], start=1)
    ]


def document(game: Game, puzzles: list[Puzzle], seed: int = SEED) -> dict[str, Any]:
    """The JSON file of a game's puzzles."""
    return {
        "format": FORMAT,
        "game": game.slug,
        "seed": seed,
        "rule": RULE,
        "puzzles": [puzzle.to_json() for puzzle in puzzles],
    }


def dumps(data: dict[str, Any]) -> str:
    """The file's text: the header's keys one a line, then one line per puzzle."""
    head = {key: value for key, value in data.items() if key != "puzzles"}
    lines = [
        f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},"
        for key, value in head.items()
    ]
    rows = [
        "    " + json.dumps(item, ensure_ascii=False, sort_keys=False) for item in data["puzzles"]
    ]
    body = ",\n".join(rows)
    puzzles = f'  "puzzles": [\n{body}\n  ]' if rows else '  "puzzles": []'
    return "{\n" + "\n".join(lines) + "\n" + puzzles + "\n}\n"


def path_for(game: Game) -> Path:
    return DATA / f"{game.slug}.json"


@cache
def puzzles_of(slug: str) -> tuple[Puzzle, ...]:
    """The game's puzzles, from its file, or generated the same way when it is missing."""
    game = get_game(slug)
    path = path_for(game)
    if not path.exists():
        return tuple(generate(game))
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(Puzzle.from_json(slug, item) for item in data["puzzles"])


def puzzle(slug: str, n: int) -> Puzzle | None:
    found = puzzles_of(slug)
    return found[n - 1] if 1 <= n <= len(found) else None


def next_unseen(slug: str, seen, after: int = 0) -> Puzzle | None:
    """The first puzzle after number ``after`` (going round) not in ``seen``."""
    found = puzzles_of(slug)
    seen = set(seen)
    count = len(found)
    for step in range(1, count + 1):
        candidate = found[(after + step - 1) % count]
        if candidate.n not in seen:
            return candidate
    return None


# ---- solving ---------------------------------------------------------------------------


def accepted_moves(game: Game, pos: Position, analysis: Analysis | None = None):
    """The moves a solver may play: those after which the mover still wins. ``analysis``:
    ``pos``'s, if already at hand."""
    analysis = analysis or game.analyse(pos)
    if analysis.winner != pos.to_move:
        return ()
    return tuple(item.move for item in analysis.moves if item.winner == pos.to_move)


def best_defence(game: Game, pos: Position, analysis: Analysis | None = None) -> str:
    """The loser's best move: the one that delays the end longest (the first such)."""
    return (analysis or game.analyse(pos)).best_moves[0]


@dataclass(frozen=True)
class Reply:
    """What became of a solver's move."""

    move: str
    verdict: MoveVerdict
    accepted: bool
    after: Position  # after the move and the defence (the position as it was, when refused)
    defence: str | None = None
    solved: bool = False


def answer(
    game: Game, pos: Position, move: str, analyse: Callable[[Position], Analysis] | None = None
) -> Reply:
    """Judge ``move`` in ``pos`` by the exact analysis; if it keeps the win, play it and
    the opponent's best defence. IllegalMove when it is not one of the legal moves.
    ``analyse``: where the analyses come from (the site's cache and pool: learn/answers.py;
    by default ``game.analyse``)."""
    analyse = analyse or game.analyse
    if pos.over or move not in game.legal_moves(pos):
        raise IllegalMove(f"{move!r} is not one of the legal moves here.")
    analysis = analyse(pos)
    verdict = analysis.verdict(move)
    if move not in accepted_moves(game, pos, analysis):
        return Reply(move, verdict, False, pos)
    after = game.play(pos, move)
    if after.over:
        return Reply(move, verdict, True, after, solved=True)
    defence = best_defence(game, after, analyse(after))
    after = game.play(after, defence)
    return Reply(move, verdict, True, after, defence, solved=after.over)
