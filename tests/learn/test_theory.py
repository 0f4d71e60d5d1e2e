"""The theory pages: every number a picture draws agrees with the rules and the exact
analysis, checked here from scratch; options round-trip; bad options are a 400."""

from __future__ import annotations

import re
from functools import cache, reduce
from operator import xor

import pytest
from django.test import Client
from django.urls import reverse

from games.rules import GAMES, get_game
from learn.theory import theory_for
from learn.theory.bit_flip_divisor import BLOCK

SLUGS = [game.slug for game in GAMES]


def page(slug: str, query: str = "") -> tuple[int, str]:
    response = Client().get(reverse("theory", args=[slug]) + query)
    return response.status_code, response.content.decode()


# ---- the pages --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_has_a_theory_page_with_an_accessible_picture(slug):
    status, html = page(slug)
    assert status == 200
    svg = re.search(r"<svg[^>]*>", html).group(0)
    assert 'role="img"' in svg and "aria-labelledby" in svg and 'viewBox="' in svg
    assert 'width="100%"' in svg
    for label in re.search(r'aria-labelledby="([^"]+)"', svg).group(1).split():
        assert f'id="{label}"' in html
    assert "<title " in html and "<desc " in html
    assert 'id="theory-table"' in html  # the numbers, for screen readers too
    assert "style=" not in html.split("<main", 1)[1]  # CSP: no inline styles


@pytest.mark.parametrize(
    ("slug", "query", "field", "value"),
    [
        ("bit-flip", "?width=13", "width", "13"),
        ("bit-flip-divisor", "?divisor=100", "divisor", "100"),
        ("bitwise-battle", "?condition=ones&target=2&max_length=9", "max_length", "9"),
        ("last-digit-standing", "?highest=12", "highest", "12"),
    ],
)
def test_options_round_trip(slug, query, field, value):
    status, html = page(slug, query)
    assert status == 200
    assert re.search(rf'name="{field}" value="{value}"', html), "the form shows what was asked"
    assert 'method="get"' in html


@pytest.mark.parametrize(
    ("slug", "query", "says"),
    [
        ("bit-flip", "?width=1001", "Width must be from 1 to 1000, not 1001."),
        ("bit-flip", "?width=", "Width must be a whole number"),
        ("bit-flip", "?width=eight", "Width must be a whole number"),
        ("bit-flip", "?colour=red", "Bit Flip has no option"),
        ("bit-flip-divisor", "?divisor=1", "Target divisor must be from 2 to 255"),
        ("bitwise-battle", "?condition=odd", "Condition must be one of"),
        ("bitwise-battle", "?condition=ones&target=30&max_length=20", "exactly k ones"),
        ("bitwise-battle", "?target=99999999999999999999999", "Target must be from"),
        ("last-digit-standing", "?highest=101", "Highest number must be from 2 to 100"),
        ("last-bit-standing", "?width=8", "Last Bit Standing has no option"),
        ("bit-flip", "?width=8&width=9", "'width' is given 2 times: give it once."),
        ("bitwise-battle", "?target=5&target=5", "'target' is given 2 times: give it once."),
    ],
)
def test_bad_options_are_a_400_with_a_plain_message(slug, query, says):
    status, html = page(slug, query)
    assert status == 400
    message = re.search(r'id="theory-error">(.*?)</p>', html, re.S).group(1)
    assert says.replace("'", "&#x27;") in message
    assert "<svg" not in html


def test_an_unknown_game_has_no_theory_page():
    assert page("no-such-game")[0] == 404


# ---- Last Bit Standing: the remainders mod 3 --------------------------------------


def test_the_mod_3_transitions_are_the_games_own():
    game = get_game("last-bit-standing")
    drawn = theory_for(game).picture["transitions"]
    assert {(t.source, t.bit) for t in drawn} == {(1, "0"), (1, "1"), (2, "0"), (2, "1")}
    for t in drawn:
        # A number with each remainder, reached by the game's own play: 1, and 10 = 2.
        pos = game.start() if t.source == 1 else game.play(game.start(), "0")
        assert pos.value % 3 == t.source
        after = game.play(pos, t.bit)
        assert after.value % 3 == t.target == (2 * t.source + int(t.bit)) % 3
        assert t.loses == (after.result is not None and after.result.winner != pos.to_move)
    assert [t.loses for t in drawn if t.source == 1 and t.bit == "1"] == [True]
    assert sum(t.loses for t in drawn) == 1
    assert theory_for(game).picture["always_safe"]
    assert get_game("last-bit-standing").analyse(game.start()).winner is None


# ---- Bit Flip: Kayles ---------------------------------------------------------------


@cache
def kayles(n: int) -> int:
    """Grundy value of a row of n pins, from scratch: knock down 1 or 2 adjacent pins."""
    reached = set()
    for take in (1, 2):
        for left in range(n - take + 1):
            reached.add(kayles(left) ^ kayles(n - take - left))
    value = 0
    while value in reached:
        value += 1
    return value


def brute_grundy(bits: str, game, memo=None) -> int:
    """Grundy value of a Bit Flip position by mex over the game's own moves (memoised
    by the bits, nothing else assumed)."""
    memo = {} if memo is None else memo
    if bits not in memo:
        pos = game.from_json({"ply": 0, "result": None, "width": len(bits), "bits": bits})
        reached = {
            brute_grundy(game.play(pos, move).bits, game, memo) for move in game.legal_moves(pos)
        }
        memo[bits] = mex(reached)
    return memo[bits]


def mex(reached) -> int:
    value = 0
    while value in reached:
        value += 1
    return value


@pytest.mark.parametrize("width", [1, 2, 8, 12, 32])
def test_the_grundy_values_agree_with_a_brute_force_and_the_analysis(width):
    game = get_game("bit-flip")
    values = theory_for(game, {"width": str(width)}).picture["values"]
    assert len(values) == width + 1
    assert values == [kayles(n) for n in range(width + 1)]
    memo: dict = {}
    for n in range(min(width, 12) + 1):  # the game's own moves, searched from scratch
        assert values[n] == brute_grundy("0" * n, game, memo)
    # the start is won by Player 1 exactly when its value is not 0
    if width <= 24:
        assert (values[width] != 0) == (game.analyse(game.start(width=width)).winner == 1)


def test_a_positions_value_is_the_xor_of_its_runs():
    game = get_game("bit-flip")
    values = theory_for(game, {"width": "9"}).picture["values"]
    for bits in ["100100000", "001101000", "000010000", "110000011", "010101010"]:
        runs = [len(run) for run in bits.split("1") if run]
        value = reduce(xor, (values[r] for r in runs), 0)
        assert value == brute_grundy(bits, game)
        pos = game.from_json({"ply": 0, "result": None, "width": 9, "bits": bits})
        assert (value != 0) == (game.analyse(pos).winner == pos.to_move)


def test_kayles_repeats_with_period_12_from_71_on():
    """The page says so; checked as far as a brute force reaches quickly."""
    assert all(kayles(n) == kayles(n + 12) for n in range(71, 300))
    assert kayles(70) != kayles(82)
    assert all(kayles(n) for n in range(1, 300))  # every row is won by Player 1


# ---- Bit Flip: Divisor -----------------------------------------------------------


@pytest.mark.parametrize("divisor", [7, 66, 200, 255])
def test_the_divisor_table_agrees_with_the_analysis(divisor):
    game = get_game("bit-flip-divisor")
    rows = theory_for(game, {"divisor": str(divisor)}).picture["rows"]
    assert len(rows) <= BLOCK and divisor in [row["divisor"] for row in rows]
    for row in rows:
        analysis = game.analyse(game.start(divisor=row["divisor"]))
        assert (row["winner"], row["plies"]) == (analysis.winner, analysis.plies)


def test_player_1_wins_exactly_with_the_powers_of_two():
    """The page's claim, for every divisor the game allows."""
    game = get_game("bit-flip-divisor")
    option = game.option("divisor")
    winners = {
        d: game.analyse(game.start(divisor=d)).winner
        for d in range(option.minimum, option.maximum + 1)
    }
    assert {d for d, w in winners.items() if w == 1} == {2, 4, 8, 16, 32, 64, 128}
    assert {w for d, w in winners.items() if d & (d - 1)} == {2}


# ---- Last Digit Standing: the divisibility graph ------------------------------------


@pytest.mark.parametrize("highest", [2, 6, 9, 10, 12])
def test_the_graph_edges_are_the_rules_legal_moves(highest):
    game = get_game("last-digit-standing")
    picture = theory_for(game, {"highest": str(highest)}).picture
    edges = {(line["a"], line["b"]) for line in picture["lines"]}
    start = game.start(highest=highest)
    for a in range(1, highest + 1):
        after = game.play(start, str(a))
        for b in range(1, highest + 1):
            if b == a:
                continue
            legal = after.result is None and str(b) in game.legal_moves(after)
            assert legal == ((min(a, b), max(a, b)) in edges), (a, b)
    assert [node["n"] for node in picture["nodes"]] == list(range(1, highest + 1))


@cache
def max_matching(numbers: frozenset[int]) -> int:
    if not numbers:
        return 0
    n = min(numbers)
    rest = numbers - {n}
    best = max_matching(rest)
    for m in rest:
        if m % n == 0 or n % m == 0:
            best = max(best, 1 + max_matching(rest - {m}))
    return best


@pytest.mark.parametrize("highest", range(2, 15))
def test_the_winning_first_moves_agree_with_the_analysis_and_the_pairing(highest):
    game = get_game("last-digit-standing")
    picture = theory_for(game, {"highest": str(highest)}).picture
    analysis = game.analyse(game.start(highest=highest))
    assert picture["winning"] == sorted(int(m) for m in analysis.winning_moves)
    assert picture["winner"] == analysis.winner
    assert [n["n"] for n in picture["nodes"] if n["wins"]] == picture["winning"]
    # The page's reason: the first moves that win are those a largest pairing leaves out.
    numbers = frozenset(range(1, highest + 1))
    largest = max_matching(numbers)
    left_out = [v for v in sorted(numbers) if max_matching(numbers - {v}) == largest]
    assert picture["winning"] == left_out
    assert (analysis.winner == 2) == (2 * largest == highest)
    why = picture["why"]
    if why["pairs"]:
        assert analysis.winner == 2
        assert sorted(n for pair in why["pairs"] for n in pair) == sorted(numbers)
        assert all(a % b == 0 or b % a == 0 for a, b in why["pairs"])
    else:
        assert analysis.winner == 1


@pytest.mark.parametrize("highest", [19, 20, 60, 100])
def test_a_long_sequence_is_analysed_and_its_winning_first_moves_marked(highest):
    game = get_game("last-digit-standing")
    picture = theory_for(game, {"highest": str(highest)}).picture
    analysis = game.analyse(game.start(highest=highest))
    assert picture["analysed"] and picture["winner"] == analysis.winner
    assert picture["winning"] == sorted(int(move) for move in analysis.winning_moves)
    assert len(picture["nodes"]) == highest
    status, html = page("last-digit-standing", f"?highest={highest}")
    assert status == 200 and "not marked" not in html and "None move" not in html
    marked = ", ".join(map(str, picture["winning"]))
    assert f"Thick green circles: Player 1's winning first moves ({marked})" in html


# ---- Bitwise Battle: the winning region by length -----------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"max_length": "64"},
        {"condition": "divisible", "target": "5", "max_length": "30"},
        {"condition": "ones", "target": "3", "max_length": "12"},
        {"condition": "equals", "target": "6", "max_length": "10"},
        {"condition": "divisible", "target": "1000", "max_length": "64"},
    ],
)
def test_the_bitwise_battle_region_agrees_with_the_analysis(options):
    game = get_game("bitwise-battle")
    theory = theory_for(game, options)
    rows = theory.picture["rows"]
    assert [row["length"] for row in rows] == list(range(1, theory.picture["last"] + 1))
    assert theory.picture["last"] <= theory.options["max_length"]
    for row in rows:
        try:
            start = game.start(**{**theory.options, "max_length": row["length"]})
        except ValueError:
            assert row["winner"] is None
            continue
        analysis = game.analyse(start)
        assert (row["winner"], row["plies"]) == (analysis.winner, analysis.plies)


def test_divisible_by_3_is_won_by_the_parity_of_the_length():
    """The page's reasoning: all zeros until the sequence is full."""
    rows = theory_for(get_game("bitwise-battle"), {"max_length": "64"}).picture["rows"]
    assert len(rows) == 64
    assert all(row["winner"] == (2 if row["length"] % 2 else 1) for row in rows)
    assert all(row["plies"] == row["length"] for row in rows)
