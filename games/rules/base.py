"""What every game shares: positions, options, errors, outcomes and the exact analysis.

Pure Python: nothing here (or anywhere under games/rules) imports Django.

Every game speaks the same verbs::

    pos = game.start(**options)        # a frozen position
    game.legal_moves(pos)              # move texts, in the book's notation
    pos = game.play(pos, "4 5")        # a new position, or IllegalMove
    game.outcome(pos)                  # None, or Outcome(winner, ending)
    game.describe_outcome(pos)         # how it ended, in the book's words
    game.analyse(pos)                  # exact perfect-play analysis
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

# Longest move text that is even looked at; anything longer is malformed.
MAX_MOVE_TEXT = 32
# How the books' sentences name a player ("Player 2 cannot remove ...").
PLAYER_WORD = re.compile(r"\bPlayer ([12])\b")

# The analysis memos, one per game and set of options, hold at most about this many
# positions together (about 25 MB): the least recently used are dropped first. One
# analysis may exceed it while it runs; its memo is dropped before the next analysis if it
# alone is over. A cold analysis is fast enough on its own (benchmarks/analysis.py), so a
# dropped memo costs time, never a wrong answer.
MEMO_BUDGET = 100_000
_memos: OrderedDict[tuple, dict[Any, Value]] = OrderedDict()
_memos_lock = threading.Lock()
# Tables a game's theory fills as it goes (functools caches), dropped with the memos.
theory_caches: list = []


def forget_memos() -> None:
    """Drop every analysis memo and theory table: the next analysis starts cold
    (benchmarks, tests)."""
    with _memos_lock:
        _memos.clear()
    for cache in theory_caches:
        cache.cache_clear()


def memo_size() -> int:
    """Positions held by all the analysis memos (for tests and benchmarks)."""
    with _memos_lock:
        return sum(len(memo) for memo in _memos.values())


class IllegalMove(ValueError):
    """The rules refuse this move; the message says why, in a player's words."""


class MalformedMove(IllegalMove):
    """The text is not a move in the game's notation at all (empty, letters, ...)."""


class GameOver(IllegalMove):
    """The game has already ended: no move is accepted."""


class Ending(StrEnum):
    """How a game ended: the kinds of ending the five rule books have, and resignation.
    The sentence a player reads is made from it where it is shown
    (``Game.describe_outcome``)."""

    MULTIPLE_OF_THREE = "multiple_of_three"  # Last Bit Standing: made a multiple of 3, loses
    CONDITION_MET = "condition_met"  # Bitwise Battle: met the condition, wins
    LENGTH_REACHED = "length_reached"  # Bitwise Battle: made the last bit allowed, loses
    BYTE_FILLED = "byte_filled"  # Bit Flip: set the last 0 bit, wins
    DIVISIBLE = "divisible"  # Bit Flip: Divisor: made a multiple of the divisor, wins
    NO_BIT_LEFT = "no_bit_left"  # Bit Flip: Divisor: left no 0 bit to the opponent, wins
    INVALID_BIT = "invalid_bit"  # Bit Flip: Divisor: named a bit that cannot flip, loses
    NO_MOVE = "no_move"  # Last Digit Standing: left the opponent no digit to remove, wins
    RESIGNED = "resigned"  # the loser resigned


@dataclass(frozen=True)
class Outcome:
    """The end of a game: who won, and how. ``move`` is the last move, as played, when
    the ending is about it (the bits flipped, the bit named)."""

    winner: int
    ending: Ending
    move: str = ""

    @property
    def loser(self) -> int:
        return other(self.winner)


def other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True)
class Option:
    """One option of a game, with its default and its allowed range (for forms and errors)."""

    name: str
    label: str
    default: Any
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""

    @property
    def is_choice(self) -> bool:
        return bool(self.choices)

    def describe_range(self) -> str:
        if self.choices:
            return "one of " + ", ".join(f'"{value}"' for value, _ in self.choices)
        return f"a whole number from {self.minimum} to {self.maximum}"

    def clean(self, value: Any) -> Any:
        if self.choices:
            allowed = [choice for choice, _ in self.choices]
            if value not in allowed:
                raise ValueError(f"{self.label} must be {self.describe_range()}, not {value!r}.")
            return value
        return clean_int(value, self.label, self.minimum, self.maximum)


def clean_int(value: Any, label: str, minimum: int, maximum: int) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{label} must be a whole number from {minimum} to {maximum}.")
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[+-]?\d{1,30}", text):
            raise ValueError(
                f"{label} must be a whole number from {minimum} to {maximum}, not {value!r}."
            )
        value = int(text)
    if not isinstance(value, int):
        raise ValueError(f"{label} must be a whole number from {minimum} to {maximum}.")
    if not minimum <= value <= maximum:
        raise ValueError(f"{label} must be from {minimum} to {maximum}, not {value}.")
    return value


@dataclass(frozen=True, kw_only=True)
class Position:
    """Base of every game's position: a frozen dataclass of plain values.

    ``ply`` counts the moves made; Player 1 moves at even plies. ``result`` is
    set once the game is over (by a move, by a player who cannot move, or by
    resignation).
    """

    ply: int = 0
    result: Outcome | None = None

    @property
    def to_move(self) -> int:
        return 1 if self.ply % 2 == 0 else 2

    @property
    def over(self) -> bool:
        return self.result is not None


class Verdict(StrEnum):
    """What a move did, judged by exact analysis of the position it was played in."""

    KEEPS_WIN = "keeps the win"
    THROWS_WIN = "throws away the win"
    NO_WIN = "no winning move existed"
    LOSES_AT_ONCE = "loses at once"
    SAFE = "safe: the game goes on"

    @property
    def label(self) -> str:
        return self.value


@dataclass(frozen=True)
class MoveVerdict:
    move: str
    verdict: Verdict
    winner: int | None  # who wins with perfect play after this move (None: nobody can force it)
    plies: int | None  # moves until the end with perfect play, counting this one
    blunder: bool  # the move made its player's prospects worse


@dataclass(frozen=True)
class Analysis:
    """The exact perfect-play value of a position and a verdict for every legal move."""

    to_move: int
    winner: int | None  # who wins with perfect play (None: nobody can force a win)
    plies: int | None  # moves until the end with perfect play (0 when the game is over)
    best_moves: tuple[str, ...]
    moves: tuple[MoveVerdict, ...]
    note: str = ""

    def verdict(self, move: str) -> MoveVerdict | None:
        for item in self.moves:
            if item.move == move:
                return item
        return None

    @property
    def winning_moves(self) -> tuple[str, ...]:
        return tuple(m.move for m in self.moves if m.verdict is Verdict.KEEPS_WIN)

    @property
    def summary(self) -> str:
        if self.winner is None:
            return self.note or "Nobody can force a win."
        if self.plies == 0:
            return f"Player {self.winner} has won."
        if self.plies is None:
            return f"Player {self.winner} wins with perfect play ({UNKNOWN_LENGTH})."
        moves = "move" if self.plies == 1 else "moves"
        return f"Player {self.winner} wins with perfect play, {self.plies} {moves} from here."


# Said where the theory gives the winner but not the number of moves.
UNKNOWN_LENGTH = "the number of moves is beyond exact analysis at this size"

# A value, from the point of view of the player to move: (wins, plies to the end).
Value = tuple[bool, int]
WIN_AT_ONCE: Value = (True, 1)
LOSS_AT_ONCE: Value = (False, 1)


def better(a: Value, b: Value) -> bool:
    """Is value a better for the player to move than b? Win fast, lose slowly."""
    if a[0] != b[0]:
        return a[0]
    return a[1] < b[1] if a[0] else a[1] > b[1]


class Game:
    """A game: its options and its rules. Subclasses fill in the game-specific parts."""

    slug: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()
    position_class: ClassVar[type[Position]]
    # What to type, said when the text is no move at all.
    move_hint: ClassVar[str] = ""
    # The option sets the puzzles are drawn from (learn/puzzles.py), the defaults first.
    puzzle_options: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    # Every position is won by one side with perfect play (no position where nobody can
    # force a win): a blunder is then exactly a move from a won position to a lost one.
    decisive: ClassVar[bool] = False

    def memo_for(self, pos: Position) -> dict[Any, Value]:
        """The analysis memo of this game with ``pos``'s options, made the most recently
        used; the least recently used are dropped while all hold over MEMO_BUDGET."""
        name = (self.slug, tuple(sorted(self.options_of(pos).items())))
        with _memos_lock:
            memo = _memos.pop(name, None)
            if memo is None or len(memo) > MEMO_BUDGET:
                memo = {}
            _memos[name] = memo
            total = sum(len(m) for m in _memos.values())
            while total > MEMO_BUDGET and len(_memos) > 1:
                _, dropped = _memos.popitem(last=False)
                total -= len(dropped)
            return memo

    def __repr__(self) -> str:
        return f"<Game {self.slug}>"

    # ---- options -------------------------------------------------------------

    def option(self, name: str) -> Option:
        for opt in self.options:
            if opt.name == name:
                return opt
        raise KeyError(name)

    def clean_options(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults filled in, every value checked; ValueError says the allowed range."""
        options = dict(options or {})
        known = {opt.name for opt in self.options}
        unknown = sorted(set(options) - known)
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise ValueError(f"{self.title} has no option {unknown[0]!r} (its options: {allowed}).")
        cleaned = {}
        for opt in self.options:
            cleaned[opt.name] = opt.clean(options.get(opt.name, opt.default))
        self.check_options(cleaned)
        return cleaned

    def check_options(self, options: dict[str, Any]) -> None:
        """Checks that involve several options at once (subclasses)."""

    def options_of(self, pos: Position) -> dict[str, Any]:
        return {opt.name: getattr(pos, opt.name) for opt in self.options}

    def describe_options(self, options: dict[str, Any]) -> str:
        """A short human summary of a set of options, for lists."""
        return ", ".join(f"{opt.label.lower()} {options.get(opt.name)}" for opt in self.options)

    # ---- the verbs -----------------------------------------------------------

    def start(self, **options: Any) -> Position:
        return self.initial(**self.clean_options(options))

    def initial(self, **options: Any) -> Position:
        raise NotImplementedError

    def legal_moves(self, pos: Position) -> list[str]:
        if pos.over:
            return []
        return self.moves(pos)

    def moves(self, pos: Position) -> list[str]:
        raise NotImplementedError

    def play(self, pos: Position, move: str) -> Position:
        if pos.result is not None:
            raise GameOver(f"The game is over: {self.describe_outcome(pos)}")
        if not isinstance(move, str):
            raise MalformedMove(self.move_hint)
        text = move.strip()
        if not text or len(text) > MAX_MOVE_TEXT:
            raise MalformedMove(self.move_hint)
        return self.apply(pos, text)

    def apply(self, pos: Position, text: str) -> Position:
        raise NotImplementedError

    def outcome(self, pos: Position) -> Outcome | None:
        return pos.result

    def resign(self, pos: Position, player: int) -> Position:
        if player not in (1, 2):
            raise ValueError("player must be 1 or 2")
        if pos.result is not None:
            raise GameOver(f"The game is over: {self.describe_outcome(pos)}")
        return dataclasses.replace(pos, result=Outcome(other(player), Ending.RESIGNED))

    def describe_outcome(self, pos: Position, names: dict[int, str] | None = None) -> str:
        """How the game of ``pos`` ended, in its book's words ("" while it goes on).

        The books call the players "Player 1" and "Player 2"; ``names`` (player number ->
        what a page calls that player, "Player 1 (Ada)") puts the site's names in their
        place, in one pass (a name that itself reads "Player 2" is left as it is)."""
        result = pos.result
        if result is None:
            return ""
        if result.ending is Ending.RESIGNED:
            text = f"Player {result.loser} resigned."
        else:
            text = self.describe_ending(pos, result)
        if not names:
            return text
        return PLAYER_WORD.sub(lambda m: names.get(int(m.group(1)), m.group(0)), text)

    def describe_ending(self, pos: Position, result: Outcome) -> str:
        """The sentence for one of this game's own endings."""
        raise NotImplementedError

    def notation(self, pos: Position) -> str:
        """The position on one line, the way its book's samples print it."""
        return pos.bits

    def canonical(self, pos: Position, move: str) -> str:
        """The move text as the log stores it (e.g. "5 4" -> "4 5")."""
        return move.strip()

    # ---- JSON ----------------------------------------------------------------

    def to_json(self, pos: Position) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for field in dataclasses.fields(pos):
            value = getattr(pos, field.name)
            if isinstance(value, Outcome):
                value = {"winner": value.winner, "ending": value.ending.value, "move": value.move}
            elif isinstance(value, tuple):
                value = list(value)
            data[field.name] = value
        return data

    def from_json(self, data: dict[str, Any]) -> Position:
        if not isinstance(data, dict):
            raise ValueError("A position must be a JSON object.")
        names = {field.name for field in dataclasses.fields(self.position_class)}
        if set(data) != names:
            raise ValueError(f"A {self.title} position has the keys {sorted(names)}.")
        values = {}
        for name, value in data.items():
            if name == "result" and value is not None:
                value = Outcome(
                    int(value["winner"]), Ending(value["ending"]), str(value.get("move", ""))
                )
            elif isinstance(value, list):
                value = tuple(value)
            values[name] = value
        return self.position_class(**values)

    # ---- analysis ------------------------------------------------------------

    def analyse(self, pos: Position) -> Analysis:
        """Exact perfect-play analysis: the winner, and every move's verdict; in how many
        moves too while the search reaches (``searchable``), else from the game's theory
        (``theory_analysis``), where the number of moves may be unknown (``plies`` None)."""
        if pos.result is None and not self.searchable(pos):
            return self.theory_analysis(pos)
        return self.search_analysis(pos)

    def winner(self, pos: Position) -> int | None:
        """Who can force a win from ``pos`` (None: nobody); what the analysis says, or
        quicker where a game's theory knows it without judging every move."""
        if pos.result is not None:
            return pos.result.winner
        return self.analyse(pos).winner

    def searchable(self, pos: Position) -> bool:
        """Is the exhaustive search (``search_analysis``) cheap from ``pos``? Games with a
        theory say no beyond the sizes it answers within its budget."""
        return True

    def search_reaches_next(self, pos: Position) -> bool:
        """Might a position one move from ``pos`` be ``searchable``? (A cheap bound: the
        theory's analysis then looks at each move's position.) Games with a theory say
        no where none can be."""
        return True

    def theory_wins(self, pos: Position) -> dict[str, tuple[bool, bool]]:
        """For each legal move of ``pos`` (a game in progress), in ``moves`` order: (does
        its mover win with perfect play, does it end the game). From the game's theory,
        without search (games that have one)."""
        raise NotImplementedError(f"{self.title} has no theory solver.")

    def prefer(self, pos: Position, moves: list[str], winning: bool) -> list[str]:
        """Among equally good ``moves`` whose lengths the theory does not know, those that
        look fastest (``winning``) or slowest to end: what the computer picks from."""
        return moves

    def theory_analysis(self, pos: Position) -> Analysis:
        """The analysis from ``theory_wins``: the winner and every move's verdict are
        exact; the plies are known for moves that end the game (1) and for moves into a
        position the search reaches (``_length_after``), and for the position only when it
        is won or lost at once."""
        mover = pos.to_move
        if pos.result is not None:
            return Analysis(mover, pos.result.winner, 0, (), ())
        found = self.theory_wins(pos)
        wins = {move: good for move, (good, _) in found.items()}
        ends = {move: good for move, (good, over) in found.items() if over}
        if not wins:
            return Analysis(mover, other(mover), 0, (), ())
        won, best, plies = self._theory_best(wins, ends)
        near = self.search_reaches_next(pos)
        moves = []
        for move, good in wins.items():
            if move in ends and not ends[move]:
                verdict = Verdict.LOSES_AT_ONCE
            elif won:
                verdict = Verdict.KEEPS_WIN if good else Verdict.THROWS_WIN
            else:
                verdict = Verdict.NO_WIN
            winner = mover if good else other(mover)
            # Its own length (not ``plies``, the best move's).
            length = 1 if move in ends else self._length_after(pos, move, good) if near else None
            moves.append(MoveVerdict(move, verdict, winner, length, won and not good))
        return Analysis(mover, mover if won else other(mover), plies, best, tuple(moves))

    def _length_after(self, pos: Position, move: str, good: bool) -> int | None:
        """The number of moves to the end after ``move`` (this one included), where the
        position it makes is within the search (the analysis of that position says it, so
        the move's must); None beyond."""
        child = self.play(pos, move)
        if child.result is not None or not self.searchable(child):
            return None
        wins, plies = self.move_value(pos, move)
        return plies if wins == good else None

    @staticmethod
    def _theory_best(wins: dict[str, bool], ends: dict[str, bool]):
        """(won, best moves, plies) from each move's theory verdict: a win at once is the
        fastest; otherwise every winning move is as good as the theory can tell, and for
        the loser every move that does not lose at once."""
        won = any(wins.values())
        if won:
            at_once = tuple(move for move, good in ends.items() if good)
            best = at_once or tuple(move for move, good in wins.items() if good)
            return won, best, 1 if at_once else None
        lasting = tuple(move for move in wins if move not in ends)
        return won, lasting or tuple(wins), None if lasting else 1

    def best_moves(self, pos: Position) -> tuple[str, ...]:
        """The analysis's best moves, without the verdicts' objects where the theory
        answers (what a best line follows, step by step)."""
        if pos.result is None and not self.searchable(pos):
            found = self.theory_wins(pos)
            if found:
                wins = {move: good for move, (good, _) in found.items()}
                ends = {move: good for move, (good, over) in found.items() if over}
                return self._theory_best(wins, ends)[1]
        return self.analyse(pos).best_moves

    def search_analysis(self, pos: Position) -> Analysis:
        """Exact perfect-play analysis by exhaustive search (negamax, memoised): the
        winner, in how many moves, and every move's verdict. The reference the theory
        solvers are tested against."""
        mover = pos.to_move
        if pos.result is not None:
            return Analysis(mover, pos.result.winner, 0, (), ())
        memo = self.memo_for(pos)
        scored = [(move, self.move_value(pos, move, memo)) for move in self.moves(pos)]
        return self.assemble(pos, scored)

    def assemble(self, pos: Position, scored: list[tuple[str, Value]]) -> Analysis:
        """The analysis of ``pos`` (a game in progress) from each move's exact value."""
        mover = pos.to_move
        if not scored:  # only reached for positions built by hand: no move, mover loses
            return Analysis(mover, other(mover), 0, (), ())
        best = scored[0][1]
        for _, value in scored[1:]:
            if better(value, best):
                best = value
        winner = mover if best[0] else other(mover)
        moves = []
        for move, value in scored:
            if value == LOSS_AT_ONCE:  # only a move that ends the game can lose in one
                verdict = Verdict.LOSES_AT_ONCE
            elif best[0]:
                verdict = Verdict.KEEPS_WIN if value[0] else Verdict.THROWS_WIN
            else:
                verdict = Verdict.NO_WIN
            moves.append(
                MoveVerdict(
                    move,
                    verdict,
                    mover if value[0] else other(mover),
                    value[1],
                    blunder=best[0] and not value[0],
                )
            )
        best_moves = tuple(move for move, value in scored if value == best)
        return Analysis(mover, winner, best[1], best_moves, tuple(moves))

    def move_value(self, pos: Position, move: str, memo: dict | None = None) -> Value:
        """The value of playing ``move`` in ``pos``, for the player who plays it."""
        child = self.play(pos, move)
        if child.result is not None:
            return WIN_AT_ONCE if child.result.winner == pos.to_move else LOSS_AT_ONCE
        wins, plies = self.value(self.key(child), self.memo_for(pos) if memo is None else memo)
        return (not wins, plies + 1)

    def value(self, key: Any, memo: dict) -> Value:
        """Negamax over compact keys, memoised: (the player to move wins, plies to the end)."""
        found = memo.get(key)
        if found is not None:
            return found
        best: Value | None = None
        for outcome, child in self.successors(key):
            if outcome is True:
                value = WIN_AT_ONCE
            elif outcome is False:
                value = LOSS_AT_ONCE
            else:
                wins, plies = self.value(child, memo)
                value = (not wins, plies + 1)
            if best is None or better(value, best):
                best = value
                if best == WIN_AT_ONCE:
                    break
        if best is None:
            best = (False, 0)  # no move: the player to move has lost
        memo[key] = best
        return best

    def key(self, pos: Position) -> Any:
        """A compact, hashable key for everything about ``pos`` that matters from here on."""
        raise NotImplementedError

    def successors(self, key: Any) -> Iterable[tuple[bool | None, Any]]:
        """For each move from ``key``: (True: the mover wins at once / False: loses at once /
        None: the game goes on, child key)."""
        raise NotImplementedError

    def verdict_of(self, pos: Position, move: str) -> MoveVerdict:
        """The verdict of a move actually played in ``pos`` (for replays and the admin).

        Works for moves outside ``legal_moves`` that the rules still accept, such
        as a Bit Flip: Divisor forfeit.
        """
        analysis = self.analyse(pos)
        found = analysis.verdict(self.canonical(pos, move))
        if found is not None:
            return found
        after = self.play(pos, move)
        if after.result is not None and after.result.winner != pos.to_move:
            return MoveVerdict(
                move,
                Verdict.LOSES_AT_ONCE,
                after.result.winner,
                1,
                blunder=analysis.winner != after.result.winner,
            )
        raise IllegalMove(f"{move!r} is not a move in this position.")


def parse_int(text: str) -> int | None:
    """A whole number typed by a player, or None if the text names none."""
    text = text.strip()
    if re.fullmatch(r"[+-]?\d{1,31}", text):
        return int(text)
    return None
