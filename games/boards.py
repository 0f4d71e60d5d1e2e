"""What a viewer sees of a match: the context of the board partial.

Used by the views (HTTP and htmx) and by the websocket consumer, so a pushed
board is exactly the board a reload would show. No rules here: everything about
the game comes from games.rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.template.loader import render_to_string
from django.utils import timezone

from games.models import Match, Presence, hash_secret
from games.rules import Verdict

HISTORY_SHOWN = 40
PRESENCE_TTL = timedelta(seconds=75)


@dataclass(frozen=True)
class Viewer:
    """Who is looking: the seats their browser holds, and whether they asked for hints."""

    seats: frozenset[int] = field(default_factory=frozenset)
    hints: bool = False

    @property
    def spectator(self) -> bool:
        return not self.seats


def viewer_from_session(session, match: Match) -> Viewer:
    token = session.get("token") if session is not None else None
    seats = frozenset(match.seats_for([token])) if token else frozenset()
    hints = match.public_id in (session.get("hints", []) if session is not None else [])
    return Viewer(seats, hints and match.mode != Match.Mode.FRIEND)


def session_token(session) -> str:
    """This browser's secret (192 random bits), made on first use. Never in a URL."""
    from games.models import new_secret

    token = session.get("token")
    if not token:
        token = session["token"] = new_secret()
    return token


def holds_seat(session, match: Match) -> bool:
    token = session.get("token")
    return bool(token) and hash_secret(token) in (match.seat1_secret, match.seat2_secret)


def online_seats(match: Match) -> set[int]:
    fresh = timezone.now() - PRESENCE_TTL
    return set(
        Presence.objects.filter(match=match, seen_at__gte=fresh).values_list("seat", flat=True)
    )


def board_context(
    match: Match,
    viewer: Viewer,
    *,
    message: str = "",
    message_level: str = "error",
    share_url: str = "",
) -> dict:
    game = match.rules
    pos = game.from_json(match.position)
    playing = match.status == Match.Status.PLAYING
    to_move = pos.to_move
    to_move_seat = match.seat_of_player(to_move)
    computer_seat = match.computer_seat
    my_turn = playing and to_move_seat in viewer.seats and to_move_seat != computer_seat
    legal = game.legal_moves(pos) if my_turn else []
    analysis = game.analyse(pos) if my_turn and viewer.hints else None
    if analysis is None:
        hinted = set()
    elif analysis.winner is None:  # nobody can force a win: the hint is the safe moves
        hinted = set(analysis.best_moves)
    else:
        hinted = set(analysis.winning_moves)

    online = online_seats(match) if match.mode == Match.Mode.FRIEND else set()
    players = []
    for player in (1, 2):
        seat = match.seat_of_player(player)
        players.append(
            {
                "number": player,
                "label": match.player_name(player),
                "to_move": playing and player == to_move,
                "is_viewer": seat in viewer.seats and len(viewer.seats) == 1,
                "computer": seat == computer_seat,
                "joined": bool(match.seat_secret_hash(seat)) or seat == computer_seat,
                "online": seat in online,
            }
        )
    moves = list(match.moves.order_by("-ply")[:HISTORY_SHOWN])[::-1]
    return {
        "match": match,
        "game": game,
        "pos": pos,
        "viewer": viewer,
        "players": players,
        "status_text": status_text(match, viewer, to_move),
        "my_turn": my_turn,
        "legal": legal,
        "hinted": hinted,
        "analysis": analysis,
        "show_hint_toggle": match.mode != Match.Mode.FRIEND and bool(viewer.seats),
        "can_join": match.status == Match.Status.WAITING and not viewer.seats,
        "can_resign": match.status != Match.Status.FINISHED
        and bool(set(viewer.seats) - {computer_seat}),
        "can_rematch": match.status == Match.Status.FINISHED
        and match.winner is not None
        and bool(viewer.seats),
        "computer_thinking": match.computer_to_move,
        "show_presence": match.mode == Match.Mode.FRIEND and match.status != Match.Status.WAITING,
        "moves": moves,
        "earlier_moves": max(0, match.ply - len(moves)),
        "message": message,
        "message_level": message_level,
        "share_url": share_url,
        "cells": cells(game.slug, pos, legal, hinted),
        "remainder": remainder(game.slug, pos),
        "verdict_kinds": Verdict,
    }


def status_text(match: Match, viewer: Viewer, to_move: int) -> str:
    if match.status == Match.Status.WAITING:
        if viewer.seats:
            return "Waiting for an opponent: share the link below."
        return "This match is waiting for a second player."
    if match.status == Match.Status.FINISHED:
        if match.winner is None:
            return "This match was cancelled."
        winner_seat = match.seat_of_player(match.winner)
        if len(viewer.seats) == 1 and match.mode != Match.Mode.HOTSEAT:
            if winner_seat in viewer.seats:
                return "You win!"
            return f"You lose: {match.player_name(match.winner)} wins."
        return f"{match.player_name(match.winner)} wins!"
    name = match.player_name(to_move)
    seat = match.seat_of_player(to_move)
    if seat == match.computer_seat:
        return "The computer is thinking…"
    if seat in viewer.seats:
        return f"{name}: your turn" if len(viewer.seats) == 2 else "Your turn"
    if viewer.seats:
        return f"Waiting for {name}"
    return f"{name} to move"


def cells(slug: str, pos, legal: list[str], hinted: set[str]) -> list[dict]:
    """The board's cells for the templates: bits with their positions, or digits."""
    legal_set = set(legal)
    if slug in ("bit-flip", "bit-flip-divisor"):
        return [
            {
                "position": i,
                "bit": bit,
                "move": str(i),
                "legal": str(i) in legal_set,
                "hint": str(i) in hinted,
                "pair": f"{i} {i + 1}",
                "pair_legal": f"{i} {i + 1}" in legal_set,
                "pair_hint": f"{i} {i + 1}" in hinted,
            }
            for i, bit in enumerate(pos.bits, start=1)
        ]
    if slug == "last-digit-standing":
        return [
            {
                "digit": d,
                "move": str(d),
                "remaining": d in pos.remaining,
                "legal": str(d) in legal_set,
                "hint": str(d) in hinted,
            }
            for d in range(1, pos.highest + 1)
        ]
    return [{"move": bit, "legal": bit in legal_set, "hint": bit in hinted} for bit in ("0", "1")]


def remainder(slug: str, pos) -> int | None:
    """Bitwise Battle's "value mod k" line, as its book's sample prints it."""
    if slug == "bitwise-battle" and pos.condition == "divisible":
        return pos.value % pos.target
    return None


def render_board(
    match: Match, viewer: Viewer, *, request=None, action: bool = False, **kwargs
) -> str:
    """The board partial for a response (``action``: an answer to this viewer's own
    request, which also sets the message area) or a push."""
    context = board_context(match, viewer, **kwargs)
    context["partial_response"] = True
    context["action_response"] = action
    return render_to_string("games/match.html#board", context, request=request)
