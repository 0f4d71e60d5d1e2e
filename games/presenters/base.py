"""What every presenter knows: how a game is drawn and told, apart from its rules.

A presenter turns the rules' plain values into what people read: the board's cells
for its template, a move in words, the cells a move touched, the keys a board takes,
the facts beside it, and the terminal client's texts. One presenter per game
(``games/presenters/<game>.py``), registered by slug; nothing else in the site
chooses by slug.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from games.rules.base import Game, Position


@dataclass(frozen=True)
class Fact:
    """One line of the facts beside a board: a term, its value, and the element's id."""

    label: str
    value: str
    id: str = ""


def numbers_sorted(moves: Iterable[str]) -> list[str]:
    """Moves in numeric order ("4 5" after "4", "10" after "9"); text that is not
    numbers keeps its place after them."""

    def key(move: str):
        parts = move.split()
        if parts and all(part.isdecimal() for part in parts):
            return (0, [int(part) for part in parts], "")
        return (1, [], move)

    return sorted(moves, key=key)


def bit_tiles(bits: str) -> list[dict]:
    """Tiles of the small picture for a string of bits."""
    return [{"text": bit, "one": bit == "1", "gone": False} for bit in bits]


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


class Display:
    """The terminal client's texts for one game (``manage.py play``).

    This base says everything in the presenter's words, so a new game plays in the
    terminal as it is; the five games override it with their rule books' samples.
    """

    # A line printed before reading a move (None: none), then the prompt on the
    # input line itself.
    prompt_line: str | None = None
    input_prompt: str = "> "

    def __init__(self, presenter: Presenter) -> None:
        self.presenter = presenter
        self.game = presenter.game

    def welcome(self, pos: Position) -> list[str]:
        return [f"Welcome to {self.game.title}!", ""]

    def turn(self, pos: Position) -> list[str]:
        """Lines that open a turn, before the prompt."""
        return [f"Player {pos.to_move}'s turn.", self.presenter.position_text(pos)]

    def moved(self, before: Position, move: str, after: Position, who: str) -> list[str]:
        """Lines after a move was played (including how it ended the game, if it did)."""
        lines = [f"Player {before.to_move} {self.presenter.describe(move, after)}."]
        if after.result is not None:
            lines.append(self.game.describe_outcome(after))
        return [*lines, ""]

    def winner(self, pos: Position) -> list[str]:
        """The closing line naming the winner."""
        return [f"Player {pos.result.winner} wins!"]

    def finished(self, pos: Position, how: str) -> list[str]:
        """Lines once the game is over; ``how`` is "move", "resign" or "forfeit"."""
        return self.winner(pos)


class Presenter:
    """How one game is drawn and described. Subclasses set ``slug`` and fill in the
    game's own parts; the defaults suit a game whose moves are numbers or words."""

    slug: ClassVar[str]
    # The verb of a move, as a button says it ("Append") and as the move list says
    # it ("appended").
    verb: ClassVar[str] = "Play"
    verb_past: ClassVar[str] = "played"
    display_class: ClassVar[type[Display]] = Display

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.slug}>"

    # ---- the board -------------------------------------------------------------

    @property
    def template(self) -> str:
        """The board's template, with the partials ``position`` and ``controls``."""
        return f"games/boards/{self.slug}.html"

    def board(
        self,
        pos: Position,
        legal: Iterable[str] = (),
        hinted: Iterable[str] = (),
        touched: Iterable[str] = (),
    ) -> dict:
        """What the board's template draws: ``cells`` (and whatever else a game's
        template needs), ``facts`` and the keys help."""
        touched = frozenset(touched)
        return {
            "cells": self.cells(pos, legal, hinted, touched),
            "facts": self.facts(pos),
            "touched": touched,
        }

    def cells(
        self,
        pos: Position,
        legal: Iterable[str] = (),
        hinted: Iterable[str] = (),
        touched: Iterable[str] = (),
    ) -> list[dict]:
        """The board's cells for its template: one per move button by default."""
        legal, hinted, touched = set(legal), set(hinted), set(touched)
        return [
            {
                "move": move,
                "label": self.label(move),
                "key": self.key_for(move),
                "legal": move in legal,
                "hint": move in hinted,
                "last": move in touched,
            }
            for move in self.game.moves(pos)
        ]

    def facts(self, pos: Position) -> list[Fact]:
        """The short facts beside the board."""
        return [Fact("Position", self.position_text(pos), "position-text")]

    def position_text(self, pos: Position) -> str:
        """The position on one line (the admin's log, the terminal)."""
        return self.game.notation(pos)

    # ---- the small picture (the lobby's watch page) ----------------------------------

    MINI_TILES: ClassVar[int] = 32  # at most this many tiles: the last ones, after "…"

    def mini(self, pos: Position) -> list[dict]:
        """The position as a row of small tiles: ``{"text", "one", "gone"}`` each, ones
        filled and removed pieces struck through as on the board; a long row keeps its
        end, after a "…" tile; an empty board is one tile that says so."""
        tiles = self.mini_tiles(pos)
        if not tiles:  # nothing on the board yet (an empty sequence)
            return [{"text": "empty", "one": False, "gone": True}]
        if len(tiles) > self.MINI_TILES:
            tiles = [{"text": "…", "one": False, "gone": False}, *tiles[-self.MINI_TILES + 1 :]]
        return tiles

    def mini_tiles(self, pos: Position) -> list[dict]:
        """Every tile of the small picture; by default one, the position in words."""
        return [{"text": self.position_text(pos), "one": False, "gone": False}]

    # ---- moves -----------------------------------------------------------------

    def label(self, move: str) -> str:
        """What a move's button says to a screen reader: "Append 1", "Flip bits 4 and 5"."""
        return f"{self.verb} {move}"

    def describe(self, move: str, after: Position | None = None) -> str:
        """A move in words, as the move list says it after the player's name:
        "appended 1: 1011 = 11". ``after`` is the position it made, when known."""
        return f"{self.verb_past} {move}"

    def touched(self, move: str, after: Position | None = None) -> frozenset[str]:
        """The cells a move touched (the board marks them ``last``), by their move."""
        return frozenset({move})

    def sort(self, moves: Iterable[str]) -> list[str]:
        return numbers_sorted(moves)

    def moves_text(self, moves: Iterable[str]) -> str:
        """Moves in words, in order: "flip bit 4; flip bits 4 and 5"."""
        return "; ".join(lower_first(self.label(move)) for move in self.sort(moves))

    def hint_text(self, moves: Iterable[str], safe: bool = False) -> str:
        """The hinted moves in words: "Winning moves: flip bit 4; flip bits 4 and 5"."""
        moves = list(moves)
        if not moves:
            return ""
        kind = "Safe" if safe else "Winning"
        noun = "move" if len(moves) == 1 else "moves"
        return f"{kind} {noun}: {self.moves_text(moves)}."

    # ---- keys ------------------------------------------------------------------

    def key_for(self, move: str) -> str:
        """The key that plays ``move`` ("" for none)."""
        return ""

    def keys(self, pos: Position) -> list[tuple[str, str]]:
        """The keys this board takes, as (key, what it does) pairs for the keys help."""
        return [("← →", "move between the moves"), ("Enter or Space", "play the move in focus")]

    # ---- the terminal ----------------------------------------------------------

    def display(self) -> Display:
        return self.display_class(self)
