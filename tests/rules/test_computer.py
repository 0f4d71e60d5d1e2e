"""The computer player's four levels, over many seeded games against ``random``."""

from __future__ import annotations

import random

import pytest

from games.rules import GAMES, get_game
from games.rules.computer import LEVEL_LABELS, LEVELS, choose_move, split_immediate

# Small options, so that many games run quickly; each game's start is not always
# a first-player win, so both seats see won and lost positions.
SMALL = {
    "last-bit-standing": {},
    "bitwise-battle": {"condition": "divisible", "target": 5, "max_length": 9},
    "bit-flip": {"width": 8},
    "bit-flip-divisor": {"divisor": 7},
    "last-digit-standing": {"highest": 9},
}
GAMES_PER_CASE = 40
PLY_CAP = 5000  # Last Bit Standing never ends by itself; against random it soon does


def play_game(game, options, level, computer_seat, seed, check=None):
    """A whole game, ``level`` in ``computer_seat`` against ``random``; the moves and the end."""
    rng_computer = random.Random(seed)
    rng_random = random.Random(seed + 1)
    pos = game.start(**options)
    moves = []
    while pos.result is None and len(moves) < PLY_CAP:
        mine = pos.to_move == computer_seat
        move = choose_move(
            game, pos, level if mine else "random", rng_computer if mine else rng_random
        )
        assert move in game.legal_moves(pos)
        after = game.play(pos, move)
        if mine and check is not None:
            check(game, pos, move, after)
        moves.append(move)
        pos = after
    return moves, pos


def winner_after(game, pos):
    """Who wins ``pos`` with perfect play (the actual winner once it is over)."""
    if pos.result is not None:
        return pos.result.winner
    return game.analyse(pos).winner


def keeps_won_positions(game, pos, move, after):
    analysis = game.analyse(pos)
    if analysis.winner == pos.to_move:
        assert winner_after(game, after) == pos.to_move, (game.to_json(pos), move)


def perfect_check(game, pos, move, after):
    analysis = game.analyse(pos)
    assert move in analysis.best_moves
    keeps_won_positions(game, pos, move, after)
    if analysis.winner is not None:
        # It hurries when winning and delays when losing: the game lasts as predicted.
        remaining = 0 if after.result is not None else game.analyse(after).plies
        assert remaining + 1 == analysis.plies


def casual_check(game, pos, move, after):
    wins, safe = split_immediate(game, pos, game.legal_moves(pos))
    if wins:
        assert move in wins
    elif safe:
        assert move in safe


def strong_check(game, pos, move, after):
    keeps_won_positions(game, pos, move, after)
    casual_check(game, pos, move, after)


CHECKS = {
    "random": None,
    "casual": casual_check,
    "strong": strong_check,
    "perfect": perfect_check,
}


def test_levels():
    assert LEVELS == ("random", "casual", "strong", "perfect")
    assert set(LEVEL_LABELS) == set(LEVELS)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_level_against_random(game, level):
    options = SMALL[game.slug]
    start = game.analyse(game.start(**options))
    computer_won = []
    for seed in range(GAMES_PER_CASE):
        seat = 1 + seed % 2
        moves, end = play_game(game, options, level, seat, seed, CHECKS[level])
        assert end.result is not None, (level, seed, len(moves))
        computer_won.append(end.result.winner == seat)
        if level in ("strong", "perfect") and start.winner == seat:
            # A start won for the computer's seat is a game won.
            assert end.result.winner == seat, seed
        if game.slug == "last-bit-standing" and level != "random":
            # Every level but random avoids multiples of 3: only random can lose.
            assert end.result.winner == seat, seed
    if level == "random":
        # A fair coin, not a rigged one: it wins some games and loses others.
        assert True in computer_won
        assert False in computer_won


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_deterministic_under_a_seed(game, level):
    options = SMALL[game.slug]
    for seed in (0, 1, 99):
        first = play_game(game, options, level, 1, seed)
        again = play_game(game, options, level, 1, seed)
        assert first == again


def test_random_level_varies_with_the_seed():
    game = get_game("bit-flip")
    first_moves = {
        choose_move(game, game.start(), "random", random.Random(seed)) for seed in range(40)
    }
    assert len(first_moves) >= 8
    assert first_moves <= set(game.legal_moves(game.start()))


def test_perfect_wins_every_won_start_against_random():
    cases = [
        ("bit-flip", {"width": 8}, 1),  # Kayles row 8: Grundy 1, first player wins
        ("bit-flip", {"width": 12}, 1),
        ("last-digit-standing", {"highest": 9}, 1),
        ("bit-flip-divisor", {"divisor": 7}, 2),
        ("bitwise-battle", {"condition": "divisible", "target": 3}, 1),
    ]
    for slug, options, seat in cases:
        game = get_game(slug)
        assert game.analyse(game.start(**options)).winner == seat
        for seed in range(10):
            _, end = play_game(game, options, "perfect", seat, seed, perfect_check)
            assert end.result.winner == seat, (slug, seed)


def test_perfect_against_perfect_ends_as_the_analysis_says():
    for game in GAMES:
        if game.slug == "last-bit-standing":
            continue
        options = SMALL[game.slug]
        start = game.analyse(game.start(**options))
        pos = game.start(**options)
        rng = random.Random(4)
        while pos.result is None:
            pos = game.play(pos, choose_move(game, pos, "perfect", rng))
        assert pos.result.winner == start.winner
        assert pos.ply == start.plies


def test_casual_takes_an_instant_win_and_avoids_an_instant_loss():
    battle = get_game("bitwise-battle")
    pos = battle.start(condition="divisible", target=5)
    pos = battle.play(battle.play(pos, "1"), "0")  # 10: appending 1 makes 5
    for seed in range(10):
        assert choose_move(battle, pos, "casual", random.Random(seed)) == "1"
    lbs = get_game("last-bit-standing")
    for seed in range(10):
        assert choose_move(lbs, lbs.start(), "casual", random.Random(seed)) == "0"


def test_unknown_level_and_finished_game():
    game = get_game("bit-flip")
    with pytest.raises(ValueError) as caught:
        choose_move(game, game.start(), "genius", random.Random(0))
    assert "random, casual, strong, perfect" in str(caught.value)
    end = game.play(game.start(width=1), "1")
    with pytest.raises(ValueError):
        choose_move(game, end, "perfect", random.Random(0))
