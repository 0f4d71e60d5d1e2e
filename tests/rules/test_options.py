"""Every option bound of every game: the limits, one past each, wrong types, unknown names."""

from __future__ import annotations

import pytest

from games.rules import GAMES, get_game

# (slug, option, minimum, maximum): the bounds the site promises. The largest
# ones are set by the analysis budget (see python -m benchmarks.analysis).
BOUNDS = [
    ("bit-flip", "width", 1, 1000),
    ("bit-flip-divisor", "divisor", 2, 255),
    ("last-digit-standing", "highest", 2, 100),
    ("bitwise-battle", "max_length", 1, 64),
]


def test_every_numeric_option_is_listed():
    listed = {(slug, name) for slug, name, _, _ in BOUNDS}
    numeric = {
        (game.slug, opt.name)
        for game in GAMES
        for opt in game.options
        if not opt.is_choice and opt.name != "target"
    }
    assert numeric == listed


@pytest.mark.parametrize(("slug", "name", "minimum", "maximum"), BOUNDS)
def test_bounds(slug, name, minimum, maximum):
    game = get_game(slug)
    opt = game.option(name)
    assert (opt.minimum, opt.maximum) == (minimum, maximum)
    assert getattr(game.start(**{name: minimum}), name) == minimum
    assert getattr(game.start(**{name: maximum}), name) == maximum
    assert getattr(game.start(**{name: str(maximum)}), name) == maximum  # form text
    for bad in (minimum - 1, maximum + 1, -(10**20), 10**20):
        with pytest.raises(ValueError) as caught:
            game.start(**{name: bad})
        assert f"from {minimum} to {maximum}" in str(caught.value)
        assert opt.label in str(caught.value)


@pytest.mark.parametrize(("slug", "name", "minimum", "maximum"), BOUNDS)
@pytest.mark.parametrize("bad", ["abc", "", "3.5", 3.5, None, True, [3], "1e3", "٣x"])
def test_wrong_types(slug, name, minimum, maximum, bad):
    game = get_game(slug)
    with pytest.raises(ValueError) as caught:
        game.start(**{name: bad})
    assert f"a whole number from {minimum} to {maximum}" in str(caught.value)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_unknown_option_names(game):
    with pytest.raises(ValueError) as caught:
        game.start(colour="blue")
    message = str(caught.value)
    assert "'colour'" in message
    assert game.title in message
    for opt in game.options:
        assert opt.name in message
    if not game.options:
        assert "none" in message


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_defaults(game):
    pos = game.start()
    for opt in game.options:
        assert getattr(pos, opt.name) == opt.default
    assert game.start(**{opt.name: opt.default for opt in game.options}) == pos


def test_defaults_follow_the_books():
    assert get_game("bit-flip").start().width == 8
    assert get_game("bit-flip-divisor").start().divisor == 7
    assert get_game("last-digit-standing").start().highest == 9
    battle = get_game("bitwise-battle").start()
    assert (battle.condition, battle.target, battle.max_length) == ("divisible", 3, 20)


BATTLE = get_game("bitwise-battle")


def test_battle_condition_choices():
    for condition in ("divisible", "ones", "equals"):
        assert BATTLE.start(condition=condition).condition == condition
    for bad in ("prime", "", None, 3, "Divisible"):
        with pytest.raises(ValueError) as caught:
            BATTLE.start(condition=bad)
        assert 'one of "divisible", "ones", "equals"' in str(caught.value)


@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ({"condition": "divisible", "target": 1}, "k must be from 2 to 1000"),
        ({"condition": "divisible", "target": 1001}, "k must be from 2 to 1000"),
        ({"condition": "ones", "target": 21}, "from 1 to the maximum length (20)"),
        ({"condition": "ones", "target": 9, "max_length": 8}, "from 1 to the maximum length (8)"),
        ({"condition": "equals", "target": 2**20}, f"from 1 to {2**20 - 1}"),
        ({"condition": "equals", "target": 16, "max_length": 4}, "from 1 to 15"),
        ({"condition": "equals", "target": 0}, f"from 1 to {2**64 - 1}"),
        ({"condition": "ones", "target": 0}, f"from 1 to {2**64 - 1}"),
        ({"condition": "equals", "target": 2**64}, f"from 1 to {2**64 - 1}"),
    ],
)
def test_battle_cross_checks(options, allowed):
    with pytest.raises(ValueError) as caught:
        BATTLE.start(**options)
    assert allowed in str(caught.value)


@pytest.mark.parametrize(
    "options",
    [
        {"condition": "divisible", "target": 2},
        {"condition": "divisible", "target": 1000, "max_length": 64},
        {"condition": "ones", "target": 1},
        {"condition": "ones", "target": 20},
        {"condition": "ones", "target": 64, "max_length": 64},
        {"condition": "ones", "target": 1, "max_length": 1},
        {"condition": "equals", "target": 1, "max_length": 1},
        {"condition": "equals", "target": 2**20 - 1},
        {"condition": "equals", "target": 2**64 - 1, "max_length": 64},
        {"condition": "equals", "target": str(2**64 - 1), "max_length": "64"},
    ],
)
def test_battle_extremes_that_are_allowed(options):
    pos = BATTLE.start(**options)
    assert pos.condition == options["condition"]
    assert pos.target == int(options["target"])
    assert BATTLE.legal_moves(pos) == ["0", "1"]


def test_describe_options():
    assert BATTLE.describe_options(BATTLE.clean_options({})) == (
        "Binary number divisible by 3; at most 20 bits"
    )
    assert get_game("bit-flip").describe_options({"width": 8}) == "width 8"


@pytest.mark.parametrize("bad", ["x", 2.0, None, "", True])
def test_battle_target_wrong_types(bad):
    with pytest.raises(ValueError) as caught:
        BATTLE.start(target=bad)
    assert f"a whole number from 1 to {2**64 - 1}" in str(caught.value)
