"""Helpers for the review tests: matches played to the end, long logs, staff users."""

from __future__ import annotations

import random

from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test import Client
from django.utils import timezone

from games import play
from games.models import Match, Move
from games.rules import get_game
from tests.factories import actor, make_match, mover_token

REVIEWER_PERMS = ("view_match", "view_move", "change_match", "delete_match")
MOVE_COLUMNS = ("match", "ply", "seat", "player", "text", "created_at")  # time_ms: NULL
INSERTED_AT_ONCE = 1000  # rows an INSERT of long_last_bit_match's writes (6,000 parameters)


def seeded_moves(slug: str, seed: int) -> list[str]:
    """A whole game of random legal moves, the same for the same seed."""
    game, rng = get_game(slug), random.Random(seed)
    pos, moves = game.start(), []
    while not pos.over:
        move = rng.choice(game.legal_moves(pos))
        moves.append(move)
        pos = game.play(pos, move)
    return moves


# ---- a known blunder -----------------------------------------------------------------
# Bit Flip on 5 bits (Kayles). Player 1 takes the middle, 00100: whatever Player 2
# does, Player 1 answers symmetrically and fills the row. Player 2 flips bit 1:
# 10100, a run of 1 and a run of 2. Player 1 still wins by flipping bit 4 or 5
# (two single zeros left: Player 2 takes one, Player 1 the last). Instead Player 1
# flips bit 2: 11100 leaves the pair 4-5, and Player 2 fills the row with "4 5".
BLUNDER_GAME = ["3", "1", "2", "4 5"]


def played(game="bit-flip", moves=(), *, options=None, resign=False, **kwargs) -> Match:
    """A friend match (Ada holds seat 1 and moves first, Bob seat 2) with ``moves`` played
    through games.play; then the player to move resigns if ``resign``."""
    match, token1, token2 = make_match(game, options=options, **kwargs)
    for text in moves:
        token = mover_token(match, token1, token2)
        play.submit_move(match.public_id, by=actor(match, token), text=text, ply=match.ply)
        match.refresh_from_db()
    if resign:
        play.resign(match.public_id, by=actor(match, mover_token(match, token1, token2)))
    match.refresh_from_db()
    return match


def long_last_bit_match(safe_plies: int, *, lose: bool = True) -> Match:
    """A Last Bit Standing match with ``safe_plies`` safe moves (then a losing one if
    ``lose``), written straight to the database: games.play at 100,000 moves is slow
    for a test, and the log is what a replay reads. The moves go in by plain INSERTs of
    a thousand rows each (the ORM's bulk_create took most of a 100,000-move test's time,
    in preparing each row's values)."""
    match, _, _ = make_match("last-bit-standing")
    game = get_game("last-bit-standing")
    pos = game.start()
    rows = []
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    for ply in range(1, safe_plies + 1 + lose):
        safe = game.safe_moves(pos)
        if ply > safe_plies:  # the losing bit
            text = next(bit for bit in ("0", "1") if bit not in safe)
        else:
            text = safe[ply % len(safe)]
        player = pos.to_move
        rows.append((match.pk, ply, match.seat_of_player(player), player, text, now))
        pos = game.play(pos, text)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(Move._meta.get_field(name).column) for name in MOVE_COLUMNS)
    one = "(" + ", ".join(["%s"] * len(MOVE_COLUMNS)) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), INSERTED_AT_ONCE):
            chunk = rows[start : start + INSERTED_AT_ONCE]
            cursor.execute(
                f"INSERT INTO {quote(Move._meta.db_table)} ({columns}) VALUES "
                + ", ".join([one] * len(chunk)),
                [value for row in chunk for value in row],
            )
    changes = {"position": game.to_json(pos), "ply": len(rows)}
    if pos.result is not None:
        changes.update(
            status=Match.Status.FINISHED,
            winner=pos.result.winner,
            ending=pos.result.ending,
            finished_at=timezone.now(),
        )
    Match.objects.filter(pk=match.pk).update(**changes)
    match.refresh_from_db()
    return match


def staff_user(
    username="staff", perms=REVIEWER_PERMS, password="not-a-real-password", **kwargs
) -> User:
    user = User.objects.create_user(username, password=password, is_staff=True)
    for name, value in kwargs.items():
        setattr(user, name, value)
    user.save()
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="games", codename__in=perms)
    )
    return user


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client
