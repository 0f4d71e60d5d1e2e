"""Nothing waits on Redis while the write lock is held: who has a page open (the presence
sets, Redis with several processes) is read before a write, never inside its transaction.

Every read of the presence store is recorded with whether its thread's connection was
inside a transaction at that moment; the writes that need presence (a claim, accepting a
challenge, "Play anyone", the lobby's sweep) are made the way the site makes them, on the
SQLite writer thread or in the request's thread on PostgreSQL.
"""

from __future__ import annotations

import time

import pytest
from django.db import connection

from games import play, presence
from games.models import Match, new_secret
from lobby import challenges
from tests.factories import actor, make_match

pytestmark = pytest.mark.django_db(transaction=True)  # no outer transaction around a write


@pytest.fixture
def reads(monkeypatch):
    """Each presence read: (what, inside a transaction?)."""
    found = []
    store = type(presence.store())
    for name in ("counts", "stamped", "stamped_many"):
        original = getattr(store, name)

        def recorded(self, *args, _original=original, _name=name, **kwargs):
            found.append((_name, connection.in_atomic_block))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(store, name, recorded)
    return found


def left(public_id: str, seat: int, seconds_ago: float) -> None:
    name = presence.seen_stamp(presence.seat_set(public_id, seat))
    presence.store().stamp(name, time.time() - seconds_ago)


def test_a_claim_reads_who_left_before_its_write(reads, settings):
    settings.ABANDON_AFTER = 60
    match, t1, _ = make_match("bit-flip")
    left(match.public_id, 2, 61)
    claimed = play.claim(match.public_id, by=actor(match, t1), win=True)
    assert claimed.ending == Match.Ending.ABANDONED and claimed.winner == 1
    assert reads and not [read for read in reads if read[1]], reads


def test_accepting_and_sweeping_challenges_read_presence_before_their_writes(reads, settings):
    settings.LOBBY_CREATOR_AWAY = 60
    taken = play.create_match("bit-flip", token=new_secret(), listed=True)
    gone = play.create_match("bit-flip-divisor", token=new_secret(), listed=True)
    swept = play.create_match("last-bit-standing", token=new_secret(), listed=True)
    challenges.accept(taken.public_id, token=new_secret())
    left(gone.public_id, 1, 61)
    with pytest.raises(challenges.Expired):
        challenges.accept(gone.public_id, token=new_secret())
    left(swept.public_id, 1, 61)
    assert challenges.sweep() == 0
    endings = dict(Match.objects.values_list("public_id", "ending"))
    assert endings[taken.public_id] == ""  # in play
    assert endings[gone.public_id] == endings[swept.public_id] == Match.Ending.CANCELLED
    assert reads and not [read for read in reads if read[1]], reads


def test_play_anyone_reads_presence_before_its_write(reads):
    waiting, first = challenges.play_anyone("bit-flip", token=new_secret())
    assert first == challenges.Pairing.OPENED
    taken, paired = challenges.play_anyone("bit-flip", token=new_secret())
    assert paired == challenges.Pairing.TOOK and taken.pk == waiting.pk
    assert reads and not [read for read in reads if read[1]], reads
