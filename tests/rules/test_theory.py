"""The theory solvers against the searches and the published values.

Bit Flip is Kayles (nim-values, OEIS A002186), Last Digit Standing undirected vertex
geography (maximum matchings), Bitwise Battle a closed rule, Last Bit Standing
arithmetic mod 3. Each answers who wins and every move's verdict; these tests hold
them to the exhaustive search (tests/rules/helpers.brute_force, written from the verbs
alone, and each game's own ``search_analysis``) on every reachable position up to the
sizes the search reaches, and on random positions beyond it where it still can.
"""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import Verdict, get_game
from games.rules.base import UNKNOWN_LENGTH
from games.rules.bit_flip import EXACT_ZEROS, PERIOD, PERIODIC_FROM, BitFlipPosition, kayles
from games.rules.computer import choose_move
from games.rules.last_digit_standing import (
    EXACT_NUMBERS,
    LastDigitPosition,
    maximum_matching,
    missable,
    missed_vertices,
    neighbours,
    perfectly_paired,
)
from games.rules.last_digit_standing import reachable as reachable_numbers
from tests.rules.helpers import brute_force, other, reachable

BIT_FLIP = get_game("bit-flip")
LAST_DIGIT = get_game("last-digit-standing")
BATTLE = get_game("bitwise-battle")
LAST_BIT = get_game("last-bit-standing")

# OEIS A002186, Kayles' nim-values a(0)..a(104), as the sequence's data lists them.
A002186 = [
    0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4,
    7, 2, 1, 8, 6, 7, 4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 4, 2, 7,
    4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4,
    7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1,
]  # fmt: skip
# From n = 71 on the values repeat these twelve (Guy and Smith, 1956; Winning Ways).
TAIL = [7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2]


def plain_mex_kayles(limit: int) -> list[int]:
    """Kayles' values 0..limit by a plain mex over every move, nothing shared with the rules."""
    values = []
    for n in range(limit + 1):
        reached = {
            values[left] ^ values[n - take - left]
            for take in (1, 2)
            for left in range(n - take + 1)
            if n - take - left >= 0
        }
        value = 0
        while value in reached:
            value += 1
        values.append(value)
    return values


def published(n: int) -> int:
    return A002186[n] if n < len(A002186) else TAIL[(n - 71) % 12]


def test_kayles_values_are_the_published_sequence_to_200():
    mex = plain_mex_kayles(200)
    for n in range(201):
        assert kayles(n) == published(n) == mex[n], n
    assert (PERIODIC_FROM, PERIOD) == (71, 12)
    assert A002186[70] != A002186[82]  # 70 is the last exception: the period starts at 71


def test_kayles_values_repeat_with_period_12_at_any_length():
    for n in range(71, 5000):
        assert kayles(n) == TAIL[(n - 71) % 12]


def check_theory(game, pos, memo) -> None:
    """The theory's winner and every move's verdict equal the brute force's; plies it
    gives are the brute force's, and its best moves hold every fastest one."""
    theory = game.theory_analysis(pos)
    winner, plies = brute_force(game, pos, memo)
    assert theory.winner == winner, game.to_json(pos)
    assert theory.plies in (None, plies)
    assert [item.move for item in theory.moves] == game.legal_moves(pos)
    fastest = set()
    for item in theory.moves:
        child = game.play(pos, item.move)
        child_winner, child_plies = brute_force(game, child, memo)
        assert item.winner == child_winner, (game.to_json(pos), item)
        assert item.plies in (None, child_plies + 1)
        assert item.blunder == (winner == pos.to_move != child_winner)
        if child.result is not None and child.result.winner != pos.to_move:
            assert item.verdict is Verdict.LOSES_AT_ONCE
        elif winner == pos.to_move:
            keeps = child_winner == pos.to_move
            assert item.verdict is (Verdict.KEEPS_WIN if keeps else Verdict.THROWS_WIN)
        else:
            assert item.verdict is Verdict.NO_WIN
        if (child_winner, child_plies + 1) == (winner, plies):
            fastest.add(item.move)
    assert fastest <= set(theory.best_moves)
    assert all(theory.verdict(move).winner == winner for move in theory.best_moves)


@pytest.mark.parametrize("width", range(1, 11))
def test_bit_flip_theory_equals_the_search_on_every_reachable_position(width):
    memo: dict = {}
    for pos in reachable(BIT_FLIP, BIT_FLIP.start(width=width)):
        if not pos.over:
            check_theory(BIT_FLIP, pos, memo)


@pytest.mark.parametrize("highest", range(2, 11))
def test_last_digit_theory_equals_the_search_on_every_reachable_position(highest):
    memo: dict = {}
    for pos in reachable(LAST_DIGIT, LAST_DIGIT.start(highest=highest)):
        if not pos.over:
            check_theory(LAST_DIGIT, pos, memo)


def playout(game, options: dict, plies: int, rng: random.Random):
    pos = game.start(**options)
    for _ in range(plies):
        if pos.over:
            break
        pos = game.play(pos, rng.choice(game.legal_moves(pos)))
    return pos


def same_verdicts(game, pos) -> None:
    """theory_analysis agrees with the game's own search, move by move."""
    theory, search = game.theory_analysis(pos), game.search_analysis(pos)
    assert theory.winner == search.winner, game.to_json(pos)
    for mine, exact in zip(theory.moves, search.moves, strict=True):
        assert (mine.move, mine.verdict, mine.winner, mine.blunder) == (
            exact.move,
            exact.verdict,
            exact.winner,
            exact.blunder,
        )
        assert mine.plies in (None, exact.plies)


@settings(max_examples=60, deadline=None)
@given(width=st.integers(11, 18), plies=st.integers(0, 8), seed=st.integers(0, 10**6))
def test_bit_flip_theory_equals_the_search_beyond_the_exhaustive_sizes(width, plies, seed):
    pos = playout(BIT_FLIP, {"width": width}, plies, random.Random(seed))
    if not pos.over:
        same_verdicts(BIT_FLIP, pos)


@settings(max_examples=60, deadline=None)
@given(highest=st.integers(11, 16), plies=st.integers(0, 6), seed=st.integers(0, 10**6))
def test_last_digit_theory_equals_the_search_beyond_the_exhaustive_sizes(highest, plies, seed):
    pos = playout(LAST_DIGIT, {"highest": highest}, plies, random.Random(seed))
    if not pos.over:
        same_verdicts(LAST_DIGIT, pos)


def test_a_wide_row_is_judged_by_its_nim_value():
    mex = plain_mex_kayles(1000)
    rng = random.Random(25)
    for width in (33, 200, 256, 1000):
        bits = "".join(rng.choice("0001") for _ in range(width))
        pos = BitFlipPosition(width=width, bits=bits)
        total = 0
        for run in bits.split("1"):
            total ^= mex[len(run)]
        analysis = BIT_FLIP.analyse(pos)
        assert analysis.winner == (1 if total else 2)
        assert analysis.plies is None
        assert UNKNOWN_LENGTH in analysis.summary
        for item in analysis.moves:
            child = BIT_FLIP.play(pos, item.move)
            after = 0
            for run in child.bits.split("1"):
                after ^= mex[len(run)]
            assert (item.winner == 1) == (after == 0)  # Player 1 moves: a 0 left wins


def test_the_row_is_searched_exactly_while_it_is_small():
    pos = BitFlipPosition(width=40, bits="1" * (40 - EXACT_ZEROS) + "0" * EXACT_ZEROS)
    assert BIT_FLIP.analyse(pos).plies is not None
    wider = BitFlipPosition(width=40, bits="1" * (39 - EXACT_ZEROS) + "0" * (EXACT_ZEROS + 1))
    assert BIT_FLIP.analyse(wider).plies is None


def matching_size(graph: nx.Graph) -> int:
    return len(nx.max_weight_matching(graph, maxcardinality=True))


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(1, 16),
    density=st.floats(0.05, 0.9),
    seed=st.integers(0, 10**6),
)
def test_the_matching_and_its_missed_vertices_equal_networkx_on_any_graph(size, density, seed):
    rng = random.Random(seed)
    graph = nx.gnp_random_graph(size, density, seed=rng.randrange(10**6))
    adj = [list(graph.neighbors(v)) for v in range(size)]
    mate = maximum_matching(adj)
    pairs = {(v, mate[v]) for v in range(size) if mate[v] > v}
    assert all(graph.has_edge(a, b) for a, b in pairs)
    assert all(mate[mate[v]] == v for v in range(size) if mate[v] != -1)
    best = matching_size(graph)
    assert len(pairs) == best
    missed = set()
    for v in range(size):
        without = graph.copy()
        without.remove_node(v)
        if matching_size(without) == best:
            missed.add(v)
    assert missed_vertices(adj) == missed


def divisibility_graph(numbers) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(numbers)
    graph.add_edges_from((a, b) for a in numbers for b in numbers if a < b and b % a == 0)
    return graph


@settings(max_examples=40, deadline=None)
@given(highest=st.integers(20, 100), plies=st.integers(0, 30), seed=st.integers(0, 10**6))
def test_the_geography_theorem_at_up_to_100_numbers(highest, plies, seed):
    """The player to move from v wins exactly when every maximum matching of the
    remaining numbers plus v covers v: the matching is smaller without v."""
    pos = playout(LAST_DIGIT, {"highest": highest}, plies, random.Random(seed))
    if pos.over or pos.last is None:
        return
    with_v = divisibility_graph([*pos.remaining, pos.last])
    without_v = divisibility_graph(pos.remaining)
    covers = matching_size(without_v) < matching_size(with_v)
    analysis = LAST_DIGIT.analyse(pos)
    assert (analysis.winner == pos.to_move) == covers
    missed = missable(pos.remaining)
    for item in analysis.moves:
        assert (item.winner == pos.to_move) == (int(item.move) in missed)


@settings(max_examples=60, deadline=None)
@given(numbers=st.sets(st.integers(1, 60), max_size=24), last=st.integers(1, 60))
def test_pairing_and_reach_equal_networkx(numbers, last):
    """What the puzzles' themes ask of a position: do the numbers pair up completely,
    and which numbers can a game still reach from the last one."""
    graph = divisibility_graph(sorted(numbers))
    assert perfectly_paired(numbers) == (2 * matching_size(graph) == len(numbers))
    remaining = numbers - {last}
    joined = divisibility_graph(sorted(remaining | {last}))
    expected = sorted(nx.node_connected_component(joined, last) - {last})
    assert reachable_numbers(remaining, last) == expected


def test_the_first_move_wins_exactly_when_the_numbers_cannot_all_be_paired():
    for highest in range(2, 101):
        start = LAST_DIGIT.start(highest=highest)
        perfect = matching_size(divisibility_graph(range(1, highest + 1))) * 2 == highest
        assert (LAST_DIGIT.analyse(start).winner == 2) == perfect, highest


def test_a_hundred_numbers_give_every_move_a_verdict_without_a_count():
    start = LAST_DIGIT.start(highest=100)
    analysis = LAST_DIGIT.analyse(start)
    assert len(analysis.moves) == 100
    assert analysis.plies is None and analysis.winner == 1
    pos = LastDigitPosition(highest=100, remaining=tuple(range(1, EXACT_NUMBERS + 1)), last=None)
    assert LAST_DIGIT.analyse(pos).plies is not None
    assert neighbours([2, 3, 6]) == {2: [6], 3: [6], 6: [2, 3]}


@pytest.mark.parametrize(
    ("slug", "options"),
    [("bit-flip", {"width": 200}), ("last-digit-standing", {"highest": 100})],
)
def test_the_perfect_computer_never_lets_a_won_game_slip_at_the_largest_sizes(slug, options):
    game = get_game(slug)
    rng = random.Random(f"theory-{slug}")
    for _ in range(3):
        pos = game.start(**options)
        while not pos.over:
            analysis = game.analyse(pos)
            if pos.to_move == 1:
                move = choose_move(game, pos, "perfect", rng)
                if analysis.winner == 1:
                    assert analysis.verdict(move).verdict is Verdict.KEEPS_WIN
            else:
                move = rng.choice(game.legal_moves(pos))
            pos = game.play(pos, move)
        assert pos.result.winner == 1  # Player 1 wins both starts, and keeps the win


def test_prefer_hurries_the_winner_and_delays_the_loser():
    pos = BIT_FLIP.start(width=6)
    assert BIT_FLIP.prefer(pos, ["1", "1 2", "3 4"], winning=True) == ["1 2", "3 4"]
    assert BIT_FLIP.prefer(pos, ["1", "1 2", "3"], winning=False) == ["1", "3"]
    pos = LAST_DIGIT.start(highest=10)
    assert LAST_DIGIT.prefer(pos, ["1", "7"], winning=True) == ["7"]
    assert LAST_DIGIT.prefer(pos, ["1", "7"], winning=False) == ["1"]


# ---- Bitwise Battle: the closed rule -----------------------------------------------


BATTLES = [
    *({"condition": "divisible", "target": k} for k in (2, 3, 4, 5, 7, 12)),
    *({"condition": "ones", "target": k} for k in (1, 2, 3, 5)),
    *({"condition": "equals", "target": v} for v in (1, 2, 3, 6, 13, 40)),
]


@pytest.mark.parametrize("options", BATTLES)
@pytest.mark.parametrize("length", [1, 2, 5, 8])
def test_bitwise_battle_closed_rule_equals_the_brute_force(options, length):
    try:
        start = BATTLE.start(max_length=length, **options)
    except ValueError:
        return  # e.g. more ones than bits: not a game
    memo: dict = {}
    for pos in reachable(BATTLE, start):
        analysis = BATTLE.analyse(pos)
        assert (analysis.winner, analysis.plies) == brute_force(BATTLE, pos, memo)
        assert analysis == BATTLE.search_analysis(pos)


@settings(max_examples=40, deadline=None)
@given(
    condition=st.sampled_from(["divisible", "ones", "equals"]),
    target=st.integers(2, 1000),
    length=st.integers(12, 64),
    seed=st.integers(0, 10**6),
)
def test_bitwise_battle_closed_rule_equals_the_search_at_large_sizes(
    condition, target, length, seed
):
    if condition == "ones":
        target = min(target, length)
    try:
        start = BATTLE.start(condition=condition, target=target, max_length=length)
    except ValueError:
        return
    pos = playout(BATTLE, {"condition": condition, "target": target, "max_length": length},
                  random.Random(seed).randrange(length), random.Random(seed))  # fmt: skip
    for here in (start, pos):
        assert BATTLE.analyse(here) == BATTLE.search_analysis(here)


def test_bitwise_battle_the_length_cap_decides_unless_the_first_bit_wins():
    for length in range(1, 65):
        for options in (
            {"condition": "divisible", "target": 997},
            {"condition": "ones", "target": 2},
        ):
            if options["condition"] == "ones" and length < 2:
                continue
            analysis = BATTLE.analyse(BATTLE.start(max_length=length, **options))
            assert (analysis.winner, analysis.plies) == (1 if length % 2 == 0 else 2, length)
        analysis = BATTLE.analyse(BATTLE.start(condition="equals", target=1, max_length=length))
        assert (analysis.winner, analysis.plies, analysis.best_moves) == (1, 1, ("1",))


# ---- Last Bit Standing: residues, against a depth-bounded search ---------------------


def forced_win(pos, depth: int, memo: dict) -> bool:
    """Can the player to move force the opponent to make a multiple of 3 within
    ``depth`` plies? From the verbs alone (the game never ends by itself, so the search
    is bounded by depth)."""
    if depth <= 0 or pos.over:
        return False
    key = (pos.rem, pos.to_move, depth)
    if key in memo:
        return memo[key]
    found = False
    for move in LAST_BIT.legal_moves(pos):
        child = LAST_BIT.play(pos, move)
        if child.result is not None:
            if child.result.winner == pos.to_move:
                found = True
            continue
        if all(
            (grand.result is not None and grand.result.winner == pos.to_move)
            or forced_win(grand, depth - 2, memo)
            for grand in (LAST_BIT.play(child, reply) for reply in LAST_BIT.legal_moves(child))
        ):
            found = True
        if found:
            break
    memo[key] = found
    return found


def test_last_bit_standing_residues_equal_a_bounded_search_at_every_reachable_length():
    memo: dict = {}
    frontier = [LAST_BIT.start()]
    for _ in range(14):  # every reachable number of up to 15 bits
        grown = []
        for pos in frontier:
            analysis = LAST_BIT.analyse(pos)
            assert analysis.winner is None and analysis.plies is None
            assert not forced_win(pos, 20, memo)
            for item in analysis.moves:
                child = LAST_BIT.play(pos, item.move)
                loses = child.result is not None and child.result.winner == other(pos.to_move)
                assert loses == (item.verdict is Verdict.LOSES_AT_ONCE)
                assert loses == (int(child.binary, 2) % 3 == 0)
                assert (item.winner, item.plies) == (
                    (other(pos.to_move), 1) if loses else (None, None)
                )
                if not loses:
                    grown.append(child)
            assert set(analysis.best_moves) == {
                item.move for item in analysis.moves if item.verdict is Verdict.SAFE
            }
        frontier = grown
    assert len(frontier) == 610  # Fibonacci: a 1 mod 3 has one safe bit, a 2 two


def test_a_position_beyond_the_search_with_a_win_at_once_is_won_in_one_move():
    """The theory's analysis kept the number of moves of the last move it listed, not of
    the best: a win at once read as "beyond exact analysis" unless it was listed last."""
    game = get_game("last-digit-standing")
    pos = game.start(highest=20)
    for move in ("10", "1"):
        pos = game.play(pos, move)
    assert not game.searchable(pos)
    analysis = game.analyse(pos)
    at_once = [m.move for m in analysis.moves if m.plies == 1 and m.winner == pos.to_move]
    assert at_once and analysis.moves[-1].move not in at_once
    assert analysis.plies == 1 and analysis.best_moves == tuple(at_once)


@pytest.mark.parametrize(
    ("slug", "options", "sizes"),
    [
        ("bit-flip", {"width": 30}, range(19, 26)),
        ("last-digit-standing", {"highest": 16}, range(9, 14)),
    ],
)
def test_a_move_into_a_position_within_the_search_has_the_length_that_position_has(
    slug, options, sizes
):
    """Beyond the search, each move's number of moves is still known where the position it
    makes is searchable: the same as that position's own analysis (plus the move), so a
    row of the analysis board and the board after the move say the same. And the cheap
    bound (``search_reaches_next``) never hides such a move."""
    game = get_game(slug)
    rng = random.Random(7)
    size = (lambda p: p.bits.count("0")) if slug == "bit-flip" else (lambda p: len(p.remaining))
    seen = set()
    for _ in range(400):
        pos, target = game.start(**options), rng.choice(sizes)
        while pos.result is None and size(pos) > target:
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))
        if pos.result is not None or size(pos) not in sizes or game.searchable(pos):
            continue
        seen.add(size(pos))
        analysis = game.analyse(pos)
        near = game.search_reaches_next(pos)
        for verdict in analysis.moves:
            child = game.play(pos, verdict.move)
            if child.result is not None:
                assert verdict.plies == 1
            elif game.searchable(child):
                assert near
                assert verdict.plies == game.analyse(child).plies + 1
                assert verdict.winner == game.analyse(child).winner
            else:
                assert verdict.plies is None
    assert len(seen) >= 3, seen
