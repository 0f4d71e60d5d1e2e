"""Puzzles made from the solver: positions where the side to move can force a win.

Pure Python on top of games/rules (no Django). A puzzle is a position, given as the
game, its options and the moves from the start that reach it, that passes the rule:

* the side to move can force a win (``analyse(pos).winner`` is the mover), and the
  analysis says in how many plies (a position whose length the solver cannot tell is
  left out: a puzzle states its depth);
* not trivially: the win takes at least ``MIN_DEPTH`` = 3 plies under perfect play
  (``Analysis.plies``: the winner's move, the defence, the winner's move...);
* worth solving: at least ``MIN_LEGAL`` = 3 legal moves, and at most a third of them
  keep the win (3 to 5 legal moves: exactly one wins; 6 to 8: at most two; ...). No
  puzzle is a coin flip: a guess solves at most one in three.

Bitwise Battle and Last Bit Standing offer two moves (0 or 1) in every position, so they
have no puzzles. The sizes each game's puzzles are drawn from are the table ``SIZES``
(the game's defaults first); a larger size is added there and the files regenerated
(``python manage.py generate_puzzles``): every answer comes from ``game.analyse``, so a
faster solver is all a larger size needs.

Depth spread: every position that passes the rule, met in random games from
``random.Random(f"{seed}:{slug}:{i}")`` (at most ``WALKS`` games per size), is a
candidate; the candidates are grouped by depth and taken in turns, one depth after the
other from 3 to the deepest found, so the deepest ones are always in. Each puzzle is
graded by its depth and by how many of its legal moves lose; its ``difficulty`` is
their sum, its starting rating comes from both (``start_rating``), and a game's puzzles
are numbered 1, 2, ... by difficulty (ties by their size and their moves). Each has a
``key``, a digest of its position, that its rating and the attempts at it are kept
under, so a regeneration keeps the ratings of the puzzles that stay.

Themes (learn/themes.py) are computed from what the winning moves do.

Solving checks every answer against the exact analysis, never against a stored
answer: any move after which the mover still wins is right (``accepted_moves``), and
the opponent then plays its best defence, the move that delays the loss longest.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from games.rules import Analysis, Game, IllegalMove, MoveVerdict, Position, get_game
from learn import themes as theme_rules

SEED = 14
LIMIT = 60  # puzzles per game at most
WALKS = 400  # random games per size at most
MIN_DEPTH = 3  # plies to the end under perfect play, at least
MIN_LEGAL = 3  # legal moves in the puzzle's position, at least
DATA = Path(__file__).resolve().parent / "puzzles_data"
FORMAT = 2

# The sizes each game's puzzles come from, the defaults first. Bitwise Battle and Last
# Bit Standing have two moves in every position: no puzzle can pass the rule.
SIZES: dict[str, tuple[dict[str, Any], ...]] = {
    "bit-flip": ({}, {"width": 12}, {"width": 16}, {"width": 32}),
    "bit-flip-divisor": ({}, {"divisor": 11}, {"divisor": 13}),
    "last-digit-standing": ({}, {"highest": 12}, {"highest": 15}),
    "bitwise-battle": (),
    "last-bit-standing": (),
}

RULE = (
    f"The side to move can force a win in at least {MIN_DEPTH} plies, the position has at "
    f"least {MIN_LEGAL} legal moves, and at most a third of them keep the win: a guess "
    "solves at most one in three. Depths are spread from the shortest to the longest the "
    "solver found. Difficulty: the plies to the win plus the number of legal moves that lose."
)


def start_rating(depth: int, losing: int) -> int:
    """A new puzzle's rating, before anyone tried it: 1000 for a win in 3 with two moves
    that lose, 100 more per two plies of depth and 50 more per extra losing move."""
    return max(800, min(2500, 1000 + 50 * (depth - MIN_DEPTH) + 50 * (losing - 2)))


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
    key: str = ""
    rating: int = 1500  # its starting rating
    themes: tuple[str, ...] = ()

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
            "key": self.key,
            "options": self.options,
            "moves": list(self.moves),
            "position": self.notation,
            "to_move": self.to_move,
            "depth": self.depth,
            "legal": self.legal,
            "winning": self.winning,
            "losing": self.losing,
            "difficulty": self.difficulty,
            "rating": self.rating,
            "themes": list(self.themes),
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
            key=str(data["key"]),
            rating=int(data["rating"]),
            themes=tuple(data["themes"]),
        )


def few_winning(winning: int, legal: int) -> bool:
    """The "worth solving" rule: at least MIN_LEGAL legal moves, some move wins, and at
    most a third of them win."""
    return legal >= MIN_LEGAL and 1 <= winning <= legal // 3


def position_key(game: Game, pos: Position) -> str:
    """A puzzle's key: a digest of its game and position (ratings are kept under it)."""
    text = json.dumps([game.slug, game.to_json(pos)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def grade(game: Game, pos: Position) -> dict[str, Any] | None:
    """The puzzle's grades if ``pos`` passes the rule, else None."""
    if pos.over or len(game.legal_moves(pos)) < MIN_LEGAL:
        return None
    analysis = game.analyse(pos)
    if analysis.winner != pos.to_move or analysis.plies is None or analysis.plies < MIN_DEPTH:
        return None
    legal = len(game.legal_moves(pos))
    winning = len(accepted_moves(game, pos, analysis))
    if not few_winning(winning, legal):
        return None
    return {
        "depth": analysis.plies,
        "legal": legal,
        "winning": winning,
        "difficulty": analysis.plies + legal - winning,
        "rating": start_rating(analysis.plies, legal - winning),
        "themes": tuple(theme_rules.themes_of(game, pos, analysis)),
        "key": position_key(game, pos),
    }


def sizes_of(game: Game) -> tuple[dict[str, Any], ...]:
    return SIZES.get(game.slug, ())


def _spread(candidates: list, limit: int, rng: random.Random) -> list:
    """At most ``limit`` candidates, taken in turns from each depth (shuffled within it)."""
    by_depth: dict[int, list] = {}
    for item in candidates:
        by_depth.setdefault(item[4]["depth"], []).append(item)
    queues = []
    for depth in sorted(by_depth):
        group = by_depth[depth]
        rng.shuffle(group)
        queues.append(group)
    chosen: list = []
    while len(chosen) < limit and any(queues):
        for group in queues:
            if group and len(chosen) < limit:
                chosen.append(group.pop())
    return chosen


def candidates(game: Game, seed: int = SEED) -> list:
    """Every position that passes the rule met in the random games from ``seed``, once
    each: (size's index, moves, options, position, grades)."""
    found: list[tuple[int, tuple[str, ...], dict, Position, dict]] = []
    seen: set[str] = set()
    for index, options in enumerate(sizes_of(game)):
        rng = random.Random(f"{seed}:{game.slug}:{index}")
        start = game.start(**options)
        cleaned = game.options_of(start)
        for _ in range(WALKS):
            pos, moves = start, ()
            while not pos.over:
                key = json.dumps(game.to_json(pos), sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    grades = grade(game, pos)
                    if grades is not None:
                        found.append((index, moves, cleaned, pos, grades))
                move = rng.choice(game.legal_moves(pos))
                pos, moves = game.play(pos, move), (*moves, move)
    return found


def generate(game: Game, seed: int = SEED, limit: int = LIMIT) -> list[Puzzle]:
    """The game's puzzles from ``seed``: the same seed, the same puzzles, in order."""
    found = candidates(game, seed)
    chosen = _spread(found, limit, random.Random(f"{seed}:{game.slug}:spread"))
    chosen.sort(key=lambda item: (item[4]["difficulty"], item[0], item[1]))
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
        for n, (_, moves, cleaned, pos, grades) in enumerate(chosen, start=1)
    ]


def document(game: Game, puzzles: list[Puzzle], seed: int = SEED) -> dict[str, Any]:
    """The JSON file of a game's puzzles."""
    return {
        "format": FORMAT,
        "game": game.slug,
        "seed": seed,
        "rule": RULE,
        "sizes": list(sizes_of(game)),
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


@cache
def every_puzzle() -> tuple[Puzzle, ...]:
    """Every game's puzzles, game by game in the registry's order."""
    from games.rules import GAMES

    return tuple(p for game in GAMES for p in puzzles_of(game.slug))


def by_key(key: str) -> Puzzle | None:
    for found in every_puzzle():
        if found.key == key:
            return found
    return None


def with_theme(key: str) -> list[Puzzle]:
    return [p for p in every_puzzle() if key in p.themes]


def daily(day) -> Puzzle | None:
    """The puzzle of ``day`` (a date): the same for everyone, from a digest of the date."""
    found = every_puzzle()
    if not found:
        return None
    digest = hashlib.sha256(f"bitsite-daily:{day.isoformat()}".encode()).digest()
    return found[int.from_bytes(digest[:8], "big") % len(found)]


def closest(candidates, rating: float, ratings: dict[str, float]) -> Puzzle | None:
    """The candidate whose rating (``ratings`` by key, else its starting one) is nearest
    ``rating``; ties by number."""
    return min(
        candidates,
        key=lambda p: (abs(ratings.get(p.key, p.rating) - rating), p.n),
        default=None,
    )


def puzzle(slug: str, n: int) -> Puzzle | None:
    found = puzzles_of(slug)
    return found[n - 1] if 1 <= n <= len(found) else None


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


def solution(game: Game, pos: Position, analyse=None) -> list[tuple[int, str, Position]]:
    """The winning line from ``pos``: (player, move, position after it) to the end, the
    winner taking a fastest winning move, the loser its longest defence."""
    analyse = analyse or game.analyse
    line = []
    while not pos.over:
        move = analyse(pos).best_moves[0]
        mover = pos.to_move
        pos = game.play(pos, move)
        line.append((mover, move, pos))
    return line


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
