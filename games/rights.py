"""Who is looking at a match, and what they may do: one definition for every transport.

The board draws a button exactly when the write path would accept it: both ask the
functions below. Each returns ``None`` when the action is allowed, or the typed
refusal that the write path raises (and that the views map to an HTTP status).

A *kind of viewer* is what a board depends on: the seats a browser holds (none for
a spectator; one seat each in a friend's match; both on one device). The live layer
renders the board once per kind and every socket forwards the one for its kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.models import Match

# ---- refusals: typed, with the sentence a player reads -------------------------------


class Refused(Exception):
    """A submission the match refuses. Nothing changed."""

    default = "That is not possible now."

    def __init__(self, message: str = ""):
        self.message = message or self.default
        super().__init__(self.message)


class NoSuchMatch(Refused):
    default = "There is no such match."


class NotAPlayer(Refused):
    default = "You are watching this match: only its players can do that."


class NotStarted(Refused):
    default = "The game has not started: it is waiting for a second player."


class GameOver(Refused):
    default = "The game is over."


class NotOver(Refused):
    default = "A rematch can start once this game is over."


class StaleBoard(Refused):
    default = "That board was out of date: here is the current position."


class NotYourTurn(Refused):
    default = "It is not your turn."


class IllegalMove(Refused):
    """The rules refused the move (the message is the rules' own)."""

    default = "That move is not allowed."


class OwnMatch(Refused):
    default = "This is your own match: share its link with a friend."


class SeatsTaken(Refused):
    default = "Both seats are taken: you are watching as a spectator."


class Cancelled(Refused):
    default = "This match was cancelled before an opponent joined: start a new one."


class NoHints(Refused):
    default = "Hints are for games on one device or against the computer."


# ---- viewers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Viewer:
    """Who is looking: the seats their browser holds (the computer holds none)."""

    seats: frozenset[int] = field(default_factory=frozenset)

    @property
    def spectator(self) -> bool:
        return not self.seats

    @property
    def key(self) -> str:
        """The kind of viewer, as the live layer names it: spectator, seat1, seat2, seats12."""
        if not self.seats:
            return "spectator"
        return ("seat" if len(self.seats) == 1 else "seats") + "".join(map(str, sorted(self.seats)))


SPECTATOR = Viewer()


def viewer_of(match: Match, token: str | None) -> Viewer:
    """The viewer whose browser holds ``token`` (its session's secret), if any."""
    return Viewer(frozenset(match.seats_for([token])) if token else frozenset())


def viewer_from_session(session, match: Match) -> Viewer:
    return viewer_of(match, session.get("token") if session is not None else None)


def kinds(match: Match) -> list[Viewer]:
    """Every kind of viewer this match can have: each sees a board of its own."""
    return kinds_of_mode(match.mode)


def kinds_of_mode(mode: str) -> list[Viewer]:
    if mode == Match.Mode.FRIEND:
        return [SPECTATOR, Viewer(frozenset({1})), Viewer(frozenset({2}))]
    if mode == Match.Mode.HOTSEAT:
        return [SPECTATOR, Viewer(frozenset({1, 2}))]
    return [SPECTATOR, Viewer(frozenset({1}))]


def human_seats(match: Match, seats) -> set[int]:
    return set(seats) - {match.computer_seat}


def shows_hints(match: Match, viewer: Viewer) -> bool:
    """Hints are drawn for the player of a game on one device or against the computer,
    once they asked for them; never between friends and never for spectators."""
    return match.hints and hints_refusal(match, viewer.seats) is None


# ---- what a viewer may do ------------------------------------------------------------


def move_refusal(match: Match, seats, *, to_move: int, computer: bool = False) -> Refused | None:
    """May the holder of ``seats`` (or the computer) move for the player ``to_move``?"""
    if match.status == Match.Status.FINISHED:
        return GameOver(f"The game is over. {match.result_text}".strip())
    if match.status == Match.Status.WAITING:
        return NotStarted()
    seat = match.seat_of_player(to_move)
    if seat == match.computer_seat:
        return None if computer else NotYourTurn("It is the computer's turn.")
    if seat not in seats:
        if not seats:
            return NotAPlayer("You are watching this match: only its players can move.")
        return NotYourTurn(f"It is not your turn: waiting for {match.player_name(to_move)}.")
    return None


def resign_refusal(match: Match, seats) -> Refused | None:
    """Resigning (or, before anyone joined, cancelling) is for the match's players."""
    if match.status == Match.Status.FINISHED:
        return GameOver(f"The game is over. {match.result_text}".strip())
    if not human_seats(match, seats):
        return NotAPlayer("You are watching this match: only its players can resign.")
    return None


def rematch_refusal(match: Match, seats) -> Refused | None:
    if match.status != Match.Status.FINISHED:
        return NotOver()
    if not human_seats(match, seats):
        return NotAPlayer("Only the players can start a rematch.")
    if match.winner is None:
        return Cancelled()
    return None


def join_refusal(match: Match, seats) -> Refused | None:
    """The second seat goes to the first other browser that asks for it."""
    if seats:
        return OwnMatch()
    if match.status != Match.Status.WAITING or match.seat2_secret:
        return SeatsTaken()
    return None


def hints_refusal(match: Match, seats) -> Refused | None:
    if match.mode == Match.Mode.FRIEND or not human_seats(match, seats):
        return NoHints()
    return None


@dataclass(frozen=True)
class Rights:
    """What one viewer may do now: the board draws exactly these buttons."""

    move: bool
    resign: bool
    rematch: bool
    join: bool
    hints: bool


def rights(match: Match, viewer: Viewer, *, to_move: int) -> Rights:
    seats = viewer.seats
    return Rights(
        move=move_refusal(match, seats, to_move=to_move) is None,
        resign=resign_refusal(match, seats) is None,
        rematch=rematch_refusal(match, seats) is None,
        join=join_refusal(match, seats) is None,
        hints=hints_refusal(match, seats) is None,
    )
