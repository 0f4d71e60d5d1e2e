"""The puzzle pages: find the winning move, checked by the exact analysis.

``/games/<slug>/puzzles/`` lists a game's puzzles (learn/puzzles.py) with their ratings,
themes and the visitor's results; ``/games/<slug>/puzzles/<n>/`` is one puzzle. Its
form posts a move: any move after which the mover still wins is right, and the
opponent's best defence is played back, until the win; a wrong move ends the attempt.
The form also takes "hint" (where to look), "solution" (the winning line) and "retry".

The first attempt at a puzzle is rated, for the solver and the puzzle (learn/solvers.py,
Glicko-2): solved without help is a win, solved after a hint a draw, a wrong move or the
solution a loss. Later attempts change nothing. The solver's rating is shown throughout;
the puzzle's once the attempt is over. "Next puzzle" is the untried puzzle of the game
whose rating is nearest the solver's.

Also: the daily puzzle (``/learn/puzzles/daily/``, the same for everyone on a day), the
solver's history (``/learn/puzzles/history/``) and the theme pages
(``/learn/puzzles/themes/`` and ``.../<theme>/``).

The attempt being made (the puzzle, its moves, its state, whether a hint was taken) lives
in the session, per game. Without JavaScript a post is POST-redirect-GET (to the moves,
``#puzzle-play``); with htmx the form swaps the ``#puzzle`` part and the first move button
(or, once over, "Next puzzle") takes the focus. Anything malformed or stale is a 400 with
a plain message, and changes nothing.

The puzzle pages are expensive answers (learn/answers.py): rate-limited by their cost,
every analysis they need cached by its position's canonical form and computed in the
learn pool; a refusal changes nothing and takes the place of ``#puzzle`` for htmx.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from games.http import see_other
from games.presenters import presenter_for
from games.rules import GAMES, GameOver, IllegalMove, Verdict, get_game
from games.rules.base import MAX_MOVE_TEXT, other
from learn import answers, puzzles, solvers, themes
from learn.models import PuzzleAttempt, PuzzleRating
from ratings import glicko
from ratings.models import shown

SESSION_KEY = "puzzles"
SOLVING, SOLVED, FAILED, SOLUTION = "solving", "solved", "failed", "solution"
STATES = (SOLVING, SOLVED, FAILED, SOLUTION)
HISTORY_PAGE = 50


# ---- the session's record of the attempt being made, per game ---------------------------


def _int(value, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def record_of(session, slug: str) -> dict:
    """This visitor's attempt in one game, every field checked (a fresh record if none)."""
    store = session.get(SESSION_KEY)
    data = store.get(slug) if isinstance(store, dict) else None
    data = data if isinstance(data, dict) else {}
    moves = data.get("moves")
    state = data.get("state")
    return {
        "n": _int(data.get("n")),
        "moves": [m for m in moves if isinstance(m, str)] if isinstance(moves, list) else [],
        "state": state if state in STATES else SOLVING,
        "wrong": data.get("wrong") if isinstance(data.get("wrong"), str) else "",
        "hint": data.get("hint") is True,
    }


def _save(session, slug: str, record: dict) -> None:
    store = session.get(SESSION_KEY)
    store = dict(store) if isinstance(store, dict) else {}
    store[slug] = record
    session[SESSION_KEY] = store


def _fresh(n: int) -> dict:
    return {"n": n, "moves": [], "state": SOLVING, "wrong": "", "hint": False}


def _attempt(record: dict, puzzle: puzzles.Puzzle) -> dict:
    """The record if it is of this puzzle, else a fresh start at it."""
    return dict(record) if record["n"] == puzzle.n else _fresh(puzzle.n)


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


def solver_rating(solver) -> glicko.Glicko:
    return solver.glicko if solver is not None else glicko.Glicko()


def next_puzzle(slug: str, solver, after: int = 0) -> puzzles.Puzzle | None:
    """The next puzzle of a game for this solver: of those not yet tried (else those not
    yet solved), not ``after``, the one whose rating is nearest the solver's."""
    found = [p for p in puzzles.puzzles_of(slug) if p.n != after]
    tried = solvers.tried(solver, slug)
    ratings = solvers.ratings_of(slug)
    rating = solver_rating(solver).rating
    untried = [p for p in found if p.key not in tried]
    if untried:
        return puzzles.closest(untried, rating, ratings)
    unsolved = [p for p in found if not tried[p.key].won]
    return puzzles.closest(unsolved, rating, ratings)


def _next_url(slug: str, solver, after: int) -> str:
    found = next_puzzle(slug, solver, after)
    if found is None:
        return reverse("puzzles", args=[slug])
    return reverse("puzzle", args=[slug, found.n])


def _theme_links(keys) -> list[dict]:
    return [
        {"key": key, "title": themes.THEMES[key].title, "url": reverse("puzzle_theme", args=[key])}
        for key in keys
        if key in themes.THEMES
    ]


def _puzzle_rating(puzzle: puzzles.Puzzle):
    rated = solvers.rating_of(puzzle.key)
    if rated is None:
        return shown(puzzle.rating, glicko.START_DEVIATION)
    return rated.shown


def puzzle_context(request, game, puzzle: puzzles.Puzzle, message: str = "") -> dict:
    presenter = presenter_for(game)
    attempt = _attempt(record_of(request.session, game.slug), puzzle)
    positions = _replay(game, puzzle, attempt["moves"])
    if positions is None:
        attempt, positions = _fresh(puzzle.n), [puzzle.position()]
    moves, state = attempt["moves"], attempt["state"]
    pos = positions[-1]
    touched = presenter.touched(moves[-1], pos) if moves else ()
    solver_number = puzzle.to_move
    steps = [
        {
            "player": _player(positions[i].to_move),
            "solver": positions[i].to_move == solver_number,
            "words": presenter.describe(move, positions[i + 1]),
        }
        for i, move in enumerate(moves)
    ]
    solver = solvers.current(request)
    rated = solvers.attempt_of(solver, puzzle.key)
    today = puzzles.daily(timezone.localdate())
    context = {
        "game": game,
        "puzzle": puzzle,
        "count": len(puzzles.puzzles_of(game.slug)),
        "options_text": game.describe_options(puzzle.options) if game.options else "",
        "pos": pos,
        **presenter.board(pos, touched=touched),
        "board_template": f"{presenter.template}#position",
        "solver": _player(solver_number),
        "opponent": _player(other(solver_number)),
        "steps": steps,
        "at": len(moves),
        "state": state,
        "over": state != SOLVING,
        "hinted": attempt["hint"],
        "message": message,
        "me": solver,
        "my_rating": solver.shown if solver else shown(glicko.START_RATING, glicko.START_DEVIATION),
        "streak": solver.streak if solver else 0,
        "best_streak": solver.best_streak if solver else 0,
        "rated": rated,
        "puzzle_rating": _puzzle_rating(puzzle),
        "themes": _theme_links(puzzle.themes),
        "daily": today is not None and today.key == puzzle.key,
        "url": reverse("puzzle", args=[game.slug, puzzle.n]),
        "index_url": reverse("puzzles", args=[game.slug]),
        "next_url": _next_url(game.slug, solver, puzzle.n),
        "choices": [],
        "focus": request.method == "POST" and bool(request.htmx),
    }
    if state == SOLVING and not pos.over:
        context["choices"] = [
            {"move": move, "label": presenter.label(move)}
            for move in presenter.sort(game.legal_moves(pos))
        ]
        if attempt["hint"]:
            analysis = answers.analysis(request, game, pos)
            context["hint"] = themes.hint(game, pos, analysis, presenter.label)
    if state == SOLVED:
        context["ending"] = game.describe_outcome(pos)
    if state == FAILED and attempt["wrong"]:
        wrong = attempt["wrong"]
        context["wrong_words"] = presenter.describe(wrong)
        analysis = answers.analysis(request, game, pos)
        context["why"] = why_not(game, pos, wrong, analysis)
        winning = puzzles.accepted_moves(game, pos, analysis)
        context["winning_text"] = presenter.moves_text(winning)
        context["winning_count"] = len(winning)
    if state in (FAILED, SOLUTION):
        line = puzzles.solution(
            game, puzzle.position(), lambda p: answers.analysis(request, game, p)
        )
        context["solution"] = [
            {
                "player": _player(mover),
                "solver": mover == solver_number,
                "words": presenter.describe(move, after),
            }
            for mover, move, after in line
        ]
        context["solution_end"] = game.describe_outcome(line[-1][2]) if line else ""
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
    solver = solvers.current(request)
    tried = solvers.tried(solver, slug)
    ratings = dict(
        (key, shown(rating, deviation))
        for key, rating, deviation in PuzzleRating.objects.filter(game=slug).values_list(
            "key", "rating", "deviation"
        )
    )
    record = record_of(request.session, slug)
    going = puzzles.puzzle(slug, record["n"]) if record["state"] == SOLVING else None
    if going is not None and not record["moves"]:
        going = None
    upcoming = going or next_puzzle(slug, solver)
    rows = []
    for p in found:
        attempt = tried.get(p.key)
        rows.append(
            {
                "puzzle": p,
                "options": game.describe_options(p.options),
                "rating": ratings.get(p.key) or shown(p.rating, glicko.START_DEVIATION),
                "themes": _theme_links(p.themes),
                "result": attempt.get_how_display() if attempt else "",
            }
        )
    context = {
        "game": game,
        "puzzles": rows,
        "has_options": bool(game.options),
        "me": solver,
        "my_rating": solver.shown if solver else shown(glicko.START_RATING, glicko.START_DEVIATION),
        "streak": solver.streak if solver else 0,
        "best_streak": solver.best_streak if solver else 0,
        "upcoming": upcoming,
        "going_on": going is not None,
        "all_solved": bool(found) and upcoming is None,
        "rule": puzzles.RULE,
        "start_note": answers.analysis(request, game, game.start()).note,
        "min_depth": puzzles.MIN_DEPTH,
        "min_legal": puzzles.MIN_LEGAL,
    }
    return render(request, "learn/puzzles.html", context)


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
    """A move, "hint", "solution" or "try again", posted to a puzzle."""
    attempt = _attempt(record_of(request.session, game.slug), puzzle)
    if "retry" in request.POST:
        return _done(request, game, puzzle, _fresh(puzzle.n))
    at = request.POST.get("at", "")
    if not at.isdecimal() or len(at) > 6:
        return _render(
            request, game, puzzle, status=400, message="That answer came without its move."
        )
    positions = _replay(game, puzzle, attempt["moves"])
    if positions is None:
        attempt, positions = _fresh(puzzle.n), [puzzle.position()]
    if int(at) != len(attempt["moves"]) or attempt["state"] != SOLVING:
        return _render(
            request,
            game,
            puzzle,
            status=400,
            message="That was for an earlier board of this puzzle: here it is as it is now.",
        )
    if "hint" in request.POST:
        attempt["hint"] = True
        return _done(request, game, puzzle, attempt)
    if "solution" in request.POST:
        attempt["state"] = SOLUTION
        solvers.record(request, puzzle, PuzzleAttempt.SOLUTION)
        return _done(request, game, puzzle, attempt)
    move = request.POST.get("move")
    if move is None:
        return _render(
            request, game, puzzle, status=400, message="That answer came without its move."
        )
    move = move.strip()
    pos = positions[-1]
    try:
        if len(move) > MAX_MOVE_TEXT:
            raise IllegalMove("That is not a move.")
        reply = puzzles.answer(game, pos, move, lambda p: answers.analysis(request, game, p))
    except (IllegalMove, GameOver):
        shown_move = move if len(move) <= MAX_MOVE_TEXT else move[:MAX_MOVE_TEXT] + "…"
        return _render(
            request,
            game,
            puzzle,
            status=400,
            message=f"“{shown_move}” is not one of the legal moves here: press one of the buttons.",
        )
    if not reply.accepted:
        attempt.update(state=FAILED, wrong=move)
        solvers.record(request, puzzle, PuzzleAttempt.FAILED)
    else:
        attempt["moves"] = [*attempt["moves"], move] + ([reply.defence] if reply.defence else [])
        if reply.solved:
            attempt["state"] = SOLVED
            how = PuzzleAttempt.HINTED if attempt["hint"] else PuzzleAttempt.SOLVED
            solvers.record(request, puzzle, how)
    return _done(request, game, puzzle, attempt)


def _done(request, game, puzzle, attempt):
    _save(request.session, game.slug, attempt)
    if request.htmx:
        return _render(request, game, puzzle)
    return see_other(reverse("puzzle", args=[game.slug, puzzle.n]) + "#puzzle-play")


@require_GET
def daily_puzzle(request):
    """Today's puzzle, the same for everyone (learn/puzzles.py ``daily``)."""
    today = puzzles.daily(timezone.localdate())
    if today is None:
        return redirect("learn")
    return redirect("puzzle", today.slug, today.n)


@require_GET
def puzzle_history(request):
    """The solver's rated attempts, newest first (a signed-in player's, or this browser's)."""
    solver = solvers.current(request)
    attempts = solver.attempts_made.all() if solver else PuzzleAttempt.objects.none()
    page = Paginator(attempts, HISTORY_PAGE).get_page(request.GET.get("page"))
    rows = []
    for attempt in page:
        found = puzzles.by_key(attempt.key)
        rows.append(
            {
                "attempt": attempt,
                "game": get_game(attempt.game),
                "url": reverse("puzzle", args=[found.slug, found.n]) if found else "",
                "n": found.n if found else attempt.number,
            }
        )
    context = {
        "me": solver,
        "rows": rows,
        "page": page,
        "signed_in": request.user.is_authenticated,
    }
    return render(request, "learn/puzzle_history.html", context)


@require_GET
def theme_list(request):
    return render(request, "learn/puzzle_themes.html", {"rows": _theme_rows()})


def _theme_rows() -> list[dict]:
    """Every theme that has puzzles, with how many, and the games they are of."""
    rows = []
    for key, theme in themes.THEMES.items():
        found = puzzles.with_theme(key)
        if found:
            titles = [g.title for g in GAMES if any(p.slug == g.slug for p in found)]
            rows.append(
                {
                    "theme": theme,
                    "count": len(found),
                    "games": ", ".join(titles),
                    "url": reverse("puzzle_theme", args=[key]),
                }
            )
    return rows


@require_GET
def theme_page(request, theme):
    found = themes.theme(theme)
    if found is None:
        shown_name = theme if len(theme) <= 40 else theme[:40] + "…"
        context = {"rows": _theme_rows(), "message": f"There is no puzzle theme “{shown_name}”."}
        return render(request, "learn/puzzle_themes.html", context, status=404)
    solver = solvers.current(request)
    tried = solvers.tried(solver)
    by_game = []
    for game in GAMES:
        listed = [p for p in puzzles.with_theme(theme) if p.slug == game.slug]
        if listed:
            by_game.append(
                {
                    "game": game,
                    "rows": [
                        {
                            "puzzle": p,
                            "url": reverse("puzzle", args=[game.slug, p.n]),
                            "options": game.describe_options(p.options) if game.options else "",
                            "result": tried[p.key].get_how_display() if p.key in tried else "",
                        }
                        for p in listed
                    ],
                }
            )
    context = {"theme": found, "by_game": by_game, "themes_url": reverse("puzzle_themes")}
    return render(request, "learn/puzzle_theme.html", context)
