"""The analysis board: any position of a game, every legal move with its exact verdict.

Nothing is stored: the whole state is the query string of
``/games/<slug>/analysis/``, so an analysis is shared by its link.

    ?width=5&moves=3.1.4-5&ply=2

- The game's options by their names (``width``, ``divisor``, ``highest``,
  ``condition``, ``target``, ``max_length``), checked by the rules exactly as the
  new-match form checks them (``Game.clean_options``); an option left out takes its
  default, and only options that differ from the default are written.
- ``moves``: the moves played from the start, in the rules' canonical texts, joined by
  ``.``; a space inside a move is written ``-`` (Bit Flip's "4 5" is ``4-5``). At most
  MAX_PLIES moves, each replayed through the rules (an illegal move, or a move after
  the game ended, is refused).
- ``ply``: the cursor, how many of those moves are on the board (left out: all of
  them). The moves after it are the line that "forward" steps through.

``parse`` refuses anything else with ``BadAnalysis`` (a plain message; the view answers
400); ``query`` writes a state back, and ``parse(query(state)) == state``.
Every verdict and value comes from ``game.analyse``, through the position's
``Solution`` (learn/solutions.py: the analysis and the best line; the view gets it from
learn/answers.py, cached and computed in the learn pool); the words are the replay's
(``games.verdicts.value_words`` and the Verdict labels).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from games.presenters import presenter_for
from games.rules import Game, IllegalMove, MoveVerdict, Position
from games.rules.base import MAX_MOVE_TEXT
from games.verdicts import value_words, verdict_class

from .solutions import LINE_CAP, Solution, solve_position

# The longest line the board takes, in plies (a URL stays a few kilobytes at most).
MAX_PLIES = 400
MOVES, PLY = "moves", "ply"
SEPARATOR, SPACE = ".", "-"
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_PLY = re.compile(r"\d{1,6}")
_SHOWN = 40  # characters of a bad value quoted back in a message


class BadAnalysis(ValueError):
    """The query string names no position: the message says what was wrong."""


@dataclass(frozen=True)
class State:
    """One analysis: the game, its options (all of them, cleaned), the line, the cursor."""

    game: Game
    options: dict[str, Any]
    moves: tuple[str, ...]
    ply: int
    # The position after each ply of the line (0 .. len(moves)), from the replay.
    positions: tuple[Position, ...] = field(compare=False, repr=False, default=())

    @property
    def position(self) -> Position:
        return self.positions[self.ply]

    @cached_property
    def options_query(self) -> str:
        """The options that differ from their defaults, as a query string."""
        return urlencode(
            [
                (opt.name, str(self.options[opt.name]))
                for opt in self.game.options
                if self.options[opt.name] != opt.default
            ]
        )


def _quote(value: str) -> str:
    return repr(value if len(value) <= _SHOWN else value[:_SHOWN] + "…")


def build(game: Game, options: Mapping[str, Any], moves: Sequence[str], ply: int | None = None):
    """A state from options and move texts: the options checked, the moves replayed
    through the rules and made canonical. BadAnalysis says what is wrong."""
    try:
        cleaned = game.clean_options(dict(options))
    except ValueError as error:
        raise BadAnalysis(str(error)) from None
    if len(moves) > MAX_PLIES:
        raise BadAnalysis(
            f"The analysis board takes at most {MAX_PLIES} moves; this line has {len(moves)}."
        )
    pos = game.start(**cleaned)
    positions, canonical = [pos], []
    for number, text in enumerate(moves, start=1):
        if pos.over:
            raise BadAnalysis(
                f"Move {number} ({_quote(text)}) comes after the game ended: "
                f"{game.describe_outcome(pos)}"
            )
        try:
            move = game.canonical(pos, text)
            pos = game.play(pos, move)
        except IllegalMove as error:
            why = str(error) or "it is not a move of this game."
            raise BadAnalysis(f"Move {number} ({_quote(text)}) cannot be played: {why}") from None
        if not _TOKEN.fullmatch(move.replace(" ", SPACE)):
            raise BadAnalysis(f"Move {number} ({_quote(text)}) cannot be written in a link.")
        canonical.append(move)
        positions.append(pos)
    if ply is None:
        ply = len(canonical)
    if not 0 <= ply <= len(canonical):
        raise BadAnalysis(f"The ply must be a whole number from 0 to {len(canonical)}, not {ply}.")
    return State(game, cleaned, tuple(canonical), ply, tuple(positions))


def parse(game: Game, query) -> State:
    """The state named by a query string (a Django QueryDict, or any mapping of names to
    lists of values, as ``QueryDict.lists()`` gives)."""
    values = dict(query.lists()) if hasattr(query, "lists") else dict(query)
    names = [opt.name for opt in game.options]
    single: dict[str, str] = {}
    for name, given in values.items():
        if name not in (*names, MOVES, PLY):
            takes = ", ".join([*names, MOVES, PLY])
            raise BadAnalysis(f"The {game.title} analysis board takes {takes}; not {_quote(name)}.")
        if len(given) != 1:
            raise BadAnalysis(f"{_quote(name)} is given {len(given)} times: give it once.")
        single[name] = given[0]
    moves: list[str] = []
    written = single.pop(MOVES, "")
    if written:
        tokens = written.split(SEPARATOR)
        if len(tokens) > MAX_PLIES:
            raise BadAnalysis(
                f"The analysis board takes at most {MAX_PLIES} moves; this line has {len(tokens)}."
            )
        for number, token in enumerate(tokens, start=1):
            if len(token) > MAX_MOVE_TEXT or not _TOKEN.fullmatch(token):
                raise BadAnalysis(
                    f"Move {number} ({_quote(token)}) is not written as a move: moves are "
                    f"joined by {SEPARATOR!r}, and a space inside a move is written {SPACE!r} "
                    f"(for example moves=3{SEPARATOR}1{SEPARATOR}4{SPACE}5)."
                )
            moves.append(token.replace(SPACE, " "))
    ply = None
    if PLY in single:
        written_ply = single.pop(PLY).strip()
        if not _PLY.fullmatch(written_ply):
            raise BadAnalysis(
                f"The ply must be a whole number from 0 to {len(moves)}, not {_quote(written_ply)}."
            )
        ply = int(written_ply)
    return build(game, single, moves, ply)


def query(state: State, moves: Sequence[str] | None = None, ply: int | None = None) -> str:
    """The query string of ``state`` (or of its options with another line, whose cursor is
    its end unless ``ply`` says otherwise): options that differ from their defaults, the
    moves, and the ply unless it is the end."""
    if moves is None:
        moves, ply = state.moves, state.ply if ply is None else ply
    else:
        moves = tuple(moves)
        ply = len(moves) if ply is None else ply
    # The moves are canonical texts that passed _TOKEN (letters, digits, "-"): URL-safe.
    parts = [state.options_query] if state.options_query else []
    if moves:
        parts.append(f"{MOVES}={SEPARATOR.join(move.replace(' ', SPACE) for move in moves)}")
    if ply != len(moves):
        parts.append(f"{PLY}={ply}")
    return "&".join(parts)


_paths: dict[str, str] = {}


def url(state: State, moves: Sequence[str] | None = None, ply: int | None = None) -> str:
    """The analysis board's address for ``state`` (or another line and cursor of it)."""
    base = _paths.get(state.game.slug)
    if base is None:  # reversed once per game and process
        base = _paths[state.game.slug] = reverse("analysis", args=[state.game.slug])
    written = query(state, moves, ply)
    return f"{base}?{written}" if written else base


# ---- what the page shows ---------------------------------------------------------------


def player(number: int | None) -> str:
    return f"Player {number}" if number else "nobody"


def rank(analysis, verdict: MoveVerdict) -> tuple:
    """Best first, for the player to move: wins (fastest first), then nobody can force a
    win, then losses (slowest first)."""
    if verdict.winner == analysis.to_move:
        return (0, verdict.plies or 0)
    if verdict.winner is None:
        return (1, 0)
    return (2, -(verdict.plies or 0))


def after_text(verdict: MoveVerdict) -> str:
    """The value of the position a move makes, in the replay's words."""
    plies = None if verdict.plies is None else verdict.plies - 1
    return value_words(player, verdict.winner, plies)


def best_line(game: Game, pos: Position, line: Sequence[str]) -> list[tuple[str, Position]]:
    """The moves of the best line (``Solution.line``) with the position after each."""
    steps = []
    for move in line:
        pos = game.play(pos, move)
        steps.append((move, pos))
    return steps


def context(state: State, solution: Solution | None = None) -> dict:
    """Everything the analysis page draws for ``state`` (the work its benchmark times),
    from its position's ``solution`` (solved here if not given)."""
    game, pos, ply = state.game, state.position, state.ply
    presenter = presenter_for(game)
    if solution is None:
        solution = solve_position(game, pos)
    analysis = solution.analysis
    here = state.moves[:ply]
    room = MAX_PLIES - ply  # moves the URL can still take
    last_move = state.moves[ply - 1] if ply else ""

    order = {move: i for i, move in enumerate(presenter.sort(m.move for m in analysis.moves))}
    choices = []
    for verdict in sorted(analysis.moves, key=lambda v: (rank(analysis, v), order[v.move])):
        if ply < len(state.moves) and state.moves[ply] == verdict.move:
            href = url(state, ply=ply + 1)  # the line goes on as it was
        else:
            href = url(state, (*here, verdict.move)) if room > 0 else ""
        choices.append(
            {
                "move": verdict.move,
                "label": presenter.label(verdict.move),
                "href": href,
                "verdict": verdict.verdict.label,
                "value": after_text(verdict),
                "class": verdict_class(verdict),
                "best": verdict.move in analysis.best_moves,
                "next": ply < len(state.moves) and state.moves[ply] == verdict.move,
            }
        )

    line = best_line(game, pos, solution.line[: min(LINE_CAP, room)])
    whole = (*here, *(move for move, _ in line))
    best = [
        {
            "ply": ply + i,
            "player": player(before.to_move),
            "words": presenter.describe(move, after),
            "href": url(state, whole, ply + i),
        }
        for i, ((move, after), before) in enumerate(
            zip(line, [pos, *(after for _, after in line)], strict=False), start=1
        )
    ]
    line_end = line[-1][1] if line else pos

    played = [
        {
            "ply": 0,
            "words": "Start",
            "player": "",
            "href": url(state, ply=0),
            "current": ply == 0,
        }
    ]
    for number, move in enumerate(state.moves, start=1):
        played.append(
            {
                "ply": number,
                "player": player(state.positions[number - 1].to_move),
                "words": presenter.describe(move, state.positions[number]),
                "href": url(state, ply=number),
                "current": number == ply,
            }
        )
    last = len(state.moves)
    return {
        "game": game,
        "pos": pos,
        "state": state,
        **presenter.board(pos, touched=presenter.touched(last_move, pos) if ply else ()),
        "board_template": f"{presenter.template}#position",
        "ply": ply,
        "last_ply": last,
        "to_move": player(pos.to_move),
        "over": pos.over,
        "outcome": game.describe_outcome(pos),
        "last_words": (
            f"{player(state.positions[ply - 1].to_move)} {presenter.describe(last_move, pos)}"
            if ply
            else ""
        ),
        "value": value_words(player, analysis.winner, analysis.plies, analysis.note),
        "choices": choices,
        "room": room,
        "best_line": best,
        "line_goes_on": bool(line) and not line_end.over,
        "played": played,
        "nav": [
            (url(state, ply=0) if ply > 0 else "", "First", "first", "«"),
            (url(state, ply=ply - 1) if ply > 0 else "", "Previous", "previous", "\u2039"),
            (url(state, ply=ply + 1) if ply < last else "", "Next", "next", "\u203a"),
            (url(state, ply=last) if ply < last else "", "Last", "last", "»"),
        ],
        "self_url": url(state),
        "start_url": url(state, ()),
        "options_text": game.describe_options(state.options) if game.options else "",
        "max_plies": MAX_PLIES,
    }
