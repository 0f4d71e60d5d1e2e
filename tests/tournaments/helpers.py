"""Accounts, events and games played out for the tournaments' tests."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from games import play
from games.models import Match
from tournaments import director
from tournaments.models import Tournament


def accounts(*names: str):
    return [get_user_model().objects.create_user(name, password="pw-" + name) for name in names]


def event(kind="arena", *, game="bit-flip", starts_in=0, minutes=30, rounds=3, rated=True, **kw):
    """An event starting ``starts_in`` seconds from now (negative: already due)."""
    return director.create(
        name=kw.pop("name", f"Test {kind}"),
        kind=kind,
        game=game,
        starts_at=timezone.now() + timedelta(seconds=starts_in),
        minutes=minutes,
        rounds=rounds,
        rated=rated,
        **kw,
    )


def refreshed(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def seat_of(match: Match, user) -> int:
    return 1 if match.seat1_user_id == user.pk else 2


def finish(match: Match, *, winner=None) -> Match:
    """Play the game out: both players move once, then ``winner`` (an account) wins by the
    other's resignation; no winner: drawn by agreement."""
    match.refresh_from_db()
    while match.ply < 2:
        seat = match.seat_of_player(match.current.to_move)
        move = match.rules.legal_moves(match.current)[0]
        match = play.submit_move(
            match.public_id, by=play.Actor(frozenset({seat})), text=move, ply=match.ply
        )
        if match.status != Match.Status.PLAYING:
            return match
    if winner is None:
        play.offer_draw(match.public_id, by=play.Actor(frozenset({1})))
        return play.answer_draw(match.public_id, by=play.Actor(frozenset({2})), accept=True)
    loser = 3 - seat_of(match, winner)
    return play.resign(match.public_id, by=play.Actor(frozenset({loser})))


def here(t: Tournament, *users) -> None:
    """Each of ``users`` has the event's page open (a member of their presence set)."""
    from games import presence
    from tournaments import live

    for user in users:
        presence.store().join(f"page-of-{user.pk}", [live.player_set(t.public_id, user.pk)])


def queries_of_paired(monkeypatch) -> list[int]:
    """How many queries each call of ``tournaments.live.paired`` (a pairing's pushes, after
    its commit) makes, from now on."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments import live

    queries: list[int] = []
    drawn = live.paired

    def paired(tournament, entries):
        with CaptureQueriesContext(connection) as seen:
            drawn(tournament, entries)
        queries.append(len(seen))

    monkeypatch.setattr(live, "paired", paired)
    return queries
