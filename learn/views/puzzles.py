"""The puzzle pages: find the winning move, checked by the exact analysis.

``/games/<slug>/puzzles/`` lists a game's puzzles (learn/puzzles.py) with the visitor's
streak; ``/games/<slug>/puzzles/<n>/`` is one puzzle. Its form posts a move: any move
after which the mover still wins is right, and the opponent's best defence is played
back, until the win; a wrong move ends the puzzle and the streak.

Everything a visitor has done lives in the session, per game: the puzzle being solved
(its number, the moves made in it, solving / solved / failed), the current streak, the
best streak, and the puzzles solved in the current streak (they are not offered again
within it, and solving one again does not count twice). Nothing is written to the
database. Without JavaScript a move is POST-redirect-GET; with htmx the form swaps the
``#puzzle`` part. Anything malformed or stale is a 400 with a plain message, and
changes nothing.

The pages are expensive answers (learn/answers.py): rate-limited by their cost, every
analysis they need cached by its position's canonical form and computed in the learn
pool; a refusal changes nothing and takes the place of ``#puzzle`` for htmx.
"""

from __future__ import annotations

from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.http import see_other
from games.presenters import presenter_for
from games.rules import GameOver, IllegalMove, Verdict
from games.rules.base import MAX_MOVE_TEXT, other
from learn import answers, puzzles

SESSION_KEY = "puzzles"
SOLVING, SOLVED, FAILED = "solving", "solved", "failed"


# ---- the session's record, per game --------------------------------------------------


def _int(value, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def record_of(session, slug: str) -> dict:
    """This visitor's puzzles of one game, every field checked (a fresh record if none)."""
    store = session.get(SESSION_KEY)
    data = store.get(slug) if isinstance(store, dict) else None
    data = data if isinstance(data, dict) else {}
    moves = data.get("moves")
    seen = data.get("seen")
    state = data.get("state")
    return {
        "streak": max(0, _int(data.get("streak"))),
        "best": max(0, _int(data.get("best"))),
        "seen": [n for n in seen if _int(n, -1) > 0] if isinstance(seen, list) else [],
        "n": _int(data.get("n")),
        "moves": [m for m in moves if isinstance(m, str)] if isinstance(moves, list) else [],
        "state": state if state in (SOLVING, SOLVED, FAILED) else SOLVING,
        "wrong": data.get("wrong") if isinstance(data.get("wrong"), str) else "",
        "counted": bool(data.get("counted")),
    }


def _save(session, slug: str, record: dict) -> None:
    store = session.get(SESSION_KEY)
    store = dict(store) if isinstance(store, dict) else {}
    store[slug] = record
    session[SESSION_KEY] = store


def _attempt(record: dict, puzzle: puzzles.Puzzle):
    """(moves, state, wrong, counted) of this puzzle: the record's if it is the one being
    solved, else a fresh start."""
    if record["n"] == puzzle.n:
        return record["moves"], record["state"], record["wrong"], record["counted"]
    return [], SOLVING, "", False


def _replay(game, puzzle: puzzles.Puzzle, moves: list[str]):
    """The positions of an attempt: the puzzle's, then after each move; None if a move no
    longer plays (a record from an older set of puzzles)."""
    positions = [puzzle.position()]
    for move in moves:
        try:
            positions.append(game.play(positions[-1], move))
        except IllegalMove:
            return None
    return positions


# ---- what the page says ----------------------------------------------------------------


def _player(n: int) -> str:
    return f"Player {n}"


def why_not(game, pos, move: str, analysis) -> str:
    """Why ``move`` does not win ``pos``, from its exact verdict (``analysis``: pos's)."""
    verdict = analysis.verdict(move)
    opponent = _player(other(pos.to_move))
    if verdict.verdict is Verdict.LOSES_AT_ONCE:
        return f"it loses at once. {game.describe_outcome(game.play(pos, move))}"
    if verdict.winner == pos.to_move:  # cannot happen for a refused move; said plainly
        return "it wins, but not from this position."
    left = (verdict.plies or 1) - 1
    moves = "move" if left == 1 else "moves"
    return f"after it, {opponent} wins in {left} {moves} with perfect play."


def _next_url(slug: str, seen, after: int) -> str:
    found = puzzles.next_unseen(slug, seen, after)
    if found is None:
        return reverse("puzzles", args=[slug])
    return reverse("puzzle", args=[slug, found.n])


def puzzle_context(request, game, puzzle: puzzles.Puzzle, message: str = "") -> dict:
    presenter = presenter_for(game)
    record = record_of(request.session, game.slug)
    moves, state, wrong, counted = _attempt(record, puzzle)
    positions = _replay(game, puzzle, moves)
    if positions is None:
        moves, state, wrong, counted = [], SOLVING, "", False
        positions = [puzzle.position()]
    pos = positions[-1]
    touched = presenter.touched(moves[-1], pos) if moves else ()
    solver = puzzle.to_move
    steps = [
        {
            "player": _player(positions[i].to_move),
            "solver": positions[i].to_move == solver,
            "words": presenter.describe(move, positions[i + 1]),
        }
        for i, move in enumerate(moves)
    ]
    context = {
        "game": game,
        "puzzle": puzzle,
        "count": len(puzzles.puzzles_of(game.slug)),
        "options_text": game.describe_options(puzzle.options) if game.options else "",
        "pos": pos,
        **presenter.board(pos, touched=touched),
        "board_template": f"{presenter.template}#position",
        "solver": _player(solver),
        "opponent": _player(other(solver)),
        "steps": steps,
        "at": len(moves),
        "state": state,
        "message": message,
        "record": record,
        "counted": counted,
        "url": reverse("puzzle", args=[game.slug, puzzle.n]),
        "index_url": reverse("puzzles", args=[game.slug]),
        "next_url": _next_url(game.slug, record["seen"], puzzle.n),
        "choices": [],
    }
    if state == SOLVING and not pos.over:
        context["choices"] = [
            {"move": move, "label": presenter.label(move)}
            for move in presenter.sort(game.legal_moves(pos))
        ]
    if state == SOLVED:
        context["ending"] = game.describe_outcome(pos)
    if state == FAILED and wrong:
        context["wrong_words"] = presenter.describe(wrong)
        analysis = answers.analysis(request, game, pos)
        context["why"] = why_not(game, pos, wrong, analysis)
        winning = puzzles.accepted_moves(game, pos, analysis)
        context["winning_text"] = presenter.moves_text(winning)
        context["winning_count"] = len(winning)
    return context


def _render(request, game, puzzle, *, message: str = "", status: int = 200):
    context = puzzle_context(request, game, puzzle, message)
    partial = request.htmx and not request.htmx.history_restore_request
    template = "learn/puzzle.html#puzzle" if partial else "learn/puzzle.html"
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _bad(request, game, message: str):
    """A 400 with a plain message, for a puzzle that does not exist."""
    context = {"game": game, "message": message, "index_url": reverse("puzzles", args=[game.slug])}
    return render(request, "learn/puzzle_missing.html", context, status=400)


# ---- the views -------------------------------------------------------------------------


@require_GET
@answers.costly("puzzles")
def puzzle_list(request, game):
    slug = game.slug
    found = puzzles.puzzles_of(slug)
    record = record_of(request.session, slug)
    seen = set(record["seen"])
    upcoming = puzzles.next_unseen(slug, seen, record["n"] if record["state"] != SOLVING else 0)
    if record["state"] == SOLVING and record["n"] and puzzles.puzzle(slug, record["n"]):
        upcoming = puzzles.puzzle(slug, record["n"])  # the one being solved, first
    context = {
        "game": game,
        "puzzles": [
            {"puzzle": p, "seen": p.n in seen, "options": game.describe_options(p.options)}
            for p in found
        ],
        "has_options": bool(game.options),
        "record": record,
        "upcoming": upcoming,
        "all_seen": bool(found) and upcoming is None,
        "rule": puzzles.RULE,
        "start_note": answers.analysis(request, game, game.start()).note,
        "min_depth": puzzles.MIN_DEPTH,
    }
    return render(request, "learn/puzzles.html", context)


@require_POST
def new_streak(request, game):
    """Start a new streak: every puzzle is offered again (the best streak stays)."""
    slug = game.slug
    record = record_of(request.session, slug)
    record.update(streak=0, seen=[], n=0, moves=[], state=SOLVING, wrong="", counted=False)
    _save(request.session, slug, record)
    return see_other(reverse("puzzles", args=[game.slug]))


@require_http_methods(["GET", "HEAD", "POST"])
@answers.costly("puzzle")
def puzzle_page(request, game, n):
    slug = game.slug
    puzzle = puzzles.puzzle(slug, n)
    if puzzle is None:
        count = len(puzzles.puzzles_of(slug))
        numbered = f"they are numbered 1 to {count}" if count else "it has none"
        return _bad(request, game, f"{game.title} has no puzzle {n:,}: {numbered}.")
    if request.method == "POST":
        return _answer(request, game, puzzle)
    return _render(request, game, puzzle)


def _answer(request, game, puzzle):
    """A move, or "try again", posted to a puzzle."""
    record = record_of(request.session, game.slug)
    moves, state, _, _ = _attempt(record, puzzle)
    if "retry" in request.POST:
        record.update(n=puzzle.n, moves=[], state=SOLVING, wrong="", counted=False)
        return _done(request, game, puzzle, record)
    move = request.POST.get("move")
    at = request.POST.get("at", "")
    if move is None or not at.isdecimal() or len(at) > 6:
        return _render(
            request, game, puzzle, status=400, message="That answer came without its move."
        )
    positions = _replay(game, puzzle, moves)
    if positions is None:
        moves, state, positions = [], SOLVING, [puzzle.position()]
    if int(at) != len(moves) or state != SOLVING:
        return _render(
            request,
            game,
            puzzle,
            status=400,
            message="That move was for an earlier board of this puzzle: here it is as it is now.",
        )
    move = move.strip()
    pos = positions[-1]
    try:
        if len(move) > MAX_MOVE_TEXT:
            raise IllegalMove("That is not a move.")
        reply = puzzles.answer(game, pos, move, lambda p: answers.analysis(request, game, p))
    except (IllegalMove, GameOver):
        shown = move if len(move) <= MAX_MOVE_TEXT else move[:MAX_MOVE_TEXT] + "…"
        return _render(
            request,
            game,
            puzzle,
            status=400,
            message=f"“{shown}” is not one of the legal moves here: press one of the buttons.",
        )
    record.update(n=puzzle.n, wrong="", counted=False)
    if not reply.accepted:
        record.update(moves=moves, state=FAILED, wrong=move, streak=0, seen=[])
    else:
        moves = [*moves, move] + ([reply.defence] if reply.defence else [])
        record.update(moves=moves, state=SOLVED if reply.solved else SOLVING)
        if reply.solved and puzzle.n not in record["seen"]:
            record["seen"] = [*record["seen"], puzzle.n]
            record["streak"] += 1
            record["best"] = max(record["best"], record["streak"])
            record["counted"] = True
    return _done(request, game, puzzle, record)


def _done(request, game, puzzle, record):
    _save(request.session, game.slug, record)
    if request.htmx:
        return _render(request, game, puzzle)
    return see_other(reverse("puzzle", args=[game.slug, puzzle.n]))
