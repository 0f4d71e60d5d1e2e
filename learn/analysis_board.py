"""The analysis board: any position of a game, every legal move with its exact verdict.

Nothing is stored: the whole state is the query string of
``/games/<slug>/analysis/``, so an analysis is shared by its link.

    ?width=5&moves=3.1.4-5&ply=2

- The game's options by their names (``width``, ``divisor``, ``highest``,
  ``condition``, ``target``, ``max_length``), checked by the rules exactly as the
  new-match form checks them (``Game.clean_options``); an option left out takes its
  default, and only options that differ from the default are written.
- ``moves``: the tree of moves (``write``/``read`` below): the line's moves in the rules'
  canonical texts, joined by ``.``, a space inside a move written ``-`` (Bit Flip's "4 5"
  is ``4-5``), and after a move its variations in brackets (``3.1(2.4-5).4``). At most
  MAX_PLIES moves in all, each replayed through the rules (an illegal move, a move after
  the game ended, or a move given twice from one position is refused).
- ``ply``: the cursor, how many of the line's moves are on the board (left out: all of
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
from games.review import Cell, Strip, strip_plies
from games.review_views import draw_strip
from games.rules import Game, IllegalMove, MoveVerdict, Position
from games.rules.base import MAX_MOVE_TEXT
from games.verdicts import value_words, verdict_class

from .solutions import LINE_CAP, Solution, solve_line, solve_position

# The most moves the board takes, the line and its variations together (a URL stays a few
# kilobytes at most).
MAX_PLIES = 400
MOVES, PLY = "moves", "ply"
SEPARATOR, SPACE = ".", "-"
OPEN, CLOSE = "(", ")"
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_MARKS = re.compile(r"([.()])")  # what stands between moves
_PLY = re.compile(r"\d{1,6}")
_SHOWN = 40  # characters of a bad value quoted back in a message

# A node of the tree of moves: (move, its continuations). The first continuation is the
# line's; the others are variations. The tree is the continuations of the start.
Node = tuple  # tuple[str, tuple[Node, ...]]


class BadAnalysis(ValueError):
    """The query string names no position: the message says what was wrong."""


@dataclass(frozen=True)
class State:
    """One analysis: the game, its options (all of them, cleaned), the tree of moves, and
    the cursor (how many moves of the line are on the board). The line (``moves``) is the
    tree's first continuation at every step; the other continuations are variations."""

    game: Game
    options: dict[str, Any]
    moves: tuple[str, ...]
    ply: int
    # The position after each ply of the line (0 .. len(moves)), from the replay.
    positions: tuple[Position, ...] = field(compare=False, repr=False, default=())
    tree: tuple[Node, ...] = ()
    size: int = 0  # moves in the tree, the line's and the variations'

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

    @cached_property
    def written(self) -> str:
        """The tree as the address writes it (``write``)."""
        return write(self.tree)

    @property
    def variations(self) -> int:
        """How many variations the tree holds (continuations other than the first)."""
        count, stack = 0, [self.tree]
        while stack:
            kids = stack.pop()
            count += max(0, len(kids) - 1)
            stack.extend(node[1] for node in kids)
        return count


def _quote(value: str) -> str:
    return repr(value if len(value) <= _SHOWN else value[:_SHOWN] + "…")


def _token(move: str) -> str:
    return move.replace(" ", SPACE)


# ---- the tree of moves: written, read, grown ---------------------------------------------
#
#     moves=3.1(2.4-5)(5).4
#
# Moves joined by "."; after a move, each variation in brackets: a line that replaces that
# move (here, after 3, the line plays 1 then 4; 2 then "4 5" and 5 are played instead of
# 1). Variations nest. As in PGN's recursive annotation variations, written without move
# numbers. Every function here walks the tree with its own stack: a line of 400 moves
# costs no recursion.


def write(tree: tuple[Node, ...]) -> str:
    """The tree in the address's form (the inverse of ``read``, for a tree it made)."""
    out: list[str] = []
    stack: list = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        if not item:
            continue
        (move, kids), *others = item
        out.append(_token(move))
        later: list = []
        for other in others:
            later += [OPEN, (other,), CLOSE]
        if kids:
            later += [SEPARATOR, kids]
        stack.extend(reversed(later))
    return "".join(out)


def read(written: str) -> list:
    """The tree written in an address, as nested lists ``[text, [continuations]]``, its
    moves' texts as written. BadAnalysis says where the writing goes wrong."""
    pieces = _MARKS.split(written) if written else []
    moves = sum(1 for piece in pieces if piece and piece not in (SEPARATOR, OPEN, CLOSE))
    if moves > MAX_PLIES:
        raise BadAnalysis(
            f"The analysis board takes at most {MAX_PLIES} moves, variations included; "
            f"this has {moves}."
        )
    example = f"moves=3{SEPARATOR}1{SEPARATOR}4{SPACE}5, or with a variation 3{OPEN}2{CLOSE}.1"
    root: list = []
    target, last, stack, number = root, None, [], 0
    expecting = True  # a move must come next
    for piece in pieces:
        if piece in (SEPARATOR, CLOSE, OPEN):
            if expecting:
                said = "Move 1" if number == 0 else f"After move {number}"
                raise BadAnalysis(
                    f"{said}, {_quote(piece)} comes where a move should be: moves are "
                    f"joined by {SEPARATOR!r}, a space inside a move is written {SPACE!r}, "
                    f"and a variation is a line in brackets after the move it replaces "
                    f"(for example {example})."
                )
            if piece == SEPARATOR:
                target, expecting = last[1], True
            elif piece == OPEN:
                stack.append((target, last))
                expecting = True
            else:
                if not stack:
                    raise BadAnalysis(f"A {CLOSE!r} closes no variation: open it with {OPEN!r}.")
                target, last = stack.pop()
            continue
        if not piece and not expecting:
            continue  # between two marks, as in ")."
        number += 1
        if not expecting or len(piece) > MAX_MOVE_TEXT or not _TOKEN.fullmatch(piece):
            raise BadAnalysis(
                f"Move {number} ({_quote(piece)}) is not written as a move: moves are "
                f"joined by {SEPARATOR!r}, and a space inside a move is written {SPACE!r} "
                f"(for example {example})."
            )
        last = [piece.replace(SPACE, " "), []]
        target.append(last)
        expecting = False
    if stack:
        raise BadAnalysis(f"A variation is not closed: end it with {CLOSE!r}.")
    return root


def freeze(kids: list) -> tuple[Node, ...]:
    """Nested lists ``[move, [continuations]]`` as the tree of tuples a State holds."""
    order, stack = [], [kids]
    while stack:
        for node in stack.pop():
            order.append(node)
            stack.append(node[1])
    frozen: dict[int, Node] = {}
    for node in reversed(order):  # every node after its continuations
        frozen[id(node)] = (node[0], tuple(frozen[id(kid)] for kid in node[1]))
    return tuple(frozen[id(node)] for node in kids)


def _line(tree: tuple[Node, ...]) -> list[str]:
    """The line: the first continuation at every step."""
    moves, kids = [], tree
    while kids:
        moves.append(kids[0][0])
        kids = kids[0][1]
    return moves


def grow(tree: tuple[Node, ...], path: Sequence[str]) -> tuple[Node, ...]:
    """The tree with ``path`` (moves from the start) made its line's beginning: at each
    step the continuation played comes first (a move not there yet is added first), the
    others follow in their order. Nothing is lost: the line left becomes a variation."""
    steps, kids = [], tree
    for move in path:
        at = next((i for i, node in enumerate(kids) if node[0] == move), None)
        steps.append((kids, at, move))
        kids = () if at is None else kids[at][1]
    below = kids
    for kids, at, move in reversed(steps):
        if at is None:
            below = ((move, below), *kids)
        else:
            below = ((move, below), *kids[:at], *kids[at + 1 :])
    return below


def _size(tree: tuple[Node, ...]) -> int:
    count, stack = 0, [tree]
    while stack:
        kids = stack.pop()
        count += len(kids)
        stack.extend(node[1] for node in kids)
    return count


def build(
    game: Game,
    options: Mapping[str, Any],
    moves: Sequence[str],
    ply: int | None = None,
    tree: list | None = None,
):
    """A state from options and move texts (or a tree of them, as ``read`` gives): the
    options checked, every move replayed through the rules and made canonical.
    BadAnalysis says what is wrong."""
    try:
        cleaned = game.clean_options(dict(options))
    except ValueError as error:
        raise BadAnalysis(str(error)) from None
    if tree is None:
        if len(moves) > MAX_PLIES:
            raise BadAnalysis(
                f"The analysis board takes at most {MAX_PLIES} moves; this line has {len(moves)}."
            )
        tree = []
        target = tree
        for text in moves:
            node = [text, []]
            target.append(node)
            target = node[1]
    start = game.start(**cleaned)
    # Every move replayed from the position before it; the line's first, so that its
    # refusals name the line's moves by their numbers.
    stack = [(tree, start, 0, False)]
    while stack:
        kids, pos, ply_before, aside = stack.pop()
        seen: dict[str, int] = {}
        for index, node in enumerate(kids):
            number, text = ply_before + 1, node[0]
            where = f"Move {number} ({_quote(text)})" + (
                " of a variation" if aside or index else ""
            )
            if pos.over:
                raise BadAnalysis(
                    f"{where} comes after the game ended: {game.describe_outcome(pos)}"
                )
            try:
                move = game.canonical(pos, text)
                after = game.play(pos, move)
            except IllegalMove as error:
                why = str(error) or "it is not a move of this game."
                raise BadAnalysis(f"{where} cannot be played: {why}") from None
            if not _TOKEN.fullmatch(_token(move)):
                raise BadAnalysis(f"{where} cannot be written in a link.")
            if move in seen:
                raise BadAnalysis(
                    f"{where} is given twice from the same position: give each move once."
                )
            seen[move] = index
            node[0] = move
            stack.append((node[1], after, number, aside or index > 0))
    frozen = freeze(tree)
    line = _line(frozen)
    pos, positions = start, [start]
    for move in line:
        pos = game.play(pos, move)
        positions.append(pos)
    if ply is None:
        ply = len(line)
    if not 0 <= ply <= len(line):
        raise BadAnalysis(f"The ply must be a whole number from 0 to {len(line)}, not {ply}.")
    return State(game, cleaned, tuple(line), ply, tuple(positions), frozen, _size(frozen))


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
    tree = read(single.pop(MOVES, ""))
    ply = None
    if PLY in single:
        written_ply = single.pop(PLY).strip()
        if not _PLY.fullmatch(written_ply):
            line = 0
            kids = tree
            while kids:
                line, kids = line + 1, kids[0][1]
            raise BadAnalysis(
                f"The ply must be a whole number from 0 to {line}, not {_quote(written_ply)}."
            )
        ply = int(written_ply)
    return build(game, single, (), ply, tree)


def query(state: State, ply: int | None = None, written: str | None = None, line: int = 0) -> str:
    """The query string of ``state`` at cursor ``ply`` (or of its options with another
    tree, ``written`` as ``write`` writes it, whose line is ``line`` moves long): options
    that differ from their defaults, the moves, and the ply unless it is the line's end."""
    if written is None:
        written, line = state.written, len(state.moves)
    ply = state.ply if ply is None else ply
    # The moves are canonical texts that passed _TOKEN (letters, digits, "-"): URL-safe,
    # as are ".", "(" and ")".
    parts = [state.options_query] if state.options_query else []
    if written:
        parts.append(f"{MOVES}={written}")
    if ply != line:
        parts.append(f"{PLY}={ply}")
    return "&".join(parts)


_paths: dict[str, str] = {}


def url(state: State, ply: int | None = None, written: str | None = None, line: int = 0) -> str:
    """The analysis board's address for ``state`` at cursor ``ply``, or for another tree
    of its options (``written``, its line ``line`` moves long; see ``query``)."""
    base = _paths.get(state.game.slug)
    if base is None:  # reversed once per game and process
        base = _paths[state.game.slug] = reverse("analysis", args=[state.game.slug])
    text = query(state, ply, written, line)
    return f"{base}?{text}" if text else base


def _with_query(path: str, written: str) -> str:
    return f"{path}?{written}" if written else path


def play_path(state: State) -> str:
    """Where the board's buttons and the typed move post a move (``played_url``)."""
    return _with_query(reverse("analysis_play", args=[state.game.slug]), query(state))


def url_of_tree(state: State, tree: tuple[Node, ...], ply: int | None = None) -> str:
    """The address of another tree of ``state``'s options, the cursor at ``ply`` of its
    line (left out: the line's end)."""
    line = len(_line(tree))
    return url(state, line if ply is None else ply, write(tree), line)


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


def _continuations(state: State, ply: int) -> tuple[Node, ...]:
    """The tree's continuations after ``ply`` moves of the line (the first: the line's)."""
    kids = state.tree
    for _ in range(ply):
        kids = kids[0][1]
    return kids


def _with_new_move(state: State, move: str) -> str:
    """The tree, written, with ``move`` (not among the continuations at the cursor) played
    at the cursor: it starts the line there, and what followed becomes its first
    variation. Spliced into the written tree: no tree is built for each choice."""
    written, ply = state.written, state.ply
    token = _token(move)
    if ply == len(state.moves):  # the end of the line
        return f"{written}{SEPARATOR}{token}" if written else token
    # Where each of the line's moves stands in the written tree.
    starts, at, kids = [], 0, state.tree
    for _ in range(ply + 2):
        if not kids:
            break
        starts.append(at)
        head, *others = kids
        at += len(_token(head[0])) + sum(len(write((o,))) + 2 for o in others) + 1
        kids = head[1]
    here = starts[ply]
    head = written[here : here + len(_token(state.moves[ply]))]
    if ply + 1 < len(starts):
        next_at = starts[ply + 1]
        others = written[here + len(head) : next_at - 1]
        line = f"{head}{SEPARATOR}{written[next_at:]}"
    else:
        others = written[here + len(head) :]
        line = head
    return f"{written[:here]}{token}{OPEN}{line}{CLOSE}{others}"


def _move_href(state: State, move: str, following: Sequence[str]) -> str:
    """The address after ``move`` (canonical, legal) at the cursor; "" when the board is
    full and the move would be new."""
    if following and following[0] == move:
        return url(state, state.ply + 1)  # the line goes on as it was
    if move in following:  # a variation's first move: it becomes the line
        return url_of_tree(
            state, grow(state.tree, [*state.moves[: state.ply], move]), state.ply + 1
        )
    if state.size >= MAX_PLIES or not _TOKEN.fullmatch(_token(move)):
        return ""
    return url(state, state.ply + 1, _with_new_move(state, move), state.ply + 1)


def played_url(state: State, text: str) -> str:
    """The address after the move ``text`` (as a player types or presses it) is played at
    the cursor; BadAnalysis says why it cannot be."""
    game, pos = state.game, state.position
    if pos.over:
        raise BadAnalysis(f"The game is over: {game.describe_outcome(pos)} No move is left.")
    try:
        move = game.canonical(pos, str(text))
        game.play(pos, move)
    except IllegalMove as error:
        why = str(error) or "it is not a move of this game."
        raise BadAnalysis(f"{_quote(str(text))} cannot be played here: {why}") from None
    href = _move_href(state, move, [node[0] for node in _continuations(state, state.ply)])
    if not href:
        raise BadAnalysis(
            f"The analysis board holds at most {MAX_PLIES} moves, variations included: "
            "start afresh to try others."
        )
    return href


def _variation_items(state: State, presenter, kids, path: list[str], pos: Position) -> list:
    """A variation drawn as the move list draws it: its moves (each a link that makes it
    the line, the cursor on that move) and brackets around the variations inside it."""
    items: list[dict] = []
    stack: list = [(kids, path, pos)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            items.append({"kind": item})
            continue
        (move, after_kids), *others = item[0]
        before_path, before = item[1], item[2]
        after = state.game.play(before, move)
        reached = [*before_path, move]
        items.append(
            {
                "kind": "move",
                "ply": len(reached),
                "player": player(before.to_move),
                "words": presenter.describe(move, after),
                "href": url_of_tree(state, grow(state.tree, reached), len(reached)),
            }
        )
        later: list = []
        for other in others:
            later += ["open", ((other,), before_path, before), "close"]
        if after_kids:
            later.append((after_kids, reached, after))
        stack.extend(reversed(later))
    for before, item in zip([None, *items], items, strict=False):
        item["gap"] = before is not None and before["kind"] != "open" and item["kind"] != "close"
    return items


def strip(state: State, cells: Sequence[tuple[int | None, bool]], presenter) -> dict:
    """The line's verdicts in a picture, drawn as the replay draws its strip
    (games/review_views.draw_strip): ``cells`` (``solutions.solve_line``) say who can
    force a win after each ply, and which moves were blunders."""
    last = len(state.moves)
    drawn = [
        Cell(
            ply=ply,
            player=state.positions[ply - 1].to_move if ply else None,
            move=state.moves[ply - 1] if ply else "",
            winner=cells[ply][0],
            blunder=cells[ply][1],
            current=ply == state.ply,
        )
        for ply in strip_plies(last, state.ply)
    ]
    return draw_strip(
        Strip(tuple(drawn), last),
        name_of=player,
        href_of=lambda ply: url(state, ply),
        presenter=presenter,
        whole="The whole line",
        htmx=True,
    )


def context(state: State, solution: Solution | None = None, cells: Sequence | None = None) -> dict:
    """Everything the analysis page draws for ``state`` (the work its benchmark times),
    from its position's ``solution`` and its line's ``cells`` (solved here if not given)."""
    game, pos, ply = state.game, state.position, state.ply
    presenter = presenter_for(game)
    if solution is None:
        solution = solve_position(game, pos)
    if cells is None:
        cells = solve_line(game, state.options, state.moves)
    analysis = solution.analysis
    here = list(state.moves[:ply])
    room = MAX_PLIES - state.size  # moves the URL can still take
    last_move = state.moves[ply - 1] if ply else ""
    kids = _continuations(state, ply)
    following = [node[0] for node in kids]

    order = {move: i for i, move in enumerate(presenter.sort(m.move for m in analysis.moves))}
    choices = []
    for verdict in sorted(analysis.moves, key=lambda v: (rank(analysis, v), order[v.move])):
        move = verdict.move
        href = _move_href(state, move, following)
        choices.append(
            {
                "move": move,
                "label": presenter.label(move),
                "href": href,
                "verdict": verdict.verdict.label,
                "value": after_text(verdict),
                "class": verdict_class(verdict),
                "best": move in analysis.best_moves,
                "next": bool(following) and following[0] == move,
                "variation": move in following[1:],
            }
        )

    line = best_line(game, pos, solution.line[: min(LINE_CAP, room)])
    best_tree = grow(state.tree, [*here, *(move for move, _ in line)]) if line else state.tree
    best_written, best_length = write(best_tree), len(_line(best_tree))
    best = [
        {
            "ply": ply + i,
            "player": player(before.to_move),
            "words": presenter.describe(move, after),
            "href": url(state, ply + i, best_written, best_length),
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
            "href": url(state, 0),
            "current": ply == 0,
            "variations": (),
        }
    ]
    at = state.tree
    for number, move in enumerate(state.moves, start=1):
        before = state.positions[number - 1]
        variations = [
            _variation_items(state, presenter, (other,), list(state.moves[: number - 1]), before)
            for other in at[1:]
        ]
        played.append(
            {
                "ply": number,
                "player": player(before.to_move),
                "words": presenter.describe(move, state.positions[number]),
                "href": url(state, number),
                "current": number == ply,
                "variations": variations,
            }
        )
        at = at[0][1]
    last = len(state.moves)
    best_move = next((c for c in choices if c["best"] and c["href"]), None)  # the key "b" plays it
    return {
        "game": game,
        "pos": pos,
        "state": state,
        **presenter.board(
            pos,
            legal=[c["move"] for c in choices if c["href"]],
            touched=presenter.touched(last_move, pos) if ply else (),
        ),
        # The board's own buttons play a move (a POST to "analysis_play", which answers with
        # the board's address after it), while a move is left and there is room for it.
        "board_template": f"{presenter.template}#position",
        "controls_template": f"{presenter.template}#controls",
        "urls": {"move": play_path(state)},
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
        "best_href": best_move["href"] if best_move else "",
        "room": room,
        "best_line": best,
        "line_goes_on": bool(line) and not line_end.over,
        "played": played,
        "strip": strip(state, cells, presenter),
        "variations": state.variations,
        "nav": [
            (url(state, 0) if ply > 0 else "", "First", "first", "«"),
            (url(state, ply - 1) if ply > 0 else "", "Previous", "previous", "\u2039"),
            (url(state, ply + 1) if ply < last else "", "Next", "next", "\u203a"),
            (url(state, last) if ply < last else "", "Last", "last", "»"),
        ],
        "self_url": url(state),
        "export_url": _with_query(reverse("analysis_export", args=[game.slug]), query(state)),
        "practise_url": reverse("analysis_practise", args=[game.slug]),
        "state_query": query(state),
        "start_url": url_of_tree(state, ()),
        "options_text": game.describe_options(state.options) if game.options else "",
        "max_plies": MAX_PLIES,
    }


def export_text(state: State, address: str) -> str:
    """The line as plain text: each move with its verdict and the value after it, then
    the tree with its variations as the address writes it (``address``: the board's)."""
    game = state.game
    presenter = presenter_for(game)
    options = f" ({game.describe_options(state.options)})" if game.options else ""
    lines = [f"Analysis of {game.title}{options}", f"Address: {address}", ""]
    before = game.analyse(state.positions[0])
    lines.append(f"The start: {value_words(player, before.winner, before.plies, before.note)}")
    for number, move in enumerate(state.moves, start=1):
        pos_before, after = state.positions[number - 1], state.positions[number]
        verdict = before.verdict(move) or game.verdict_of(pos_before, move)
        before = game.analyse(after)
        blunder = ", a blunder" if verdict.blunder else ""
        lines.append(
            f"{number}. {player(pos_before.to_move)} {presenter.describe(move, after)}: "
            f"{verdict.verdict.label}{blunder}. "
            f"{value_words(player, before.winner, before.plies, before.note)}"
        )
    if state.positions[-1].over:
        lines.append(game.describe_outcome(state.positions[-1]))
    if state.variations:
        count = state.variations
        lines += [
            "",
            f"With {count} variation{'s' if count != 1 else ''}, as the address writes them "
            f"(a line in brackets replaces the move before it): {state.written}",
        ]
    return "\n".join(lines) + "\n"
