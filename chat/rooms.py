"""Who reads and who writes each of a match's chats: one definition for the page, the
socket, the pushes, the replay and the write path.

- **The players' chat** of a match between two people (a friend's match, a lobby's, a
  tournament's): read and written by the two seats, anonymous seats included, and nobody
  else while the game is on. Off between two accounts when one has blocked the other.
- **The spectators' chat**: read by every spectator's page; written by signed-in
  spectators only (an account answers for what it writes). Players do not read it while
  they play.
- **The replay** (a finished game) shows the spectators' chat to anyone who may replay
  it, and the players' chat to its two players.

A player may mute the other for the match (the muted player is not told); a moderator may
hide a message (nobody sees it) and mute an account site-wide for a while (people.Silence):
what it writes in the players' chat meanwhile is shown to its author only, and it may not
write in a spectators' chat (its words there would reach nobody but itself).
"""

from __future__ import annotations

from dataclasses import dataclass

from chat.models import Room
from games.models import Match
from games.rights import Viewer, human_seats
from people.challenges import blocked_between

TITLES = {Room.PLAYERS: "Chat", Room.SPECTATORS: "Spectators' chat"}


def players_seat(match: Match, viewer: Viewer) -> int | None:
    """The seat a viewer writes from in the players' chat (None: not a player of it)."""
    if match.mode != Match.Mode.FRIEND:
        return None
    humans = human_seats(match, viewer.seats)
    return min(humans) if len(humans) == 1 else None


def rooms_read(match: Match, viewer: Viewer) -> list[str]:
    """The rooms a kind of viewer reads live (its page, its socket, the pushes to it)."""
    if viewer.spectator:
        return [Room.SPECTATORS]
    if players_seat(match, viewer) is not None:
        return [Room.PLAYERS]
    return []


def kinds_reading(match: Match, room: str) -> list[Viewer]:
    """The kinds of viewer whose pages show ``room`` (each gets its own log: mutes)."""
    if room == Room.SPECTATORS:
        return [Viewer()]
    if match.mode != Match.Mode.FRIEND:
        return []
    return [Viewer(frozenset({1})), Viewer(frozenset({2}))]


def rooms_replayed(match: Match, viewer: Viewer) -> list[str]:
    rooms = [Room.SPECTATORS]
    if players_seat(match, viewer) is not None:
        rooms.insert(0, Room.PLAYERS)
    return rooms


def blocked_between_seats(match: Match) -> bool:
    one, two = match.seat1_user_id, match.seat2_user_id
    return one is not None and two is not None and blocked_between(one, two)


@dataclass(frozen=True)
class Writer:
    """Who writes, as the write path and the page see them."""

    seat: int | None  # in the players' chat
    user: object | None  # the signed-in account, if any
    name: str


def writer(match: Match, viewer: Viewer, user, room: str) -> tuple[Writer | None, str]:
    """Who would write in ``room`` from this page, or why they may not (a sentence)."""
    account = user if user is not None and user.is_authenticated else None
    if room == Room.PLAYERS:
        seat = players_seat(match, viewer)
        if seat is None:
            return None, "Only the two players write in this chat."
        if blocked_between_seats(match):
            return None, "The chat is off between you and this player."
        name = match.seat_name(seat) or f"Player {match.player_of_seat(seat)}"
        return Writer(seat, account, name), ""
    if room == Room.SPECTATORS:
        if not viewer.spectator:
            return None, "Players do not write in the spectators' chat."
        if account is None:
            return None, "Sign in to write in the spectators' chat."
        return Writer(None, account, account.get_username()), ""
    return None, "There is no such chat."
