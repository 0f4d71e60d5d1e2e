"""The public contract of games.rules, and its purity: no Django, no Channels."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import games.rules
from games.rules import (
    GAMES,
    Analysis,
    Ending,
    GameOver,
    IllegalMove,
    MalformedMove,
    Outcome,
    get_game,
)

RULES_DIR = Path(games.rules.__file__).parent
ROOT = RULES_DIR.parent.parent


def test_the_five_games_in_the_books_order():
    assert [game.slug for game in GAMES] == [
        "last-bit-standing",
        "bitwise-battle",
        "bit-flip",
        "bit-flip-divisor",
        "last-digit-standing",
    ]
    titles = [game.title for game in GAMES]
    assert len(set(titles)) == 5  # the two "Bit Flip" books are two distinct games
    assert titles[2] == "Bit Flip"
    assert titles[3] == "Bit Flip: Divisor"
    for game in GAMES:
        assert get_game(game.slug) is game
        assert game.summary.endswith(".")


def test_get_game_names_the_known_slugs():
    with pytest.raises(KeyError) as caught:
        get_game("chess")
    assert "chess" in str(caught.value)
    assert "bit-flip-divisor" in str(caught.value)


def test_error_hierarchy():
    assert issubclass(MalformedMove, IllegalMove)
    assert issubclass(GameOver, IllegalMove)
    assert issubclass(IllegalMove, ValueError)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.slug)
def test_the_verbs(game):
    pos = game.start()
    assert pos.to_move == 1
    assert pos.ply == 0
    assert game.outcome(pos) is None
    moves = game.legal_moves(pos)
    assert moves
    after = game.play(pos, moves[0])
    assert after.ply == 1
    assert after.to_move == 2
    assert pos.ply == 0  # positions are immutable: the old one is unchanged
    with pytest.raises(AttributeError):
        pos.ply = 5
    analysis = game.analyse(pos)
    assert isinstance(analysis, Analysis)
    assert set(analysis.best_moves) <= set(moves)
    assert [item.move for item in analysis.moves] == moves
    resigned = game.resign(pos, 1)
    assert game.outcome(resigned) == Outcome(2, Ending.RESIGNED)
    assert game.describe_outcome(resigned) == "Player 1 resigned."
    assert game.legal_moves(resigned) == []


def test_importing_the_rules_imports_neither_django_nor_channels():
    code = (
        "import sys, games.rules, games.rules.computer; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'channels')); "
        "print(bad); assert not bad, bad"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]"


def test_no_rules_source_mentions_django_or_channels_imports():
    sources = sorted(RULES_DIR.glob("*.py"))
    assert len(sources) >= 8
    pattern = re.compile(r"^\s*(from|import)\s+(django|channels)\b", re.MULTILINE)
    for path in sources:
        assert not pattern.search(path.read_text()), path


def test_notation_prints_each_position_as_its_book_does():
    from games.rules import get_game

    def after(slug, *moves, **options):
        game = get_game(slug)
        pos = game.start(**options)
        for move in moves:
            pos = game.play(pos, move)
        return game.notation(pos)

    assert after("last-bit-standing", "0", "1") == "101 (decimal 5)"
    assert after("bitwise-battle") == "(empty)"
    assert after("bitwise-battle", "1", "0", "1") == "101 (decimal 5)"
    assert after("bit-flip", "3", "5 6") == "00101100"
    assert after("bit-flip-divisor", "8", "7") == "00000011 (decimal 3)"
    assert after("last-digit-standing", "3", "6") == "remaining: 1 2 4 5 7 8 9"
