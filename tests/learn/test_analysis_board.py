"""The analysis board: its URLs, the verdicts it shows, its best line, its refusals."""

from __future__ import annotations

import html
import random
import re
from urllib.parse import urlsplit

import pytest
from django.http import QueryDict
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Match, Move
from games.presenters import presenter_for
from games.rules import GAMES, get_game
from learn import analysis_board
from learn.analysis_board import LINE_CAP, MAX_PLIES, BadAnalysis, build, parse, query
from tests.replays import BLUNDER_GAME, played, seeded_moves

pytestmark = pytest.mark.django_db

SLUGS = [game.slug for game in GAMES]
HTMX = {"HTTP_HX_REQUEST": "true"}
# Non-default options for each game, within the bounds the new-match form allows.
OPTIONS = {
    "last-bit-standing": {},
    "bitwise-battle": {"condition": "ones", "target": 3, "max_length": 9},
    "bit-flip": {"width": 6},
    "bit-flip-divisor": {"divisor": 5},
    "last-digit-standing": {"highest": 12},
}


def playout(slug: str, options: dict, seed: int, cap: int = 60) -> list[str]:
    game, rng = get_game(slug), random.Random(seed)
    pos, moves = game.start(**options), []
    while not pos.over and len(moves) < cap:
        move = rng.choice(game.legal_moves(pos))
        moves.append(move)
        pos = game.play(pos, move)
    return moves


def page_url(state) -> str:
    return analysis_board.url(state)


def analysis_links(content: str, slug: str) -> list[str]:
    """Every link on the page to the analysis board of ``slug``, unescaped."""
    hrefs = re.findall(r'href="([^"]*)"', content)
    board = re.compile(rf"/games/{slug}/analysis/(\?|$)")  # not its export, nor its posts
    return [html.unescape(h) for h in hrefs if board.match(h)]


def state_of(href: str, game):
    return parse(game, QueryDict(urlsplit(href).query))


# ---- the URL ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), default=st.booleans(), cut=st.floats(0, 1))
def test_a_state_round_trips_through_its_query(slug, seed, default, cut):
    game = get_game(slug)
    options = {} if default else OPTIONS[slug]
    moves = playout(slug, options, seed)
    state = build(game, options, moves, int(len(moves) * cut))
    again = parse(game, QueryDict(query(state)))
    assert again == state
    assert again.position == state.position
    assert query(again) == query(state)


def test_the_query_is_short_and_readable():
    game = get_game("bit-flip")
    state = build(game, {"width": 5}, ["3", "1", "5 4"], 2)
    assert query(state) == "width=5&moves=3.1.4-5&ply=2"  # "5 4" is stored as the rules write it
    assert analysis_board.url(build(game, {}, [])) == "/games/bit-flip/analysis/"
    at_end = build(game, {"width": 5}, ["3", "1"])
    assert query(at_end) == "width=5&moves=3.1"  # the ply left out: the end of the line


def test_options_left_out_take_their_defaults_as_the_new_match_form_does():
    game = get_game("bitwise-battle")
    state = parse(game, QueryDict("target=5"))
    assert state.options == game.clean_options({"target": 5})
    assert query(state) == "target=5"


# ---- the page ----------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_every_legal_move_is_listed_with_the_verdict_analyse_gives_best_first(slug):
    game = get_game(slug)
    for seed in range(3):
        moves = playout(slug, OPTIONS[slug], seed, cap=8)
        for ply in range(len(moves) + 1):
            state = build(game, OPTIONS[slug], moves, ply)
            response = Client().get(page_url(state))
            assert response.status_code == 200
            content = response.content.decode()
            pos = state.position
            analysis = game.analyse(pos)
            listed = re.findall(
                r'<li data-move="([^"]*)"[^>]*>.*?<span class="verdict[^"]*">([^<]*)</span>\s*'
                r'<span class="after">([^<]*)</span>',
                content,
                re.S,
            )
            assert sorted(move for move, _, _ in listed) == sorted(game.legal_moves(pos))
            for move, verdict, after in listed:
                expected = analysis.verdict(move)
                assert html.unescape(verdict) == expected.verdict.label
                assert html.unescape(after) == analysis_board.after_text(expected)
            ranks = [analysis_board.rank(analysis, analysis.verdict(m)) for m, _, _ in listed]
            assert ranks == sorted(ranks)
            value = re.search(r'<p id="value-text">([^<]*)</p>', content).group(1)
            assert html.unescape(value) == analysis_board.value_words(
                analysis_board.player, analysis.winner, analysis.plies, analysis.note
            )


def test_the_words_on_a_known_position():
    game = get_game("bit-flip")
    state = build(game, {"width": 5}, BLUNDER_GAME[:2])
    content = Client().get(page_url(state)).content.decode()
    assert "Player 1 to move." in content
    assert "Player 1 wins with perfect play, in 3 moves." in content
    first = re.search(r'<ol class="analysis-moves".*?</li>', content, re.S).group(0)
    assert "Flip bit 4" in first and "keeps the win" in first
    assert "Player 1 wins with perfect play, in 2 moves." in first
    assert re.search(r"Flip bit 2</a>\s*<span class=\"verdict bad\">throws away the win", content)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_pages_own_links_reproduce_the_state(slug):
    game = get_game(slug)
    moves = next(m for seed in range(100) if len(m := playout(slug, OPTIONS[slug], seed, 6)) > 2)
    state = build(game, OPTIONS[slug], moves, len(moves) // 2)
    content = Client().get(page_url(state)).content.decode()
    links = analysis_links(content, slug)
    here = state.moves[: state.ply]
    for href in links:
        linked = state_of(href, game)  # every link names a good state
        assert linked.options == state.options
        assert analysis_board.url(linked) == href  # and writes itself back the same way
    nav = {
        key: html.unescape(h)
        for key, h in re.findall(r'id="replay-(first|previous|next|last)" href="([^"]*)"', content)
    }
    assert state_of(nav["first"], game) == build(game, OPTIONS[slug], moves, 0)
    assert state_of(nav["previous"], game) == build(game, OPTIONS[slug], moves, state.ply - 1)
    assert state_of(nav["next"], game) == build(game, OPTIONS[slug], moves, state.ply + 1)
    assert state_of(nav["last"], game) == build(game, OPTIONS[slug], moves)
    for move, href in re.findall(r'<li data-move="([^"]*)"[^>]*>\s*<a href="([^"]*)"', content):
        linked = state_of(html.unescape(href), game)
        assert linked.moves[: linked.ply] == (*here, html.unescape(move))


@pytest.mark.parametrize("slug", SLUGS)
def test_the_best_line_is_legal_and_ends_the_game_or_hits_the_cap(slug):
    game = get_game(slug)
    for seed in range(4):
        moves = playout(slug, OPTIONS[slug], seed, cap=5)
        state = build(game, OPTIONS[slug], moves)
        line = analysis_board.context(state)["best_line"]
        if state.position.over:
            assert line == []
            continue
        last = state_of(line[-1]["href"], game)  # replayed through the rules by parse
        assert last.ply == len(moves) + len(line)
        assert last.moves[: len(moves)] == state.moves
        pos = state.position
        for move in last.moves[len(moves) :]:  # each step is a best move where it is played
            assert move in game.analyse(pos).best_moves
            pos = game.play(pos, move)
        assert last.position.over or len(line) == LINE_CAP


def test_the_best_line_stops_where_the_url_would_grow_too_long():
    game = get_game("last-bit-standing")  # never ends under safe play
    pos, moves = game.start(), []
    while len(moves) < MAX_PLIES - 3:
        moves.append(game.safe_moves(pos)[0])
        pos = game.play(pos, moves[-1])
    context = analysis_board.context(build(game, {}, moves))
    assert len(context["best_line"]) == 3
    assert context["line_goes_on"]
    assert context["room"] == 3


def test_a_full_line_lists_its_moves_without_links():
    game = get_game("last-bit-standing")
    pos, moves = game.start(), []
    while len(moves) < MAX_PLIES:
        moves.append(game.safe_moves(pos)[0])
        pos = game.play(pos, moves[-1])
    response = Client().get(analysis_board.url(build(game, {}, moves)))
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="analysis-full"' in content
    assert not re.search(r'<li data-move="[^"]*"[^>]*>\s*<a ', content)


def test_a_finished_position_says_how_it_ended():
    game = get_game("bit-flip")
    state = build(game, {"width": 5}, BLUNDER_GAME)
    content = Client().get(page_url(state)).content.decode()
    assert game.describe_outcome(state.position) in html.unescape(content)
    assert "Player 2 has won." in content
    assert "no move is left to play" in content


def test_no_database_at_all(django_assert_num_queries):
    game = get_game("bit-flip")
    url = page_url(build(game, {"width": 5}, BLUNDER_GAME[:2]))
    client = Client()
    with django_assert_num_queries(0):
        assert client.get(url).status_code == 200
        assert client.get(url, **HTMX).status_code == 200
        assert client.get(url + ".9").status_code == 400
    assert Match.objects.count() == 0 and Move.objects.count() == 0


def test_htmx_gets_the_analysis_part_only():
    game = get_game("bit-flip")
    response = Client().get(page_url(build(game, {}, ["1"])), **HTMX)
    content = response.content.decode()
    assert content.lstrip().startswith('<section id="analysis"')
    assert "<html" not in content
    assert "HX-Request" in response["Vary"]


# ---- refusals ----------------------------------------------------------------------------

BAD = [
    ("bit-flip", "width=1001", "Width must be from 1 to 1000, not 1001."),
    ("bit-flip", "width=wide", "Width must be a whole number from 1 to 1000"),
    ("bit-flip", "width=5&width=6", "'width' is given 2 times"),
    ("bit-flip", "colour=red", "takes width, moves, ply; not 'colour'"),
    ("bit-flip", "moves=3..1", "Move 2 ('') is not written as a move"),
    ("bit-flip", "moves=3%201", "Move 1 ('3 1') is not written as a move"),
    ("bit-flip", "moves=<b>", "is not written as a move"),
    ("bit-flip", "width=5&moves=9", "Move 1 ('9') cannot be played: There is no bit 9"),
    ("bit-flip", "width=5&moves=3.3", "Move 2 ('3') cannot be played: Bit 3 is already 1"),
    ("bit-flip", "width=2&moves=1-2.1", "Move 2 ('1') comes after the game ended"),
    ("bit-flip", "moves=1&ply=2", "The ply must be a whole number from 0 to 1, not 2."),
    ("bit-flip", "moves=1&ply=-1", "The ply must be a whole number from 0 to 1, not '-1'."),
    ("bit-flip", "ply=x", "not 'x'"),
    ("last-bit-standing", "moves=" + ".".join(["1"] * (MAX_PLIES + 1)), "at most 400 moves"),
    ("last-bit-standing", "moves=2", "Move 1 ('2') cannot be played"),
    ("bitwise-battle", "condition=more", 'Condition must be one of "divisible"'),
    ("last-digit-standing", "highest=999", "must be from 2 to 100, not 999"),
    ("bit-flip-divisor", "divisor=1", "must be from 2 to 255, not 1"),
]


@pytest.mark.parametrize(("slug", "written", "message"), BAD)
def test_a_bad_url_is_refused_with_a_plain_message(slug, written, message):
    for headers in ({}, HTMX):
        response = Client().get(f"/games/{slug}/analysis/?{written}", **headers)
        assert response.status_code == 400
        said = html.unescape(
            re.search(r'<p id="refusal-message"[^>]*>([^<]*)</p>', response.content.decode()).group(
                1
            )
        )
        assert message in said


def test_an_unknown_game_is_a_404():
    assert Client().get("/games/chess/analysis/").status_code == 404


def test_parse_and_build_refuse_with_bad_analysis():
    game = get_game("bit-flip")
    with pytest.raises(BadAnalysis, match="at most 400 moves"):
        build(game, {}, ["1"] * (MAX_PLIES + 1))
    with pytest.raises(BadAnalysis, match="has no option"):
        build(game, {"size": 3}, [])


junk = st.text(alphabet="0123456789-.% abx+\x00é&=", max_size=24)


@pytest.mark.parametrize("slug", SLUGS)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.dictionaries(
        st.sampled_from(
            ["moves", "ply", "width", "divisor", "highest", "target", "condition", "x"]
        ),
        junk,
        max_size=4,
    ),
    moves=st.lists(
        st.sampled_from(["0", "1", "2", "3", "9", "1-2", "2-3", "07", "x"]), max_size=12
    ),
)
def test_junk_never_500s(slug, data, moves):
    client = Client()
    for params in (data, {**data, "moves": ".".join(moves)}):
        response = client.get(f"/games/{slug}/analysis/", params)
        assert response.status_code in (200, 400)
        if response.status_code == 400:
            # A NUL is refused before the view, at the edge (bitsite/edge.py).
            nul = any("\x00" in value for value in params.values())
            mark = "This request was refused" if nul else 'id="refusal-message"'
            assert mark in response.content.decode()


# ---- the ways in -------------------------------------------------------------------------


def test_analyse_from_a_replay_ply_and_from_a_finished_match():
    match = played("bit-flip", BLUNDER_GAME, options={"width": 5})
    client = Client()
    replay = client.get(f"/m/{match.public_id}/replay/?ply=2").content.decode()
    href = html.unescape(re.search(r'id="analyse-here" href="([^"]*)"', replay).group(1))
    assert href == f"/m/{match.public_id}/analyse?ply=2"
    response = client.get(href)
    assert response.status_code == 302
    assert response["Location"] == "/games/bit-flip/analysis/?width=5&moves=3.1"
    page = client.get(f"/m/{match.public_id}/").content.decode()
    assert html.unescape(re.search(r'href="([^"]*)" id="analyse-link"', page).group(1)) == (
        f"/m/{match.public_id}/analyse"
    )
    response = client.get(f"/m/{match.public_id}/analyse")
    assert response["Location"] == "/games/bit-flip/analysis/?width=5&moves=3.1.2.4-5"
    assert client.get(f"/m/{match.public_id}/analyse?ply=junk").status_code == 302


def test_a_match_in_play_is_not_analysed_for_everyone():
    match = played("bit-flip", BLUNDER_GAME[:2], options={"width": 5})
    assert Client().get(f"/m/{match.public_id}/analyse").status_code == 404


def test_a_match_longer_than_the_board_takes_is_refused_past_the_cap():
    from tests.replays import long_last_bit_match

    match = long_last_bit_match(MAX_PLIES + 10)
    client = Client()
    assert client.get(f"/m/{match.public_id}/analyse?ply={MAX_PLIES}").status_code == 302
    response = client.get(f"/m/{match.public_id}/analyse")
    assert response.status_code == 400
    assert "at most 400 moves" in response.content.decode()


@pytest.mark.parametrize("slug", SLUGS)
def test_every_games_seeded_match_opens_in_the_analysis(slug):
    moves = seeded_moves(slug, 3)[:MAX_PLIES]
    match = played(slug, moves)
    response = Client().get(f"/m/{match.public_id}/analyse", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[0][1] == 302


# ---- issue 25: variations in the address --------------------------------------------------


def random_tree(slug: str, options: dict, seed: int, branches: int = 6):
    """A state with variations: lines played from random points of the line, as a player
    stepping back and playing another move makes them."""
    game, rng = get_game(slug), random.Random(seed)
    state = build(game, options, playout(slug, options, seed, cap=10))
    for _ in range(branches):
        ply = rng.randint(0, len(state.moves))
        at = parse(game, QueryDict(query(state, ply)))
        if at.position.over:
            continue
        move = rng.choice(game.legal_moves(at.position))
        state = state_of(analysis_board.played_url(at, move), game)
        pos = state.position
        for _ in range(rng.randint(0, 4)):  # the new line goes on a little
            if pos.over:
                break
            move = rng.choice(game.legal_moves(pos))
            state = state_of(analysis_board.played_url(state, move), game)
            pos = state.position
    return state


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_tree_with_variations_round_trips_and_keeps_every_line(slug, seed):
    game = get_game(slug)
    state = random_tree(slug, OPTIONS[slug], seed)
    again = parse(game, QueryDict(query(state)))
    assert again == state and again.tree == state.tree
    assert analysis_board.write(state.tree) == state.written
    assert state.size <= MAX_PLIES
    # Every path from the start is a legal line, and none is given twice.
    stack = [(state.tree, game.start(**state.options))]
    while stack:
        kids, pos = stack.pop()
        moves = [node[0] for node in kids]
        assert len(moves) == len(set(moves))
        for move, below in kids:
            stack.append((below, game.play(pos, move)))


def test_another_move_from_an_earlier_ply_keeps_the_old_line_as_a_variation():
    game = get_game("bit-flip")
    state = build(game, {"width": 5}, ["3", "1", "4"], 1)
    href = analysis_board.played_url(state, "2")
    assert href == "/games/bit-flip/analysis/?width=5&moves=3.2(1.4)"
    branched = state_of(href, game)
    assert branched.moves == ("3", "2") and branched.ply == 2 and branched.variations == 1
    # Playing the old line's move again makes it the line, the new one its variation.
    back = state_of(analysis_board.played_url(state_of(href + "&ply=1", game), "1"), game)
    assert back.moves == ("3", "1", "4") and back.ply == 2
    assert back.written == "3.1(2).4"
    # The line's next move just steps on; a move from the end adds to the line.
    assert analysis_board.played_url(state, "1").endswith("moves=3.1.4&ply=2")
    assert analysis_board.played_url(build(game, {"width": 5}, ["3"]), "5 4").endswith(
        "moves=3.4-5"
    )


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_choices_links_equal_the_tree_grown_by_hand(slug, seed):
    """Each choice's address is spliced into the written tree (no tree built per choice):
    it names the same tree as growing it would."""
    game = get_game(slug)
    state = random_tree(slug, OPTIONS[slug], seed, branches=3)
    state = parse(game, QueryDict(query(state, random.Random(seed).randint(0, len(state.moves)))))
    for choice in analysis_board.context(state)["choices"]:
        linked = state_of(choice["href"], game)
        grown = analysis_board.grow(state.tree, [*state.moves[: state.ply], choice["move"]])
        assert linked.tree == grown
        assert linked.ply == state.ply + 1


VARIATION_BAD = [
    ("width=5&moves=3(1", "A variation is not closed"),
    ("width=5&moves=3)1", "A ')' closes no variation"),
    ("width=5&moves=(3)", "Move 1 ('') is not written as a move"),
    ("width=5&moves=3.1(1)", "Move 2 ('1') of a variation is given twice"),
    ("width=5&moves=3.1(3)", "Move 2 ('3') of a variation cannot be played: Bit 3 is already 1"),
    ("width=2&moves=1-2(1.2.1)", "Move 3 ('1') of a variation comes after the game ended"),
    ("width=5&moves=3.1(2)1", "Move 4 ('1') is not written as a move"),
    ("moves=0(1" + ".1" * MAX_PLIES + ")", "at most 400 moves, variations included"),
]


@pytest.mark.parametrize(("written", "message"), VARIATION_BAD)
def test_a_bad_tree_is_refused_with_a_plain_message(written, message):
    slug = "last-bit-standing" if written.startswith("moves=0(") else "bit-flip"
    response = Client().get(f"/games/{slug}/analysis/?{written}")
    assert response.status_code == 400
    said = re.search(r'<p id="refusal-message"[^>]*>([^<]*)</p>', response.content.decode())
    assert message in html.unescape(said.group(1))


def test_the_variations_are_listed_with_links_that_make_them_the_line():
    game = get_game("bit-flip")
    state = parse(game, QueryDict("width=5&moves=3.1(2.4-5(5))(5).4"))
    content = Client().get(page_url(state)).content.decode()
    listed = re.findall(r'<span class="variation">(.*?)</span>\s*(?=<span|</li>)', content, re.S)
    assert len(listed) == 2
    first = re.sub(r"<[^>]+>", "", listed[0])
    assert " ".join(first.split()) == (
        "(2. Player 2 flipped bit 2 3. Player 1 flipped bits 4 and 5 (3. Player 1 flipped bit 5))"
    )
    links = [html.unescape(h) for h in re.findall(r'href="([^"]*)"', listed[0])]
    reached = [state_of(h, game) for h in links]
    assert [s.moves[: s.ply] for s in reached] == [("3", "2"), ("3", "2", "4 5"), ("3", "2", "5")]
    assert state_of(links[2], game).written == "3.2(1.4)(5).5(4-5)"


# ---- moves on the board itself, the strip, the export ---------------------------------------


def test_a_move_posted_from_the_board_goes_to_its_address():
    client = Client(enforce_csrf_checks=False)
    url = "/games/bit-flip/analysis/play?width=5&moves=3.1.4&ply=1"
    response = client.post(url, {"move": "5 4", "ply": ""})
    assert response.status_code == 303
    assert response["Location"] == "/games/bit-flip/analysis/?width=5&moves=3.4-5(1.4)"
    partial = client.post(url, {"move": "2"}, **HTMX)
    assert partial.status_code == 200
    assert partial["HX-Push-Url"] == "/games/bit-flip/analysis/?width=5&moves=3.2(1.4)"
    assert partial.content.decode().lstrip().startswith('<section id="analysis"')
    for move, said in (("3", "Bit 3 is already 1"), ("x", "cannot be played here"), ("", "")):
        refused = client.post(url, {"move": move})
        assert refused.status_code == 400
        assert said in html.unescape(refused.content.decode())
    assert client.get(url).status_code == 405


def test_the_board_draws_its_own_buttons_and_a_finished_one_none():
    game = get_game("last-digit-standing")
    content = Client().get(page_url(build(game, {}, ["6"]))).content.decode()
    buttons = re.findall(
        r'<button class="digit[^"]*" type="submit" name="move" value="(\d+)"', content
    )
    assert sorted(buttons) == sorted(game.legal_moves(game.play(game.start(), "6")))
    assert 'action="/games/last-digit-standing/analysis/play?moves=6"' in content
    over = Client().get(page_url(build(get_game("bit-flip"), {"width": 5}, BLUNDER_GAME)))
    assert 'name="move"' not in over.content.decode()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_strip_shows_who_could_force_a_win_after_each_ply_and_the_blunders(slug):
    game = get_game(slug)
    moves = playout(slug, OPTIONS[slug], 7, cap=12)
    state = build(game, OPTIONS[slug], moves, len(moves) // 2)
    strip = analysis_board.context(state)["strip"]
    assert [cell["ply"] for cell in strip["cells"]] == list(range(len(moves) + 1))
    for cell in strip["cells"]:
        ply = cell["ply"]
        winner = game.analyse(state.positions[ply]).winner
        assert f"w{winner or 0}" in cell["classes"].split()
        blunder = bool(ply) and game.verdict_of(state.positions[ply - 1], moves[ply - 1]).blunder
        assert cell["blunder"] == blunder
        assert cell["current"] == (ply == state.ply)
        assert state_of(cell["href"], game) == build(game, OPTIONS[slug], moves, ply)
    assert strip["label"].startswith("The whole line in a picture")
    content = Client().get(page_url(state)).content.decode()
    assert content.count('<rect class="bar"') == len(moves) + 1


def test_the_line_exported_as_text():
    game = get_game("bit-flip")
    query_string = "width=5&moves=3.1(2).2.4-5"
    response = Client().get(f"/games/bit-flip/analysis/export?{query_string}")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    assert "Address: http://testserver/games/bit-flip/analysis/?width=5&moves=3.1(2).2.4-5" in text
    assert "2. Player 2 flipped bit 1: no winning move existed." in text
    assert "3. Player 1 flipped bit 2: throws away the win, a blunder." in text
    assert game.describe_outcome(build(game, {"width": 5}, BLUNDER_GAME).position) in text
    assert "With 1 variation" in text and "3.1(2).2.4-5" in text
    assert Client().get("/games/bit-flip/analysis/export?moves=99").status_code == 400


@pytest.mark.parametrize(
    ("slug", "options", "moves", "row", "after"),
    [
        # After "Remove 1" ten numbers are left, within the search: the next board says
        # "in 1 move", and so must this row (it said "beyond exact analysis").
        ("last-digit-standing", {"highest": 12}, ["4"], "Remove 1", "in 1 move"),
        # After "Flip bit 5" twenty zeros are left: 18 moves to the end.
        ("bit-flip", {"width": 21}, [], "Flip bit 5", "in 18 moves"),
    ],
)
def test_a_move_into_a_position_within_the_search_says_in_how_many_moves(
    slug, options, moves, row, after
):
    game = get_game(slug)
    state = build(game, options, moves)
    content = html.unescape(Client().get(page_url(state)).content.decode())
    found = re.search(
        ">" + re.escape(row) + r'</a>.*?<span class="after">([^<]*)</span>', content, re.S
    )
    expected = f"Player 1 wins with perfect play, {after}."
    assert found and found.group(1) == expected
    # The board after that move says the same of itself.
    label = presenter_for(game).label
    move = next(m for m in game.legal_moves(state.position) if label(m) == row)
    after_it = Client().get(page_url(build(game, options, [*moves, move]))).content.decode()
    value = re.search(r'<p id="value-text">([^<]*)</p>', html.unescape(after_it)).group(1)
    assert value == expected
