"""Matches and their move logs.

A Match keeps its game's options and current position (the rules module's JSON),
so the board is one row read away. Every move is also a Move row, unique on
(match, ply): the log is the record, and replaying it through the rules gives the
stored position.

Seats: seat 1 is the browser that created the match, seat 2 the first other
browser that pressed "Join". Which seat is the rules' Player 1 (who moves first)
is ``first_seat``. A seat is held by a secret kept in the player's session; only
its SHA-256 is stored here, and it never appears in a URL.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.functional import cached_property

from games.presenters import presenter_for
from games.rules import GAMES, get_game
from games.rules import Ending as RulesEnding
from games.rules.computer import LEVEL_LABELS, LEVELS

# 96 random bits, URL-safe base64 without padding: always 16 characters of this alphabet.
PUBLIC_ID_RE = r"[A-Za-z0-9_-]{16}"


def new_public_id() -> str:
    """96 random bits, URL-safe: the match's id in its share link (PUBLIC_ID_RE)."""
    return secrets.token_urlsafe(12)


def new_secret() -> str:
    """192 random bits: a seat's secret, kept in the player's session only."""
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class MatchQuerySet(models.QuerySet):
    def with_result(self) -> MatchQuerySet:
        """Finished with a result (``Match.has_result``): won, lost or drawn."""
        return self.filter(status=Match.Status.FINISHED).exclude(ending__in=Match.NO_RESULT)

    def results_for(self, user_id: int) -> dict[str, models.Q]:
        """Each result of a finished match for the account ``user_id``
        (``Match.result_for`` with the seats it holds), as a filter."""
        seat = {n: models.Q(**{f"seat{n}_user": user_id}) for n in (1, 2)}
        both = seat[1] & seat[2]  # on one device: both sides were the account's

        def won_by(n: int) -> models.Q:  # the winner is a player number; first_seat maps it
            return models.Q(first_seat=1, winner=n) | models.Q(first_seat=2, winner=3 - n)

        counted = models.Q(status=Match.Status.FINISHED) & ~models.Q(ending__in=Match.NO_RESULT)
        decided = counted & ~both
        R = Match.Result
        return {
            R.WON: decided & ((seat[1] & won_by(1)) | (seat[2] & won_by(2))),
            R.LOST: decided & ((seat[1] & won_by(2)) | (seat[2] & won_by(1))),
            R.DRAWN: decided & models.Q(winner__isnull=True),
            R.NONE: both | ~counted,
        }


class Match(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for a second player"
        PLAYING = "playing", "In play"
        FINISHED = "finished", "Finished"

    class Mode(models.TextChoices):
        FRIEND = "friend", "A friend, by link"
        HOTSEAT = "hotseat", "Same device"
        COMPUTER = "computer", "The computer"

    class First(models.TextChoices):
        """Who moves first, as the creator chooses it (stored as ``first_seat``)."""

        ME = "me", "I start"
        OPPONENT = "opponent", "My opponent starts"
        RANDOM = "random", "Random"

    # How a finished match ended: one of the rules' endings, or one of the site's own.
    Ending = models.TextChoices(
        "Ending",
        [(e.name, (e.value, e.value.replace("_", " "))) for e in RulesEnding]
        + [
            ("CANCELLED", ("cancelled", "cancelled before an opponent joined")),
            ("AGREEMENT", ("agreement", "drawn by agreement")),
            ("TIME", ("time", "on time")),
            ("ABORTED", ("aborted", "aborted before both had moved")),
            ("ABANDONED", ("abandoned", "abandoned by a player")),
        ],
    )

    # Endings that give no result: nobody won, lost or drew (nothing to rate or count).
    NO_RESULT = frozenset({Ending.CANCELLED, Ending.ABORTED})

    class Result(models.TextChoices):
        """What a finished match's result is for the holder of some of its seats."""

        WON = "won", "Won"
        LOST = "lost", "Lost"
        DRAWN = "drawn", "Drawn"
        NONE = "other", "No result"  # cancelled, aborted, or both sides played by one

    class Clock(models.TextChoices):
        NONE = "", "No clock"
        REALTIME = "realtime", "Real time"
        CORRESPONDENCE = "correspondence", "Correspondence"

    # The computer's levels are the rules module's (games/rules/computer.py).
    LEVEL_CHOICES = [(level, LEVEL_LABELS[level]) for level in LEVELS]

    GAME_CHOICES = [(game.slug, game.title) for game in GAMES]

    public_id = models.CharField(
        "link id", max_length=32, unique=True, default=new_public_id, editable=False
    )
    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    options = models.JSONField(default=dict, blank=True)
    # The moves from the game's start to where this match began (a practice from the
    # analysis board, learn/): empty for a match from the start. The move log and the
    # plies count this match's own moves; ``initial_position`` is the one definition of
    # where its replay begins.
    setup = models.JSONField("set up after these moves", default=list, blank=True)
    position = models.JSONField()
    ply = models.PositiveIntegerField("moves played", default=0)
    # Bumped by every change a viewer should see (move, join, resign, rematch):
    # a page never replaces a newer board with an older one.
    version = models.PositiveIntegerField("board version", default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.FRIEND)
    computer_level = models.CharField(max_length=16, blank=True, choices=LEVEL_CHOICES)
    computer_seed = models.BigIntegerField(default=0)
    first_seat = models.PositiveSmallIntegerField(
        "who moves first",
        choices=[(1, "Seat 1 (the creator)"), (2, "Seat 2 (the opponent)")],
        default=1,
    )
    seat1_secret = models.CharField(max_length=64, blank=True, editable=False)
    seat2_secret = models.CharField(max_length=64, blank=True, editable=False)
    seat1_name = models.CharField("name of the creator (seat 1)", max_length=40, blank=True)
    seat2_name = models.CharField("name of the opponent (seat 2)", max_length=40, blank=True)
    # The accounts holding the seats, if their players were signed in (accounts/): a seat
    # with an account is held by that account's secret, on every device it signs in on.
    seat1_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="account of seat 1",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="matches_in_seat1",
    )
    seat2_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="account of seat 2",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="matches_in_seat2",
    )
    # Rated: created as rated, between two accounts (never on one device or against the
    # computer); its result changes both players' ratings (ratings/).
    rated = models.BooleanField(default=False)
    # Listed in the lobby: an open challenge while it waits, then a match anyone may watch
    # (lobby/). A friend's match by link is unlisted.
    listed = models.BooleanField("listed in the lobby", default=False)
    # The event that paired the match (an app's label, e.g. "tournament:<id>"), or "":
    # its pairing is the event's to make, so it has no rematch.
    event = models.CharField(max_length=40, blank=True, default="", editable=False)
    # The player of a game on one device or against the computer asked to see the winning
    # moves (never between friends: games/rights.py).
    hints = models.BooleanField(default=False)
    winner = models.PositiveSmallIntegerField(
        null=True, blank=True, choices=[(1, "Player 1"), (2, "Player 2")]
    )
    ending = models.CharField("kind of ending", max_length=32, blank=True, choices=Ending.choices)
    # The seat whose action ended the match (a resignation, an accepted draw, a claim).
    ended_by = models.PositiveSmallIntegerField(null=True, blank=True)
    # The time control (games/clock.py): real time (base + increment per move) or
    # correspondence (days per move). The server owns the clocks: each seat's time left
    # when its turn last began, and when the turn of the side to move began.
    clock = models.CharField(max_length=16, blank=True, choices=Clock.choices)
    clock_base = models.PositiveIntegerField(default=0, help_text="seconds (real time)")
    clock_increment = models.PositiveIntegerField(default=0, help_text="seconds (real time)")
    clock_days = models.PositiveSmallIntegerField(
        default=0, help_text="days a move (correspondence)"
    )
    seat1_ms = models.BigIntegerField(default=0, help_text="seat 1's time left (real time)")
    seat2_ms = models.BigIntegerField(default=0, help_text="seat 2's time left (real time)")
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # The seat that offered a draw, while its offer stands (one at a time).
    draw_offer = models.PositiveSmallIntegerField(null=True, blank=True)
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    created_at = models.DateTimeField("created", auto_now_add=True, db_index=True)
    started_at = models.DateTimeField("started", null=True, blank=True)
    finished_at = models.DateTimeField("finished", null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["game", "status"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(game__in=[game.slug for game in GAMES]), name="known_game"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["waiting", "playing", "finished"]),
                name="known_status",
            ),
            models.CheckConstraint(
                condition=models.Q(mode="computer", computer_level__in=LEVELS)
                | (models.Q(mode__in=["friend", "hotseat"]) & models.Q(computer_level="")),
                name="mode_and_level",
            ),
            models.CheckConstraint(condition=models.Q(first_seat__in=[1, 2]), name="first_seat"),
            models.CheckConstraint(
                condition=models.Q(winner__isnull=True) | models.Q(winner__in=[1, 2]),
                name="winner_is_a_player",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="finished") | models.Q(finished_at__isnull=False),
                name="finished_when_over",
            ),
            models.CheckConstraint(
                condition=models.Q(clock__in=["", "realtime", "correspondence"]),
                name="known_clock",
            ),
            models.CheckConstraint(
                condition=models.Q(draw_offer__isnull=True) | models.Q(draw_offer__in=[1, 2]),
                name="draw_offer_by_a_seat",
            ),
            models.CheckConstraint(
                condition=models.Q(rated=False) | models.Q(mode="friend"),
                name="rated_between_people",
            ),
            models.CheckConstraint(
                condition=models.Q(listed=False) | models.Q(mode="friend"),
                name="listed_between_people",
            ),
            models.CheckConstraint(
                condition=(models.Q(status="finished") & ~models.Q(ending=""))
                | (~models.Q(status="finished") & models.Q(ending="")),
                name="an_ending_when_over",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rules.title} {self.public_id}"

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.public_id])

    # ---- the rules ------------------------------------------------------------

    @property
    def rules(self):
        return get_game(self.game)

    @property
    def current(self):
        """The current position, as the rules module's object."""
        return self.rules.from_json(self.position)

    @cached_property
    def initial_position(self):
        """Where the match began: the game's start with its options, and the ``setup``
        moves played from there (the one definition for the replay, the export, the
        admin, the board's move list and a rematch). ValueError if they do not play."""
        game = self.rules
        pos = game.start(**self.options)
        for text in self.setup or ():
            pos = game.play(pos, text)  # IllegalMove is a ValueError
        return pos

    # ---- seats and players ------------------------------------------------------

    def player_of_seat(self, seat: int) -> int:
        """The rules' player number (1 moves first) of a seat."""
        return seat if self.first_seat == 1 else 3 - seat

    def seat_of_player(self, player: int) -> int:
        return player if self.first_seat == 1 else 3 - player

    def seat_name(self, seat: int) -> str:
        return self.seat1_name if seat == 1 else self.seat2_name

    def player_name(self, player: int) -> str:
        """How a player is called on the page: "Player 1 (Ada)", "Computer", ..."""
        seat = self.seat_of_player(player)
        if self.mode == self.Mode.COMPUTER and seat == 2:
            return f"Player {player} (computer, {self.computer_level})"
        name = self.seat_name(seat)
        return f"Player {player} ({name})" if name else f"Player {player}"

    def seat_user(self, seat: int):
        return self.seat1_user if seat == 1 else self.seat2_user

    def seat_user_id(self, seat: int) -> int | None:
        return self.seat1_user_id if seat == 1 else self.seat2_user_id

    def seat_secret_hash(self, seat: int) -> str:
        return self.seat1_secret if seat == 1 else self.seat2_secret

    def seats_for(self, secrets_held) -> set[int]:
        """Which seats a browser holds, from the secrets in its session."""
        hashes = {hash_secret(secret) for secret in secrets_held if secret}
        return {seat for seat in (1, 2) if self.seat_secret_hash(seat) in hashes}

    @property
    def computer_seat(self) -> int | None:
        return 2 if self.mode == self.Mode.COMPUTER else None

    @property
    def computer_to_move(self) -> bool:
        return (
            self.status == self.Status.PLAYING
            and self.computer_seat is not None
            and self.seat_of_player(self.current.to_move) == self.computer_seat
        )

    # ---- the result: one definition for boards, replay, My games, ratings and the admin --

    @property
    def has_result(self) -> bool:
        """Finished with a result: someone won, or it was drawn (not cancelled or aborted)."""
        return self.status == self.Status.FINISHED and self.ending not in self.NO_RESULT

    @property
    def winner_seat(self) -> int | None:
        return self.seat_of_player(self.winner) if self.winner else None

    def result_for(self, seats) -> Match.Result:
        """The result for whoever holds ``seats``: won, lost, drawn, or none (no result,
        not a player, or both sides theirs)."""
        seats = frozenset(seats) - {self.computer_seat}
        if len(seats) != 1 or not self.has_result:
            return self.Result.NONE
        if self.winner is None:
            return self.Result.DRAWN
        return self.Result.WON if self.winner_seat in seats else self.Result.LOST

    def score_of(self, seat: int) -> float | None:
        """A seat's score (1, 0.5 or 0), or None when the match has no result."""
        if not self.has_result:
            return None
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner_seat == seat else 0.0

    def headline(self, seats=frozenset()) -> str:
        """The result in a few words, for whoever holds ``seats`` ("You win!"), or for
        anyone ("Player 1 (Ada) wins!"). Empty while the match is not over."""
        if self.status != self.Status.FINISHED:
            return ""
        if self.winner is None:
            return {
                self.Ending.CANCELLED: "This match was cancelled.",
                self.Ending.AGREEMENT: "Draw by agreement",
                self.Ending.ABORTED: "Aborted: no result",
            }.get(self.ending, "A draw")
        winner = self.player_name(self.winner)
        if len(frozenset(seats)) == 1 and self.mode != self.Mode.HOTSEAT:
            return "You win!" if self.winner_seat in seats else f"You lose: {winner} wins."
        return f"{winner} wins!"

    @property
    def result_text(self) -> str:
        """How the match ended, in a sentence (what ended it and who)."""
        ending, Ending = self.ending, self.Ending
        if not ending:
            return ""
        by = self.player_name(self.player_of_seat(self.ended_by)) if self.ended_by else ""
        if ending == Ending.CANCELLED:
            return "Cancelled before an opponent joined."
        if ending == Ending.AGREEMENT:  # the headline says "Draw by agreement": who agreed
            return f"{by} accepted the draw." if by else "Draw by agreement."
        if ending == Ending.ABORTED:
            if by:
                return f"Aborted by {by} before both players had moved: no result."
            return "Aborted: a first move did not come in time, so the game has no result."
        if ending == Ending.RESIGNED:
            return f"{self.player_name(3 - self.winner)} resigned."
        if ending == Ending.TIME:
            return f"{self.player_name(3 - self.winner)} ran out of time."
        if ending == Ending.ABANDONED:
            gone = self.player_name(self.player_of_seat(3 - self.ended_by))
            verdict = "claimed the win" if self.winner else "called it a draw"
            return f"{gone} left the game: {by} {verdict}."
        # The book's sentence, with the players named as the board names them.
        names = {player: self.player_name(player) for player in (1, 2)}
        return self.rules.describe_outcome(self.current, names)

    @property
    def mode_text(self) -> str:
        """Who the opponent is, as a page's header says it (an event's game: the event
        paired the players, not a link)."""
        return "Event game" if self.event else self.get_mode_display()

    def options_summary(self) -> str:
        return self.rules.describe_options(self.options) if self.rules.options else "standard"

    @property
    def setup_text(self) -> str:
        """Where a match set up from a position began, in words ("" from the start)."""
        if not self.setup:
            return ""
        pos = self.initial_position
        count = len(self.setup)
        moves = "move" if count == 1 else "moves"
        return (
            f"Started from a given position (after {count} {moves} from the start): "
            f"{presenter_for(self.rules).position_text(pos)}, Player {pos.to_move} to move."
        )


class Move(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField(help_text="1 for the first move of the match")
    seat = models.PositiveSmallIntegerField()
    player = models.PositiveSmallIntegerField(help_text="The rules' player number: 1 moves first")
    text = models.CharField(max_length=32)
    created_at = models.DateTimeField("played at", auto_now_add=True)
    # How long the mover took: from the start of the turn to the move (the server's clock).
    time_ms = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["match", "ply"], name="one_move_per_ply"),
        ]

    def __str__(self) -> str:
        return f"{self.ply}. Player {self.player}: {self.text}"
