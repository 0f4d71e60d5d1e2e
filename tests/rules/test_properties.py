"""Random playouts (Hypothesis) of every game over a range of options.

Every step checks: turns alternate; ``legal_moves`` is exactly what ``play``
accepts (for Bit Flip: Divisor, any other text either raises or ends the game
with the mover losing); the JSON round trip is exact. At the end: a finished
game refuses every move, and games with a length bound end within it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import GameOver, IllegalMove, get_game
from tests.rules.helpers import other, round_trip

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def battle_options():
    @st.composite
    def build(draw):
        max_length = draw(st.integers(1, 10))
        condition = draw(st.sampled_from(["divisible", "ones", "equals"]))
        if condition == "divisible":
            target = draw(st.integers(2, 12))
        elif condition == "ones":
            target = draw(st.integers(1, max_length))
        else:
            target = draw(st.integers(1, 2**max_length - 1))
        return {"condition": condition, "target": target, "max_length": max_length}

    return build()


OPTIONS = {
    "last-bit-standing": st.just({}),
    "bitwise-battle": battle_options(),
    "bit-flip": st.builds(dict, width=st.integers(1, 10)),
    "bit-flip-divisor": st.builds(dict, divisor=st.integers(2, 255)),
    "last-digit-standing": st.builds(dict, highest=st.integers(2, 11)),
}

# How many plies a game can last at most (None: no bound, Last Bit Standing).
LENGTH_BOUND = {
    "last-bit-standing": lambda pos: None,
    "bitwise-battle": lambda pos: pos.max_length,
    "bit-flip": lambda pos: pos.width,
    "bit-flip-divisor": lambda pos: 8,
    "last-digit-standing": lambda pos: pos.highest,
}


def candidate_texts(slug: str, pos) -> list[str]:
    """Texts to try in a position: every plausible move, and some that are not."""
    junk = ["", " ", "x", "resign", "1.5", "٣", "1" * 40]
    if slug in ("last-bit-standing", "bitwise-battle"):
        return [*junk, "0", "1", " 1 ", "2", "-1", "01", "10", "0 1"]
    if slug == "bit-flip":
        width = pos.width
        texts = [str(i) for i in range(width + 2)]
        texts += [f"{i} {j}" for i in range(width + 2) for j in range(width + 2)]
        texts += ["1 2 3", "1,2", " 2  1 "]
        return junk + texts
    if slug == "bit-flip-divisor":
        return [*junk, *(str(i) for i in range(-1, 11)), "+3", "03", "1 2"]
    return [*junk, *(str(i) for i in range(-1, pos.highest + 3)), "+2", "1 2"]


def check_step(game, pos) -> None:
    """One position of a playout: the legal moves are exactly the accepted texts."""
    legal = game.legal_moves(pos)
    assert legal
    assert len(set(legal)) == len(legal)
    mover = pos.to_move
    for text in candidate_texts(game.slug, pos) + legal:
        after, error = None, None
        try:
            after = game.play(pos, text)
        except IllegalMove as exc:
            error = exc
        accepted = error is None
        if accepted:
            assert after.ply == pos.ply + 1
            assert after.to_move == other(mover)
        else:
            assert not isinstance(error, GameOver)
            assert str(error)  # a message a player can read
        canonical = game.canonical(pos, text)
        if canonical in legal:
            assert accepted, text
            if after.result is not None:
                assert game.describe_outcome(after)  # the ending, in words
        elif game.slug == "bit-flip-divisor":
            # Outside legal_moves: refused, or a forfeit that ends the game for the mover.
            if accepted:
                assert after.result is not None
                assert after.result.winner == other(mover)
                assert after.bits == pos.bits
        else:
            assert not accepted, text
    assert pos == round_trip(game, pos)
    assert game.to_json(round_trip(game, pos)) == game.to_json(pos)


def check_finished(game, pos) -> None:
    assert game.outcome(pos) is not None
    assert pos.result.winner in (1, 2)
    assert game.legal_moves(pos) == []
    for text in candidate_texts(game.slug, pos):
        with pytest.raises(GameOver, match="The game is over"):
            game.play(pos, text)
    for player in (1, 2):
        with pytest.raises(GameOver):
            game.resign(pos, player)
    assert pos == round_trip(game, pos)


def playout(slug: str, data, resign_chance: bool) -> None:
    game = get_game(slug)
    options = data.draw(OPTIONS[slug], label="options")
    pos = game.start(**options)
    bound = LENGTH_BOUND[slug](pos)
    plies = 0
    while pos.result is None and plies < 300:
        check_step(game, pos)
        if resign_chance and data.draw(st.integers(0, 9), label="resign?") == 0:
            player = data.draw(st.sampled_from([1, 2]), label="resigner")
            pos = game.resign(pos, player)
            assert pos.result.winner == other(player)
            break
        move = data.draw(st.sampled_from(game.legal_moves(pos)), label="move")
        before = pos.to_move
        pos = game.play(pos, move)
        plies += 1
        assert pos.to_move == other(before)
        if bound is not None:
            assert pos.ply <= bound
    if slug != "last-bit-standing":
        assert pos.result is not None  # every bounded game ends
    if pos.result is not None:
        check_finished(game, pos)


@SETTINGS
@given(data=st.data(), resign_chance=st.booleans())
def test_last_bit_standing_playouts(data, resign_chance):
    playout("last-bit-standing", data, resign_chance)


@SETTINGS
@given(data=st.data(), resign_chance=st.booleans())
def test_bitwise_battle_playouts(data, resign_chance):
    playout("bitwise-battle", data, resign_chance)


@SETTINGS
@given(data=st.data(), resign_chance=st.booleans())
def test_bit_flip_playouts(data, resign_chance):
    playout("bit-flip", data, resign_chance)


@SETTINGS
@given(data=st.data(), resign_chance=st.booleans())
def test_bit_flip_divisor_playouts(data, resign_chance):
    playout("bit-flip-divisor", data, resign_chance)


@SETTINGS
@given(data=st.data(), resign_chance=st.booleans())
def test_last_digit_standing_playouts(data, resign_chance):
    playout("last-digit-standing", data, resign_chance)
