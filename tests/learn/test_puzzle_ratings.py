"""Puzzle ratings (Glicko-2, first attempts only, both sides), hints and the solution,
themes computed from the theory, the daily puzzle, the order of "next", the streak, the
history and theme pages, and an anonymous solver carried to the account on sign-in."""

from __future__ import annotations

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.rules import get_game
from games.rules.bit_flip import kayles
from games.rules.last_digit_standing import perfectly_paired, reachable
from learn import puzzles, themes
from learn.models import PuzzleAttempt, PuzzleRating, Solver
from learn.views.puzzles import next_puzzle
from ratings import glicko

HTMX = {"HTTP_HX_REQUEST": "true"}
SLUG = "bit-flip"


def url(slug, n=None):
    return reverse("puzzles", args=[slug]) if n is None else reverse("puzzle", args=[slug, n])


def winning_line(client, slug, n):
    """Play winning moves until solved (from the start of the attempt)."""
    game = get_game(slug)
    pos = puzzles.puzzle(slug, n).position()
    at = 0
    while True:
        move = puzzles.accepted_moves(game, pos)[0]
        assert client.post(url(slug, n), {"move": move, "at": at}).status_code == 303
        reply = puzzles.answer(game, pos, move)
        pos, at = reply.after, at + (2 if reply.defence else 1)
        if reply.solved:
            return


def wrong_move(slug, n):
    game = get_game(slug)
    pos = puzzles.puzzle(slug, n).position()
    return next(m for m in game.legal_moves(pos) if m not in puzzles.accepted_moves(game, pos))


def solver_of(client) -> Solver:
    return Solver.objects.get(pk=client.session["puzzle_solver"])


def shown_rating(page: str, id_: str) -> str:
    return re.search(rf'id="{id_}">([^<]*)<', page)[1]


# ---- ratings ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_solved_first_attempt_raises_the_solver_and_lowers_the_puzzle_by_glicko2():
    client = Client()
    puzzle = puzzles.puzzle(SLUG, 5)
    winning_line(client, SLUG, 5)
    solver = solver_of(client)
    rated = PuzzleRating.objects.get(key=puzzle.key)
    expected_solver, expected_puzzle = glicko.game(
        glicko.Glicko(), glicko.Glicko(float(puzzle.rating)), 1.0
    )
    assert solver.rating == pytest.approx(expected_solver.rating)
    assert solver.deviation == pytest.approx(expected_solver.deviation)
    assert rated.rating == pytest.approx(expected_puzzle.rating)
    assert solver.rating > glicko.START_RATING and rated.rating < puzzle.rating
    attempt = PuzzleAttempt.objects.get()
    assert (attempt.how, attempt.score, attempt.number) == ("solved", 1.0, 5)
    assert (solver.attempts, solver.solved, solver.streak, solver.best_streak) == (1, 1, 1, 1)
    page = client.get(url(SLUG, 5)).content.decode()
    assert shown_rating(page, "my-rating") == solver.shown
    assert shown_rating(page, "puzzle-rating") == rated.shown
    assert f'id="my-change">{attempt.delta_text}<' in page


@pytest.mark.django_db
def test_a_wrong_first_move_lowers_the_solver_and_raises_the_puzzle():
    client = Client()
    puzzle = puzzles.puzzle(SLUG, 7)
    client.post(url(SLUG, 7), {"move": wrong_move(SLUG, 7), "at": 0})
    solver = solver_of(client)
    rated = PuzzleRating.objects.get(key=puzzle.key)
    assert solver.rating < glicko.START_RATING and rated.rating > puzzle.rating
    assert PuzzleAttempt.objects.get().how == "failed"
    assert (solver.attempts, solver.solved, solver.streak) == (1, 0, 0)


@pytest.mark.django_db
def test_only_the_first_attempt_is_rated_retries_change_nothing():
    client = Client()
    client.post(url(SLUG, 3), {"move": wrong_move(SLUG, 3), "at": 0})
    solver = solver_of(client)
    rated = PuzzleRating.objects.get()
    before = (solver.rating, solver.deviation, rated.rating, rated.deviation)
    client.post(url(SLUG, 3), {"retry": "1"})
    winning_line(client, SLUG, 3)  # solved on the retry
    client.post(url(SLUG, 3), {"retry": "1"})
    client.post(url(SLUG, 3), {"move": wrong_move(SLUG, 3), "at": 0})
    solver.refresh_from_db()
    rated.refresh_from_db()
    assert (solver.rating, solver.deviation, rated.rating, rated.deviation) == before
    assert PuzzleAttempt.objects.count() == 1 and solver.attempts == 1
    assert solver.streak == 0  # a solve on a retry is not a solve in a row
    page = client.get(url(SLUG, 3)).content.decode()
    assert "Rated at your first attempt (a wrong move)" in page


@pytest.mark.django_db
def test_viewing_the_solution_counts_as_a_failed_first_attempt_and_shows_the_line():
    client = Client()
    puzzle = puzzles.puzzle(SLUG, 9)
    response = client.post(url(SLUG, 9), {"solution": "1", "at": "0"}, **HTMX)
    assert response.status_code == 200
    text = response.content.decode()
    attempt = PuzzleAttempt.objects.get()
    assert (attempt.how, attempt.score) == ("solution", 0.0)
    assert solver_of(client).rating < glicko.START_RATING
    assert PuzzleRating.objects.get(key=puzzle.key).rating > puzzle.rating
    line = puzzles.solution(get_game(SLUG), puzzle.position())
    assert len(re.findall(r"<li>Player", text.split('id="puzzle-solution"')[1])) == len(line)
    assert 'name="move"' not in text
    # Viewing it again after a retry changes nothing.
    client.post(url(SLUG, 9), {"retry": "1"})
    client.post(url(SLUG, 9), {"solution": "1", "at": "0"})
    assert PuzzleAttempt.objects.count() == 1


@pytest.mark.django_db
def test_a_hint_shows_where_to_look_and_makes_a_solve_a_draw():
    client = Client()
    puzzle = puzzles.puzzle(SLUG, 30)
    page = client.post(url(SLUG, 30), {"hint": "1", "at": "0"}, **HTMX).content.decode()
    hint = re.search(r'id="puzzle-hint"><strong>Hint:</strong> ([^<(]*)', page)[1]
    assert hint.startswith(("Look at the run of", "One of these wins:"))
    assert PuzzleAttempt.objects.count() == 0  # a hint alone rates nothing
    assert 'id="hint-button"' not in page
    winning_line(client, SLUG, 30)
    attempt = PuzzleAttempt.objects.get()
    assert (attempt.how, attempt.score) == ("hinted", 0.5)
    expected, _ = glicko.game(glicko.Glicko(), glicko.Glicko(float(puzzle.rating)), 0.5)
    assert solver_of(client).rating == pytest.approx(expected.rating)
    assert solver_of(client).streak == 0


def test_the_hint_names_a_winning_move_among_at_most_half_of_them():
    for puzzle in puzzles.every_puzzle():
        game = get_game(puzzle.slug)
        pos = puzzle.position()
        analysis = game.analyse(pos)
        text = themes.hint(game, pos, analysis, lambda m: f"[{m}]")
        winning = set(puzzles.accepted_moves(game, pos, analysis))
        if text.startswith("One of these wins:"):
            named = set(re.findall(r"\[([^\]]+)\]", text))
            assert named & winning and len(named) <= max(2, (puzzle.legal + 1) // 2)
        else:
            first, last = map(int, re.search(r"from bit (\d+) to bit (\d+)", text).groups())
            assert set(pos.bits[first - 1 : last]) == {"0"}
            assert any(first <= int(m.split()[0]) <= last for m in winning)


@pytest.mark.django_db
def test_the_streak_counts_first_attempt_solves_in_a_row_and_a_failure_ends_it():
    client = Client()
    for n in (1, 2, 4):
        winning_line(client, SLUG, n)
    assert (solver_of(client).streak, solver_of(client).best_streak) == (3, 3)
    client.post(url(SLUG, 6), {"move": wrong_move(SLUG, 6), "at": 0})
    assert (solver_of(client).streak, solver_of(client).best_streak) == (0, 3)
    page = client.get(url(SLUG, 6)).content.decode()
    assert shown_rating(page, "streak-now") == "0" and shown_rating(page, "streak-best") == "3"


@pytest.mark.django_db
def test_a_signed_in_player_keeps_rating_and_streak_on_the_account_and_a_session_carries_over():
    user = get_user_model().objects.create_user("ada", password="pw-for-tests-1")
    client = Client()
    winning_line(client, SLUG, 1)  # anonymous: the session's solver
    anonymous = solver_of(client)
    assert anonymous.user is None
    client.force_login(user)
    solver = Solver.objects.get(user=user)
    assert solver.pk == anonymous.pk and solver.streak == 1  # carried to the account
    winning_line(client, SLUG, 2)
    solver.refresh_from_db()
    assert (solver.streak, solver.attempts) == (2, 2)
    history = client.get(reverse("puzzle_history")).content.decode()
    assert history.count('<tr><td data-label="When">') == 2 and "Bit Flip 2" in history
    # A new browser, signed in: the same solver, the same streak.
    other = Client()
    other.force_login(user)
    page = other.get(url(SLUG, 1)).content.decode()
    assert shown_rating(page, "streak-now") == "2"
    # An account that has a solver keeps it: another browser's anonymous one stays apart.
    third = Client()
    winning_line(third, SLUG, 3)
    third.force_login(user)
    assert Solver.objects.get(user=user).pk == solver.pk
    assert Solver.objects.filter(user__isnull=True).count() == 1


@pytest.mark.django_db
def test_history_without_attempts_and_for_an_anonymous_browser():
    client = Client()
    page = client.get(reverse("puzzle_history")).content.decode()
    assert 'id="history-empty"' in page and 'id="history-sign-in"' in page
    assert client.get(reverse("puzzle_history") + "?page=zz").status_code == 200


# ---- the order of "next" ------------------------------------------------------------------


@pytest.mark.django_db
def test_next_is_the_untried_puzzle_nearest_the_solvers_rating():
    found = puzzles.puzzles_of(SLUG)
    fresh = next_puzzle(SLUG, None)
    nearest = min(abs(p.rating - glicko.START_RATING) for p in found)
    assert abs(fresh.rating - glicko.START_RATING) == nearest
    strong = Solver.objects.create(rating=2400)
    weak = Solver.objects.create(rating=900)
    assert next_puzzle(SLUG, strong).rating > next_puzzle(SLUG, weak).rating
    # A tried puzzle is not offered again while others are untried.
    first = next_puzzle(SLUG, weak)
    PuzzleAttempt.objects.create(
        solver=weak, key=first.key, game=SLUG, number=first.n, how="solved", score=1,
        rating_before=900, rating_after=950, deviation_before=350, deviation_after=300,
        puzzle_before=1000, puzzle_after=950, puzzle_deviation_before=350,
        puzzle_deviation_after=300,
    )  # fmt: skip
    assert next_puzzle(SLUG, weak) != first
    # A puzzle's own rating, once it has one, is what counts.
    target = found[-1]
    PuzzleRating.objects.create(key=target.key, game=SLUG, rating=900)
    assert next_puzzle(SLUG, weak) == target


@pytest.mark.django_db
def test_the_list_page_offers_the_next_by_rating_not_number_one():
    client = Client()
    strong = Solver.objects.create(rating=2400)
    session = client.session
    session["puzzle_solver"] = strong.pk
    session.save()
    page = client.get(url(SLUG)).content.decode()
    n = int(re.search(r'id="start-puzzle">Puzzle (\d+)<', page)[1])
    assert n == next_puzzle(SLUG, strong).n and n != 1
    assert puzzles.puzzle(SLUG, n).rating > 1500


# ---- the daily puzzle ---------------------------------------------------------------------


def test_the_daily_puzzle_is_stable_for_a_day_and_changes_over_days():
    day = datetime.date(2025, 3, 14)
    assert puzzles.daily(day) == puzzles.daily(datetime.date(2025, 3, 14))
    week = {puzzles.daily(day + datetime.timedelta(days=i)).key for i in range(14)}
    assert len(week) > 7
    days = [day + datetime.timedelta(days=i) for i in range(60)]
    assert {puzzles.daily(d).slug for d in days} == {
        "bit-flip",
        "bit-flip-divisor",
        "last-digit-standing",
    }


@pytest.mark.django_db
def test_the_daily_page_sends_everyone_to_the_same_puzzle(monkeypatch):
    day = datetime.date(2025, 3, 14)
    monkeypatch.setattr("django.utils.timezone.localdate", lambda *a, **k: day)
    today = puzzles.daily(day)
    first, second = Client().get(reverse("puzzle_daily")), Client().get(reverse("puzzle_daily"))
    assert first["Location"] == second["Location"] == url(today.slug, today.n)
    page = Client().get(url(today.slug, today.n)).content.decode()
    assert 'id="daily-mark"' in page
    learn = Client().get(reverse("learn")).content.decode()
    assert f"{get_game(today.slug).title}, puzzle {today.n}" in learn


# ---- themes -------------------------------------------------------------------------------


def test_kayles_values_are_the_published_sequence():
    # OEIS A002186, the Kayles nim-values, n = 0..35
    published = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1,
                 2, 8, 5, 4, 7, 2, 1, 8, 6, 7]  # fmt: skip
    assert [kayles(n) for n in range(36)] == published


def test_bit_flip_themes_follow_the_runs_left_by_the_winning_move():
    game = get_game("bit-flip")
    pos = game.play(game.start(width=12), "6 7")  # runs 5 and 5: a mirror position
    # from the empty 7-bit row the middle bit splits it into equal halves, and wins
    seven = game.start(width=7)
    analysis = game.analyse(seven)
    assert "4" in analysis.winning_moves
    assert "split-halves" in themes._bit_flip(game.play(seven, "4"))
    assert themes._bit_flip(pos) == {"split-halves"}
    assert themes._bit_flip(game.play(game.start(width=8), "1")) == set()  # one run of 7
    # runs 1, 1, 2, 2: pairs; runs 1, 2, 3 (1 ^ 2 ^ 3 = 0): balanced, no symmetry
    pairs = game.play(game.play(game.play(game.start(width=9), "2"), "4"), "7")
    assert themes._bit_flip(pairs) == {"pair-runs"}
    assert themes._bit_flip(game.play(game.play(game.start(width=8), "2"), "5")) == {"nim-balance"}


def test_last_digit_standing_pairing_themes_follow_maximum_matchings():
    assert perfectly_paired([2, 4, 3, 9])
    assert not perfectly_paired([5, 7])  # unrelated
    assert not perfectly_paired([2, 3, 4])  # odd
    assert reachable([2, 3, 4, 7], 4) == [2]  # 4 reaches only 2 (3 and 7 unrelated)
    game = get_game("last-digit-standing")
    for puzzle in puzzles.puzzles_of("last-digit-standing"):
        pos = puzzle.position()
        winning = puzzles.accepted_moves(game, pos)
        paired = any(
            perfectly_paired(reachable(game.play(pos, m).remaining, int(m))) for m in winning
        )
        assert ("pair-numbers" in puzzle.themes) == paired
        ups = [
            m for m in winning if m != "1" and pos.last not in (None, 1) and int(m) % pos.last == 0
        ]
        assert ("go-up" in puzzle.themes) == bool(ups)


def test_every_stored_puzzle_has_themes_of_its_game_and_its_length():
    for puzzle in puzzles.every_puzzle():
        keys = set(puzzle.themes)
        assert len(keys & {"short", "medium", "long"}) == 1
        assert ("short" in keys) == (puzzle.depth == 3)
        assert ("only-move" in keys) == (puzzle.winning == 1)
        for key in keys:
            assert themes.THEMES[key].games in ((), (puzzle.slug,))
        if puzzle.slug == "bit-flip-divisor":
            assert keys & {"make-multiple", "last-bit"}
        if puzzle.slug == "last-digit-standing":
            assert len(keys & {"pair-numbers", "strand-numbers"}) == 1


@pytest.mark.django_db
def test_theme_pages_list_their_puzzles_and_refuse_an_unknown_theme():
    client = Client()
    index = client.get(reverse("puzzle_themes")).content.decode()
    # Linked exactly when some stored puzzle has the theme.
    for key in themes.THEMES:
        linked = reverse("puzzle_theme", args=[key]) in index
        assert linked == bool(puzzles.with_theme(key)), key
    assert reverse("puzzle_theme", args=["pair-numbers"]) in index
    page = client.get(reverse("puzzle_theme", args=["split-halves"])).content.decode()
    listed = set(re.findall(r'href="/games/bit-flip/puzzles/(\d+)/"', page))
    assert listed == {str(p.n) for p in puzzles.with_theme("split-halves")} != set()
    missing = client.get("/learn/puzzles/themes/%3Cb%3Ex/")
    assert missing.status_code == 404
    assert "There is no puzzle theme" in missing.content.decode()
    assert "<b>x" not in missing.content.decode()


@pytest.mark.django_db
def test_themes_show_on_the_puzzle_once_it_is_over():
    client = Client()
    puzzle = puzzles.puzzle(SLUG, 2)
    page = client.get(url(SLUG, 2)).content.decode()
    assert 'id="puzzle-themes"' not in page  # not before: they would be a hint
    client.post(url(SLUG, 2), {"move": wrong_move(SLUG, 2), "at": 0})
    page = client.get(url(SLUG, 2)).content.decode()
    for key in puzzle.themes:
        assert reverse("puzzle_theme", args=[key]) in page


# ---- links and focus ----------------------------------------------------------------------


@pytest.mark.django_db
def test_no_puzzles_link_for_a_game_that_has_none():
    client = Client()
    for path in (reverse("learn"), reverse("home")):
        page = client.get(path).content.decode()
        assert url("bit-flip") in page
        assert url("bitwise-battle") not in page and url("last-bit-standing") not in page
    for slug, has in (("bit-flip", True), ("bitwise-battle", False), ("last-bit-standing", False)):
        page = client.get(reverse("rules", args=[slug])).content.decode()
        assert (url(slug) in page) == has


@pytest.mark.django_db
def test_after_a_move_the_focus_goes_to_the_moves():
    client = Client()
    puzzle = next(p for p in puzzles.puzzles_of(SLUG) if p.depth >= 5)
    game = get_game(SLUG)
    move = puzzles.accepted_moves(game, puzzle.position())[0]
    text = client.post(url(SLUG, puzzle.n), {"move": move, "at": 0}, **HTMX).content.decode()
    first = re.search(
        r'<button class="btn" type="submit" name="move" value="[^"]*"( autofocus)?>', text
    )
    assert first[1] == " autofocus"
    assert "autofocus" not in client.get(url(SLUG, puzzle.n)).content.decode()  # not on a visit
    # without JavaScript, the redirect lands on the moves
    response = client.post(url(SLUG, puzzle.n), {"retry": "1"})
    assert response["Location"].endswith("#puzzle-play")
