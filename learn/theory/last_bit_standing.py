"""Last Bit Standing: the number's remainder mod 3 as a state diagram.

The transitions are found by playing the game's own moves from the start: every
position reached is grouped by its remainder, and each bit appended is an arrow
from one remainder to the next, marked when the rules make it lose.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.rules import Game

from . import Theory, register
from .geometry import Arrow, arrow

RADIUS = 30
# Where each remainder's circle is drawn (the picture's layout, not its content).
PLACES = {1: (80.0, 150.0), 2: (280.0, 150.0), 0: (180.0, 290.0)}


@dataclass(frozen=True)
class Transition:
    source: int  # the remainder before the move
    bit: str
    target: int  # the remainder after it
    loses: bool  # the rules end the game: the mover made a multiple of 3
    example: str  # one number, in binary, where this move was played
    arrow: Arrow | None = None


def residue(pos) -> int:
    return pos.value % 3


def transitions(game: Game) -> list[Transition]:
    """Every (remainder, bit) the game can meet, from the start on, with what the
    rules make of it; explored by ``play`` until no new remainder turns up."""
    start = game.start()
    found: dict[tuple[int, str], Transition] = {}
    frontier = [start]
    seen = {residue(start)}
    while frontier:
        pos = frontier.pop(0)
        for bit in game.legal_moves(pos):
            child = game.play(pos, bit)
            loses = child.result is not None and child.result.winner != pos.to_move
            key = (residue(pos), bit)
            found.setdefault(key, Transition(key[0], bit, residue(child), loses, pos.binary))
            if child.result is None and residue(child) not in seen:
                seen.add(residue(child))
                frontier.append(child)
    return [found[key] for key in sorted(found)]


@register("last-bit-standing")
def theory(game: Game, options: dict) -> Theory:
    moves = transitions(game)
    states = sorted({t.source for t in moves} | {t.target for t in moves})
    drawn = [
        Transition(
            t.source,
            t.bit,
            t.target,
            t.loses,
            t.example,
            arrow(PLACES[t.source], PLACES[t.target], RADIUS),
        )
        for t in moves
    ]
    nodes = [
        {
            "residue": r,
            "x": PLACES[r][0],
            "y": PLACES[r][1],
            "text_y": PLACES[r][1] + 8,
            "over": not any(t.source == r for t in moves),
            "safe": [t.bit for t in moves if t.source == r and not t.loses],
        }
        for r in states
    ]
    return Theory(
        game,
        options,
        {
            "transitions": drawn,
            "nodes": nodes,
            "radius": RADIUS,
            "always_safe": all(node["safe"] for node in nodes if not node["over"]),
        },
        start_summary=game.analyse(game.start()).summary,
    )
