"""The analysis board's strip drawn from the winners alone (Game.decisive) equals the
strip drawn from every move's verdict, on random lines at sizes the search reaches and
beyond it (learn/solutions.solve_line)."""

import random

import pytest

from games.rules import get_game
from learn.solutions import solve_line, strip_from_verdicts


def random_line(game, options, rng, longest):
    pos, moves = game.start(**options), []
    while pos.result is None and len(moves) < longest:
        moves.append(rng.choice(game.legal_moves(pos)))
        pos = game.play(pos, moves[-1])
    return moves


@pytest.mark.parametrize("width", [1, 2, 7, 12, 21, 40, 300, 1000])
def test_bit_flip_strip_from_winners_equals_the_verdicts(width):
    game = get_game("bit-flip")
    assert game.decisive
    rng = random.Random(f"strip-{width}")
    options = {"width": width}
    blunders = 0
    for _ in range(4):
        moves = random_line(game, options, rng, longest=min(width, 80))
        strip = solve_line(game, options, moves)
        assert strip == strip_from_verdicts(game, options, moves)
        blunders += sum(blunder for _, blunder in strip)
    if width >= 12:
        assert blunders  # random play blunders: the comparison saw both kinds of cell


def test_bit_flip_winner_is_the_analysis_winner_on_random_positions():
    game = get_game("bit-flip")
    rng = random.Random("winners")
    for width in (5, 19, 25, 64, 333):
        for moves in (
            random_line(game, {"width": width}, rng, rng.randrange(width)) for _ in range(5)
        ):
            pos = game.start(width=width)
            for move in moves:
                pos = game.play(pos, move)
            assert game.winner(pos) == game.analyse(pos).winner


def test_a_game_with_positions_nobody_wins_keeps_the_verdicts():
    game = get_game("last-bit-standing")
    assert not game.decisive
    moves = random_line(game, {}, random.Random("lbs"), longest=12)
    assert solve_line(game, {}, moves) == strip_from_verdicts(game, {}, moves)
