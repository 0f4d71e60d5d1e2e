"""What a tournament keeps: the event, its players and its games.

A ``Tournament`` is an arena (a fixed duration; players are paired again as they finish)
or a Swiss event (a fixed number of rounds; everyone is paired each round). Its games are
ordinary matches of ``games`` (a friend's match between two accounts, on a real-time
clock), each tied to the event by a ``Pairing``; a Swiss bye is a pairing without a match.
An ``Entry`` is one account's place in one event: its score as the pure cores compute it
(tournaments/arena.py, tournaments/swiss.py), kept on the row so that the standings are
one query.

Every row here is written by the write path (tournaments/director.py) with the
tournament's row locked, and by nothing else (the admin edits only what it may).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from games.models import PUBLIC_ID_RE, Match, new_public_id  # noqa: F401

SCORE_SCALE = 2  # Swiss scores are kept in half points: 1 for a draw, 2 for a win


class Tournament(models.Model):
    class Kind(models.TextChoices):
        ARENA = "arena", "Arena"
        SWISS = "swiss", "Swiss"

    class Status(models.TextChoices):
        UPCOMING = "upcoming", "Starting soon"
        RUNNING = "running", "In progress"
        FINISHED = "finished", "Finished"

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    name = models.CharField(max_length=60)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    game = models.CharField(max_length=32, choices=Match.GAME_CHOICES)
    options = models.JSONField(default=dict, blank=True)
    clock_base = models.PositiveIntegerField(default=180, help_text="seconds")
    clock_increment = models.PositiveIntegerField(default=2, help_text="seconds")
    rated = models.BooleanField(default=True)
    starts_at = models.DateTimeField(db_index=True)
    minutes = models.PositiveIntegerField(
        default=0, help_text="an arena's duration, in minutes (Swiss: 0)"
    )
    rounds = models.PositiveSmallIntegerField(
        default=0, help_text="a Swiss event's number of rounds (arena: 0)"
    )
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.UPCOMING, db_index=True
    )
    round = models.PositiveSmallIntegerField("current round", default=0)
    round_started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Why a Swiss event ended before its last round (none could be paired), or "".
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments_created",
    )
    # Made by the scheduler: the slot it fills ("arena:bit-flip:2026-11-27T16"), once.
    schedule_key = models.CharField(max_length=80, null=True, blank=True, unique=True)
    version = models.PositiveIntegerField(default=0, help_text="bumped by every change")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.public_id])

    @property
    def rules(self):
        from games.rules import get_game

        return get_game(self.game)

    @property
    def is_arena(self) -> bool:
        return self.kind == self.Kind.ARENA

    @property
    def ends_at(self):
        """When an arena stops pairing (None for a Swiss event)."""
        if not self.is_arena:
            return None
        return self.starts_at + timezone.timedelta(minutes=self.minutes)

    @property
    def time_control(self) -> str:
        return f"{self.clock_base // 60}+{self.clock_increment}"


class Entry(models.Model):
    """One account in one tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    name = models.CharField(max_length=40)
    rating = models.FloatField(help_text="the player's rating in the game when they joined")
    joined_at = models.DateTimeField(auto_now_add=True)
    # Paired when pairing comes (an arena: between games; Swiss: next round). A player who
    # withdraws, or is absent when paired, is not active until they join again.
    active = models.BooleanField(default=True)
    # The tournament game this player is in now (None: between games, or a bye).
    playing = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    waiting_since = models.DateTimeField(null=True, blank=True)  # an arena: ready to pair
    last_game = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_opponent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    score = models.IntegerField(default=0, help_text="arena points; Swiss half points")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    streak = models.PositiveSmallIntegerField(default=0, help_text="wins in a row")
    results = models.CharField(
        max_length=400, blank=True, help_text="one letter a game: W, D, L (arena)"
    )
    buchholz = models.FloatField(default=0)
    sonneborn_berger = models.FloatField(default=0)
    rank = models.PositiveIntegerField(default=0, db_index=True)
    # The event's version when the director last changed what this player's own panel shows
    # (their game, paused or not): a change drawn by the live layer draws the panels of the
    # versions after the one it began from (a count, not a time: a write that takes long to
    # commit cannot fall between two draws).
    panel_version = models.PositiveIntegerField(default=0, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_player")
        ]
        ordering = ["rank", "pk"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.name} in {self.tournament}"

    @property
    def on_fire(self) -> bool:
        return self.streak >= 2

    @property
    def points(self) -> float:
        """The score as players read it (Swiss: whole and half points)."""
        if self.tournament.is_arena:
            return self.score
        return self.score / SCORE_SCALE

    @property
    def place(self) -> str:
        """The rank as read: 1st, 2nd, 3rd, 4th, 11th, 21st."""
        n = self.rank
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"

    @property
    def points_text(self) -> str:
        """The score as written: 3, 2½, ½ (an arena's points are whole)."""
        if self.tournament.is_arena:
            return str(self.score)
        whole, half = divmod(self.score, SCORE_SCALE)
        return (str(whole) if whole or not half else "") + ("½" if half else "")


class Pairing(models.Model):
    """One game of a tournament (or a Swiss bye: no match, no second player)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.PositiveSmallIntegerField(default=0, help_text="Swiss; 0 in an arena")
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.CASCADE, related_name="tournament_pairing"
    )
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")  # seat 1
    second = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )  # seat 2
    # 1 or 2: the seat that scored the game as won; 0: drawn; None: not over yet.
    # A bye is scored as a win of ``first``.
    won_by = models.PositiveSmallIntegerField(null=True, blank=True)
    scored = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["round", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "first"],
                condition=models.Q(round__gt=0),
                name="one_swiss_game_per_round",
            )
        ]

    def __str__(self) -> str:
        if self.second_id is None:
            return f"{self.first.name}: a bye"
        return f"{self.first.name} vs {self.second.name}"

    @property
    def is_bye(self) -> bool:
        return self.match_id is None


class Lease(models.Model):
    """Which server process runs the scheduler now (tournaments/scheduler.py): a row per
    job, taken by the process whose lease expired last; one process at a time."""

    name = models.CharField(max_length=40, primary_key=True)
    holder = models.CharField(max_length=80, blank=True)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name}: {self.holder or 'nobody'} until {self.expires_at:%H:%M:%S}"
