"""Each game's presentation in one place: the five presenters, and a toy game that
renders everywhere (match page, replay, admin, export, terminal) from its presenter
alone, registered only inside the test."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from games.models import Match
from games.presenters import Fact, Presenter, presenter_for, registered
from games.rules import GAMES, Ending, Game, MalformedMove, Option, Outcome, Position, get_game
from games.rules import registered as game_registered
from tests.factories import client_with_token, make_match
from tests.replays import logged_in, played, staff_user

pytestmark = pytest.mark.django_db


# ---- the five presenters -----------------------------------------------------------


def test_every_game_has_a_presenter_and_its_template():
    for game in GAMES:
        presenter = presenter_for(game)
        assert presenter.game is game and presenter.slug == game.slug
        assert Path("templates", presenter.template).exists()


@pytest.mark.parametrize(
    ("slug", "moves", "said"),
    [
        ("last-bit-standing", ["0", "1", "1"], "appended 1: 1011 = 11"),
        ("bitwise-battle", ["1", "0", "1"], "added 1: 101 = 5"),
        ("bit-flip", ["3", "4 5"], "flipped bits 4 and 5"),
        ("bit-flip", ["3"], "flipped bit 3"),
        ("bit-flip-divisor", ["8", "7"], "flipped bit 7: 00000011 = 3"),
        ("bit-flip-divisor", ["8", "8"], "named bit 8, which cannot be flipped, and lost"),
        ("last-digit-standing", ["3", "6"], "removed 6"),
    ],
)
def test_a_move_in_words(slug, moves, said):
    game = get_game(slug)
    pos = game.start()
    for move in moves:
        pos = game.play(pos, move)
    assert presenter_for(game).describe(moves[-1], pos) == said


def test_the_cells_a_move_touched():
    assert presenter_for(get_game("bit-flip")).touched("4 5") == {"4", "5"}
    assert presenter_for(get_game("last-digit-standing")).touched("6") == {"6"}
    battle = get_game("bitwise-battle")
    assert presenter_for(battle).touched("1", battle.play(battle.start(), "1")) == {"1"}
    divisor = get_game("bit-flip-divisor")
    forfeit = divisor.play(divisor.play(divisor.start(), "8"), "8")
    assert presenter_for(divisor).touched("8", forfeit) == frozenset()


def test_hints_are_sorted_and_unambiguous():
    flip = presenter_for(get_game("bit-flip"))
    assert flip.hint_text({"4 5", "10", "4"}) == (
        "Winning moves: flip bit 4; flip bits 4 and 5; flip bit 10."
    )
    assert presenter_for(get_game("last-bit-standing")).hint_text({"1"}, safe=True) == (
        "Safe move: append 1."
    )


def test_keys():
    assert presenter_for(get_game("last-bit-standing")).key_for("1") == "1"
    digits = presenter_for(get_game("last-digit-standing"))
    assert digits.key_for("12") == "12"
    assert "both digits" in digits.keys(get_game("last-digit-standing").start(highest=12))[0][1]
    flips = presenter_for(get_game("bit-flip"))  # issue 22: number keys, "p" for a pair
    assert [flips.key_for(m) for m in ("3", "10", "11", "3 4", "10 11")] == [
        "3",
        "0",
        "11",
        "p3",
        "p0",
    ]
    assert "0 is bit 10" in flips.keys(get_game("bit-flip").start(width=12))[0][1]


# ---- a toy game, registered only here ------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PilePosition(Position):
    pile: int = 5


class Pile(Game):
    """Take 1 or 2 counters from a pile; whoever takes the last one wins."""

    slug = "toy-pile"
    title = "Toy Pile"
    summary = "Take one or two counters; the last counter wins."
    options = (Option("pile", "Pile", 5, minimum=1, maximum=20),)
    position_class = PilePosition
    move_hint = "Enter 1 or 2."

    def initial(self, *, pile):
        return PilePosition(pile=pile)

    def notation(self, pos):
        return f"{pos.pile} left"

    def moves(self, pos):
        return [n for n in ("1", "2") if int(n) <= pos.pile]

    def apply(self, pos, text):
        if text not in self.moves(pos):
            raise MalformedMove(self.move_hint)
        new = replace(pos, ply=pos.ply + 1, pile=pos.pile - int(text))
        if new.pile == 0:
            new = replace(new, result=Outcome(pos.to_move, Ending.BYTE_FILLED, text))
        return new

    def describe_ending(self, pos, result):
        return f"Player {result.winner} took the last counter."

    def key(self, pos):
        return pos.pile

    def successors(self, key):
        for take in (1, 2):
            if take < key:
                yield None, key - take
            elif take == key:
                yield True, None


class PilePresenter(Presenter):
    slug = "toy-pile"
    verb = "Take"
    verb_past = "took"
    template = "toy/pile.html"

    def board(self, pos, legal=(), hinted=(), touched=()):
        drawn = super().board(pos, legal, hinted, ())
        drawn["counters"] = [{"last": False} for _ in range(pos.pile)]
        return drawn

    def facts(self, pos):
        return [Fact("Counters left", str(pos.pile), "toy-left")]

    def describe(self, move, after=None):
        said = f"took {move}"
        return said if after is None else f"{said}, leaving {after.pile}"

    def key_for(self, move):
        return move

    def keys(self, pos):
        return [("1", "take one"), ("2", "take two")]


@pytest.fixture
def toy(settings):
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], "tests/templates"]}
    ]
    game = Pile()
    # The table's check lists the five games. SQLite can ignore checks for a while; on
    # PostgreSQL the check is dropped inside the test's transaction, whose rollback (DDL
    # is transactional there) brings it back.
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA ignore_check_constraints = ON")
    else:
        known = next(c for c in Match._meta.constraints if c.name == "known_game")
        with connection.schema_editor() as editor:
            editor.remove_constraint(Match, known)
    try:
        with game_registered(game), registered(PilePresenter):
            yield game
    finally:
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA ignore_check_constraints = OFF")


def test_a_toy_game_renders_everywhere_from_its_presenter(toy):
    match = played("toy-pile", ["2", "1"], options={"pile": 4}, name="Ann", opponent="Bob")
    assert match.ply == 2 and match.status == "playing"

    # The match page: the board, the move list in words, the last move.
    html = Client().get(match.get_absolute_url()).content.decode()
    assert 'id="toy-pile"' in html and 'id="toy-left">1</dd>' in html
    assert 'data-last-move="Player 2 (Bob) took 1, leaving 1"' in html
    assert "Player 1 (Ann) took 2, leaving 2</li>" in html
    assert "Last move: Player 2 (Bob) took 1, leaving 1." in html

    # The player to move sees the buttons with their keys, and the keys help.
    mover, token1, _ = make_match("toy-pile", options={"pile": 4})
    page = client_with_token(token1).get(mover.get_absolute_url()).content.decode()
    assert 'data-key="1" aria-label="Take 1"' in page and 'data-key="2"' in page
    assert "<dt>1</dt><dd>take one</dd>" in page

    # Finish it, then the replay, the admin, the export and the terminal.
    done = played("toy-pile", ["2", "1", "1"], options={"pile": 4})
    assert done.status == "finished" and done.winner == 1
    replay = Client().get(f"/m/{done.public_id}/replay/?ply=3").content.decode()
    assert 'id="toy-pile"' in replay and "took 1, leaving 0" in replay
    admin = logged_in(staff_user()).get(f"/admin/games/match/{done.pk}/change/").content.decode()
    assert "took 2, leaving 2" in admin and "0 left" in admin
    exported = json.loads(Client().get(f"/m/{done.public_id}/export.json").content)
    assert [m["words"] for m in exported["moves"]] == [
        "took 2, leaving 2",
        "took 1, leaving 1",
        "took 1, leaving 0",
    ]
    out = io.StringIO()
    call_command("export_matches", "--game", "toy-pile", stdout=out)
    assert [m["public_id"] for m in json.loads(out.getvalue())] == [
        match.public_id,
        mover.public_id,
        done.public_id,
    ]
    out = io.StringIO()
    call_command("play", "toy-pile", "--option", "pile=3", stdin=io.StringIO("2\n1\n"), stdout=out)
    text = out.getvalue()
    assert "Welcome to Toy Pile!" in text
    assert "Player 1 took 2, leaving 1." in text
    assert "Player 2 took the last counter." in text and "Player 2 wins!" in text
