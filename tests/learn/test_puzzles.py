"""Puzzles: the rule (at least three moves, at most a third winning, depths spread), the
committed files, the exact checking of answers, the defence played back, the pages, and
malformed posts refused. Ratings, themes, the daily puzzle, the order and the streak:
test_puzzle_ratings.py."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from bitsite.edge import MAX_VALUE
from games.rules import GAMES, get_game
from learn import puzzles, themes
from learn.views.puzzles import SESSION_KEY, record_of

HTMX = {"HTTP_HX_REQUEST": "true"}
ALL = [(game.slug, p) for game in GAMES for p in puzzles.puzzles_of(game.slug)]
WITH_PUZZLES = [game.slug for game in GAMES if puzzles.puzzles_of(game.slug)]


def ids(item):
    slug, puzzle = item
    return f"{slug}-{puzzle.n}"


# ---- the rule and the files -------------------------------------------------------------


def test_the_committed_files_are_what_the_generator_makes_and_it_depends_on_the_seed():
    """Each game's file is what the generator makes (made in another process, at another
    time: the generator is deterministic for every game); generating again in this one makes
    the same, and another seed makes other puzzles. The last two on the games whose
    generation is cheap (Bit Flip's takes seconds each time: its file is its check)."""
    made = {}
    for game in GAMES:
        made[game.slug] = puzzles.generate(game)
        text = puzzles.dumps(puzzles.document(game, made[game.slug]))
        committed = puzzles.path_for(game).read_text(encoding="utf-8")
        assert committed == text, f"{game.slug}: run `python manage.py generate_puzzles`"
        assert json.loads(committed)["seed"] == puzzles.SEED
    for slug in ("last-digit-standing", "bit-flip-divisor"):
        game, first = get_game(slug), made[slug]
        assert first and first == puzzles.generate(game)
        assert first != puzzles.generate(game, seed=puzzles.SEED + 1)


def test_the_games_with_three_moves_or_more_have_puzzles_and_none_over_the_limit():
    for game in GAMES:
        found = puzzles.puzzles_of(game.slug)
        assert len(found) <= puzzles.LIMIT
        assert [p.n for p in found] == list(range(1, len(found) + 1))
    # Two moves (0 or 1) in every position: never three legal moves, so no puzzle.
    assert puzzles.puzzles_of("last-bit-standing") == ()
    assert puzzles.puzzles_of("bitwise-battle") == ()
    assert all(len(puzzles.puzzles_of(slug)) == puzzles.LIMIT for slug in WITH_PUZZLES)
    assert sorted(WITH_PUZZLES) == ["bit-flip", "bit-flip-divisor", "last-digit-standing"]
    # Every game is in the sizes table; each size is a set of options the rules accept.
    assert set(puzzles.SIZES) == {game.slug for game in GAMES}
    for game in GAMES:
        for options in puzzles.SIZES[game.slug]:
            game.start(**options)


@pytest.mark.parametrize("slug", ["bit-flip", "bit-flip-divisor", "last-digit-standing"])
def test_depths_are_spread_from_3_to_the_deepest_the_solver_found(slug):
    """Taken in turns by depth: the deepest candidate is in, and a depth has fewer puzzles
    than another (by more than one turn) only when it had no more candidates."""
    game = get_game(slug)
    depths = Counter(p.depth for p in puzzles.puzzles_of(slug))
    available = Counter(item[4]["depth"] for item in puzzles.candidates(game))
    assert min(depths) == puzzles.MIN_DEPTH
    assert max(depths) == max(available)
    assert set(depths) == set(available)
    most = max(depths.values())
    for depth, count in depths.items():
        assert count == available[depth] or count >= most - 1, (depth, depths, available)
    assert len(depths) >= 3


def test_puzzles_are_distinct_positions_ordered_by_difficulty():
    for slug in WITH_PUZZLES:
        game = get_game(slug)
        found = puzzles.puzzles_of(slug)
        keys = [json.dumps(game.to_json(p.position()), sort_keys=True) for p in found]
        assert len(set(keys)) == len(keys)
        grades = [p.difficulty for p in found]
        assert grades == sorted(grades)


@pytest.mark.parametrize("item", ALL, ids=ids)
def test_each_puzzle_meets_the_rule_and_its_grades_are_true(item):
    slug, puzzle = item
    game = get_game(slug)
    pos = puzzle.position()
    analysis = game.analyse(pos)
    legal = game.legal_moves(pos)
    winning = [m.move for m in analysis.moves if m.winner == pos.to_move]
    assert analysis.winner == pos.to_move == puzzle.to_move
    assert analysis.plies == puzzle.depth >= puzzles.MIN_DEPTH
    assert len(legal) >= 3  # no puzzle with one or two moves
    assert len(winning) >= 1 and 3 * len(winning) <= len(legal)  # a guess wins 1 in 3 at best
    assert (puzzle.legal, puzzle.winning) == (len(legal), len(winning))
    assert puzzle.difficulty == puzzle.depth + len(legal) - len(winning)
    assert puzzle.notation == game.notation(pos)
    assert puzzle.key == puzzles.position_key(game, pos)
    assert puzzle.rating == puzzles.start_rating(puzzle.depth, puzzle.losing)
    assert list(puzzle.themes) == themes.themes_of(game, pos, analysis)


@pytest.mark.parametrize("item", ALL, ids=ids)
def test_the_accepted_moves_are_exactly_the_winning_moves(item):
    slug, puzzle = item
    game = get_game(slug)
    pos = puzzle.position()
    analysis = game.analyse(pos)
    accepted = {m for m in game.legal_moves(pos) if puzzles.answer(game, pos, m).accepted}
    assert accepted == set(analysis.winning_moves) == set(puzzles.accepted_moves(game, pos))
    assert accepted == {m.move for m in analysis.moves if m.winner == pos.to_move}


@pytest.mark.parametrize("item", ALL, ids=ids)
def test_the_defence_played_back_is_a_best_one_and_the_win_comes_on_time(item):
    slug, puzzle = item
    game = get_game(slug)
    pos = puzzle.position()
    plies = 0
    while True:
        move = puzzles.accepted_moves(game, pos)[0]
        reply = puzzles.answer(game, pos, move)
        assert reply.accepted
        plies += 1
        if reply.defence is not None:
            after = game.play(pos, move)
            defence = game.analyse(after)
            longest = max(m.plies for m in defence.moves)
            assert defence.verdict(reply.defence).plies == longest == defence.plies
            assert reply.defence in defence.best_moves
            plies += 1
        pos = reply.after
        if reply.solved:
            break
        assert not pos.over
    assert pos.result.winner == puzzle.to_move
    # The first winning move listed is a fastest one only by chance, so: at least the depth.
    assert plies >= puzzle.depth


def test_a_wrong_answer_is_refused_and_nothing_is_played():
    slug, puzzle = ALL[0]
    game = get_game(slug)
    pos = puzzle.position()
    wrong = next(m for m in game.legal_moves(pos) if m not in puzzles.accepted_moves(game, pos))
    reply = puzzles.answer(game, pos, wrong)
    assert not reply.accepted and reply.after == pos and reply.defence is None


def test_keys_are_unique_across_every_game():
    keys = [p.key for p in puzzles.every_puzzle()]
    assert len(keys) == len(set(keys)) == 3 * puzzles.LIMIT
    assert all(puzzles.by_key(p.key) == p for p in puzzles.every_puzzle())


# ---- the pages ----------------------------------------------------------------------------


def url(slug, n=None):
    return reverse("puzzles", args=[slug]) if n is None else reverse("puzzle", args=[slug, n])


def record(client, slug):
    return client.session.get(SESSION_KEY, {}).get(slug, {})


def solve(client, slug, n, *, htmx=False):
    """Play a winning move until solved; returns the last response."""
    game = get_game(slug)
    puzzle = puzzles.puzzle(slug, n)
    pos = puzzle.position()
    saved = record_of(client.session, slug)
    made = saved["moves"] if saved["n"] == n else []
    for move in made:  # go on from where the puzzle is
        pos = game.play(pos, move)
    at = len(made)
    while True:
        move = puzzles.accepted_moves(game, pos)[0]
        extra = HTMX if htmx else {}
        response = client.post(url(slug, n), {"move": move, "at": at}, **extra)
        assert response.status_code == (200 if htmx else 303)
        reply = puzzles.answer(game, pos, move)
        pos = reply.after
        at += 2 if reply.defence else 1
        if reply.solved:
            return response


def fail(client, slug, n):
    game = get_game(slug)
    pos = puzzles.puzzle(slug, n).position()
    wrong = next(m for m in game.legal_moves(pos) if m not in puzzles.accepted_moves(game, pos))
    return client.post(url(slug, n), {"move": wrong, "at": 0}), wrong


@pytest.mark.django_db
@pytest.mark.parametrize("slug", [game.slug for game in GAMES])
def test_the_list_and_the_first_puzzle_show(slug):
    client = Client()
    page = client.get(url(slug))
    assert page.status_code == 200
    if slug not in WITH_PUZZLES:
        assert "has no puzzles" in page.content.decode()
        assert client.get(url(slug, 1)).status_code == 400
        return
    text = page.content.decode()
    assert f'href="{url(slug, 1)}"' in text
    page = client.get(url(slug, 1))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Find the winning move for Player" in text
    game = get_game(slug)
    pos = puzzles.puzzle(slug, 1).position()
    buttons = re.findall(r'name="move" value="([^"]*)"', text)
    assert sorted(buttons) == sorted(game.legal_moves(pos))
    assert 'name="csrfmiddlewaretoken"' in text


@pytest.mark.django_db
def test_the_page_accepts_exactly_the_winning_moves():
    for slug in WITH_PUZZLES:
        for puzzle in puzzles.puzzles_of(slug)[:8]:
            game = get_game(slug)
            pos = puzzle.position()
            for move in game.legal_moves(pos):
                client = Client()
                client.post(url(slug, puzzle.n), {"move": move, "at": 0})
                state = record(client, slug)["state"]
                won = move in game.analyse(pos).winning_moves
                assert (state != "failed") == won, (slug, puzzle.n, move)


@pytest.mark.django_db
def test_solving_plays_the_defence_back_and_offers_the_next():
    client = Client()
    slug = "last-digit-standing"
    puzzle = next(p for p in puzzles.puzzles_of(slug) if p.depth >= 5)
    n = puzzle.n
    game = get_game(slug)
    pos = puzzle.position()
    move = puzzles.accepted_moves(game, pos)[0]
    reply = puzzles.answer(game, pos, move)
    response = client.post(url(slug, n), {"move": move, "at": 0}, **HTMX)
    text = response.content.decode()
    assert response.status_code == 200 and 'id="puzzle"' in text and "<html" not in text
    assert record(client, slug)["moves"] == [move, reply.defence]
    assert "Right!" in text
    response = solve(client, slug, n)
    assert response["Location"] == url(slug, n) + "#puzzle-play"
    page = client.get(url(slug, n)).content.decode()
    assert "Solved!" in page
    assert re.search(r'href="/games/last-digit-standing/puzzles/\d+/" id="next-puzzle"', page)


@pytest.mark.django_db
def test_a_wrong_move_says_why_and_shows_the_winning_moves_and_the_line():
    client = Client()
    slug = "bit-flip"
    response, wrong = fail(client, slug, 3)
    assert response.status_code == 303
    saved = record(client, slug)
    assert (saved["n"], saved["state"], saved["wrong"]) == (3, "failed", wrong)
    page = client.get(url(slug, 3)).content.decode()
    game = get_game(slug)
    pos = puzzles.puzzle(slug, 3).position()
    verdict = game.analyse(pos).verdict(wrong)
    assert "Not winning:" in page
    assert f"wins in {verdict.plies - 1} move" in page or "loses at once" in page
    assert "The winning move" in page
    assert 'id="next-puzzle"' in page
    assert 'name="move"' not in page  # the puzzle is over: no more moves
    assert 'id="puzzle-solution"' in page  # the winning line
    # A move posted to the failed puzzle is stale: 400, nothing changes.
    again = client.post(url(slug, 3), {"move": wrong, "at": 0})
    assert again.status_code == 400
    assert record(client, slug) == saved


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {},
        {"move": "1"},
        {"at": "0"},
        {"move": "1", "at": "x"},
        {"move": "1", "at": "-1"},
        {"move": "1", "at": "5"},
        {"move": "99", "at": "0"},
        {"move": "", "at": "0"},
        {"move": "x" * MAX_VALUE, "at": "0"},  # the longest the edge lets through
        {"move": "<b>1</b>", "at": "0"},
    ],
)
def test_malformed_posts_get_400_and_change_nothing(data):
    client = Client()
    slug = "bit-flip"
    solve(client, slug, 1)
    before = record(client, slug)
    for extra in ({}, HTMX):
        response = client.post(url(slug, 2), data, **extra)
        assert response.status_code == 400
        text = response.content.decode()
        assert 'id="puzzle-message"' in text
        assert "<b>1</b>" not in text
        assert record(client, slug) == before


@pytest.mark.django_db
def test_unknown_puzzles_and_games():
    client = Client()
    for n in (0, 999, 10**30):
        response = client.get(url("bit-flip", n))
        assert response.status_code == 400
        assert "has no puzzle" in response.content.decode()
        assert client.post(url("bit-flip", n), {"move": "1", "at": "0"}).status_code == 400
    assert client.get("/games/no-such-game/puzzles/").status_code == 404
    assert client.get("/games/no-such-game/puzzles/1/").status_code == 404
    assert client.get(url("bit-flip", 1) + "?x=1").status_code == 200
    assert client.put(url("bit-flip", 1)).status_code == 405


@pytest.mark.django_db
def test_posts_need_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    for data in ({"move": "1", "at": "0"}, {"hint": "1", "at": "0"}, {"solution": "1", "at": "0"}):
        assert client.post(url("bit-flip", 1), data).status_code == 403


@pytest.mark.django_db
def test_a_junk_session_record_is_read_as_a_fresh_one():
    client = Client()
    session = client.session
    session[SESSION_KEY] = {"bit-flip": {"state": "x", "hint": "y", "moves": [1, None], "n": 1}}
    session["puzzle_solver"] = "junk"
    session.save()
    assert client.get(url("bit-flip", 1)).status_code == 200
    assert client.get(url("bit-flip")).status_code == 200
    solve(client, "bit-flip", 1)
    assert record(client, "bit-flip")["state"] == "solved"


def test_without_its_file_a_game_generates_the_same_puzzles(tmp_path, monkeypatch):
    committed = puzzles.puzzles_of("last-digit-standing")
    monkeypatch.setattr(puzzles, "DATA", tmp_path)
    puzzles.puzzles_of.cache_clear()
    try:
        assert puzzles.puzzles_of("last-digit-standing") == committed
    finally:
        puzzles.puzzles_of.cache_clear()
