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


class NoBoard(Refused):
    """A move that does not say which position its player saw (games/actions.py)."""

    default = "That move came without its board: here is the current one."


class NotYourTurn(Refused):
    default = "It is not your turn."


class IllegalMove(Refused):
    """The rules refused the move (the message is the rules' own)."""

    default = "That move is not allowed."


class OwnMatch(Refused):
    default = "This is your own match: share its link with a friend."


class NeedsAccount(Refused):
    default = "This match is rated: sign in (or sign up) to take its second seat."


class NameTaken(Refused):
    """A display name that is another account's user name (games.play.display_name)."""

    default = "That name is an account's user name: choose another."


class SeatsTaken(Refused):
    default = "Both seats are taken: you are watching as a spectator."


class Started(Refused):
    default = "Too late to withdraw it: someone has taken the other seat."


class Cancelled(Refused):
    default = "This match was cancelled before an opponent joined: start a new one."


class NothingToReplay(Refused):
    """The match ended before any move that a replay could show."""

    default = "This match ended before anyone moved: there is nothing to replay."


class NoHints(Refused):
    default = "Hints are for games on one device or against the computer."


class NotHere(Refused):
    """The action does not exist in this kind of match (no clock, no opponent to ask...)."""

    default = "That is not possible in this match."


class NoOffer(Refused):
    default = "There is no draw offer to answer."


class TooEarly(Refused):
    """Not yet: the message says how long is left."""

    default = "Not yet."


class TimeRanOut(Refused):
    default = "Your time ran out: the game is over."


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


def game_over(match: Match) -> GameOver:
    """The refusal of anything but a replay or a rematch once the match is over."""
    return GameOver(f"The game is over. {match.result_text}".strip())


def move_refusal(match: Match, seats, *, to_move: int, computer: bool = False) -> Refused | None:
    """May the holder of ``seats`` (or the computer) move for the player ``to_move``?"""
    if match.status == Match.Status.FINISHED:
        return game_over(match)
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
        return game_over(match)
    if not human_seats(match, seats):
        return NotAPlayer("You are watching this match: only its players can resign.")
    return None


def resigning_aborts(match: Match) -> bool:
    """A friend's match in which a player has not moved yet: resigning aborts it, with no
    result and no rating change (a game in which a player has not moved counts for nothing,
    as on lichess; a flag then aborts it too: games.play._settled_on_time)."""
    return (
        match.mode == Match.Mode.FRIEND and match.status == Match.Status.PLAYING and match.ply < 2
    )


def one_player_both_sides(match: Match) -> bool:
    """A friend's match whose two seats are one account's, or one browser's: never made
    now (``join_refusal``, and signing in claims no such seat: games.play.claim_seats),
    but a match from before may be one."""
    if match.mode != Match.Mode.FRIEND:
        return False
    one_account = match.seat1_user_id is not None and match.seat1_user_id == match.seat2_user_id
    return one_account or (bool(match.seat1_secret) and match.seat1_secret == match.seat2_secret)


def rematch_refusal(match: Match, seats) -> Refused | None:
    """A rematch copies the seats: never of a friend's match that one player held both
    seats of."""
    if match.status != Match.Status.FINISHED:
        return NotOver()
    if not human_seats(match, seats):
        return NotAPlayer("Only the players can start a rematch.")
    if match.ending == Match.Ending.CANCELLED:
        return Cancelled()
    if match.event:
        return Refused("An event's game has no rematch: the event pairs its players.")
    if one_player_both_sides(match):
        return OwnMatch(
            "You held both seats of this match: a rematch would pair you with yourself. "
            "Start a new match and share its link."
        )
    return None


def is_reviewer(user) -> bool:
    """Staff who may view matches in the admin: they may replay any match."""
    return user.is_active and user.is_staff and user.has_perm("games.view_match")


def may_review(user, match: Match) -> bool:
    """Whether ``user`` may see the match's replay, export and analysis: every finished
    match is public; one still in play (or waiting) only to reviewers, since its analysis
    would be a hint for the game in progress."""
    return match.status == Match.Status.FINISHED or is_reviewer(user)


def replay_refusal(match: Match) -> Refused | None:
    """A replay is of a finished match with something to show: not of one cancelled
    before an opponent joined, nor of one aborted before its first move. (Whether a
    match still in play may be replayed by staff is ``may_review``'s business.)"""
    if match.status != Match.Status.FINISHED:
        return NotOver("This match is not over: its replay opens once the game is over.")
    if match.ending == Match.Ending.CANCELLED:
        return NothingToReplay(
            "This match was cancelled before an opponent joined: there is nothing to replay."
        )
    if match.ply == 0:
        return NothingToReplay()
    return None


def _playing_player(match: Match, seats, what: str) -> Refused | None:
    if match.status == Match.Status.FINISHED:
        return game_over(match)
    if match.status == Match.Status.WAITING:
        return NotStarted()
    if not human_seats(match, seats):
        return NotAPlayer(f"You are watching this match: only its players can {what}.")
    return None


def draw_refusal(match: Match, seats) -> Refused | None:
    """Offering a draw, or accepting the opponent's offer (between friends, or against the
    computer, which answers at once)."""
    if match.mode == Match.Mode.HOTSEAT:
        return NotHere("On one device, the two players agree between themselves.")
    refusal = _playing_player(match, seats, "offer a draw")
    if refusal is None and match.draw_offer in human_seats(match, seats):
        return TooEarly("You have offered a draw: your opponent has not answered yet.")
    return refusal


def answer_refusal(match: Match, seats) -> Refused | None:
    """Accepting or declining the opponent's standing offer."""
    refusal = _playing_player(match, seats, "answer a draw offer")
    if refusal is not None:
        return refusal
    if match.draw_offer is None or match.draw_offer in human_seats(match, seats):
        return NoOffer()
    return None


def withdraw_refusal(match: Match, seats) -> Refused | None:
    refusal = _playing_player(match, seats, "withdraw a draw offer")
    if refusal is not None:
        return refusal
    if match.draw_offer is None or match.draw_offer not in human_seats(match, seats):
        return NoOffer("You have no draw offer to withdraw.")
    return None


def abort_refusal(match: Match, seats, now) -> Refused | None:
    """A real-time match in which a player has made no first move within
    ``clock.abort_after()`` (until both have moved)."""
    from games import clock

    if match.clock != Match.Clock.REALTIME:
        return NotHere("Only a match with a real-time clock can be aborted.")
    refusal = _playing_player(match, seats, "abort it")
    if refusal is not None:
        return refusal
    if match.ply >= 2:
        return NotHere("Both players have moved: the game goes on (you may resign).")
    if not clock.abortable(match, now):
        left = clock.abort_opens_at(match) - now
        return TooEarly(
            f"A match can be aborted when a first move has not come for "
            f"{int(clock.abort_after().total_seconds())} seconds: "
            f"{max(1, int(left.total_seconds() + 0.999))} s to go."
        )
    return None


def claim_refusal(match: Match, seats, gone_for: float | None, threshold: float) -> Refused | None:
    """Claiming a friend's match (without a clock) whose opponent left: ``gone_for`` is how
    long the opponent has had no page open (``None``: connected, or unknown)."""
    if match.mode != Match.Mode.FRIEND or match.clock:
        return NotHere("Only a friend's match without a clock can be claimed.")
    refusal = _playing_player(match, seats, "claim it")
    if refusal is not None:
        return refusal
    if gone_for is None:
        return TooEarly("Your opponent is connected: the game goes on.")
    if gone_for < threshold:
        return TooEarly(
            f"Your opponent left {int(gone_for)} s ago: you may claim the game once they have "
            f"been away for {int(threshold)} s ({max(1, int(threshold - gone_for + 0.999))} s "
            "to go)."
        )
    return None


def join_refusal(match: Match, seats, *, user_id: int | None) -> Refused | None:
    """The second seat goes to the first other browser that asks for it; the second seat
    of a rated match, to the first other signed-in account (``user_id``)."""
    if seats or (user_id is not None and user_id == match.seat1_user_id):
        return OwnMatch()
    if match.status != Match.Status.WAITING or match.seat2_secret:
        return SeatsTaken()
    if match.rated and user_id is None:
        return NeedsAccount()
    return None


def hints_refusal(match: Match, seats) -> Refused | None:
    """Hints are for the player of a game on one device or against the computer, while it
    is played."""
    if match.mode == Match.Mode.FRIEND or not human_seats(match, seats):
        return NoHints()
    if match.status == Match.Status.FINISHED:
        return game_over(match)
    return None


@dataclass(frozen=True)
class Rights:
    """What one viewer may do now: the board draws exactly these buttons."""

    move: bool
    resign: bool
    resign_aborts: bool  # resigning now aborts the game, with no result (resigning_aborts)
    rematch: bool
    join: bool
    hints: bool
    offer_draw: bool
    answer_draw: bool
    withdraw_draw: bool
    abort: bool
    claim: bool  # may claim once the opponent is away long enough (the board shows when)
    replay: bool  # the game is over and there is something to replay
    new_game: bool  # the game is over: a link to start another of the same game
    back_to_games: bool  # the game is over and this is one of its players: a link home


def rights(match: Match, viewer: Viewer, *, to_move: int, now) -> Rights:
    seats = viewer.seats
    return Rights(
        move=move_refusal(match, seats, to_move=to_move) is None,
        resign=resign_refusal(match, seats) is None,
        resign_aborts=resigning_aborts(match),
        rematch=rematch_refusal(match, seats) is None,
        # The spectators' board is shared by the signed-in and the anonymous: it offers the
        # seat of a rated match to both and says that it needs an account (the board's
        # template); the write path refuses an anonymous press with NeedsAccount.
        join=join_refusal(match, seats, user_id=-1) is None,
        hints=hints_refusal(match, seats) is None,
        offer_draw=draw_refusal(match, seats) is None
        and match.draw_offer is None,  # the opponent's offer is answered, not countered
        answer_draw=answer_refusal(match, seats) is None,
        withdraw_draw=withdraw_refusal(match, seats) is None,
        # Shown while they may become possible: a press too early is refused with the time left.
        abort=_none_or_too_early(abort_refusal(match, seats, now)),
        claim=claim_refusal(match, seats, float("inf"), 0) is None,
        replay=replay_refusal(match) is None,
        new_game=match.status == Match.Status.FINISHED,
        back_to_games=match.status == Match.Status.FINISHED and bool(human_seats(match, seats)),
    )


def _none_or_too_early(refusal: Refused | None) -> bool:
    return refusal is None or isinstance(refusal, TooEarly)
