"""What the write path tells the apps built on games (games/signals.py): a match's ending
inside the transaction that ends it, exactly once; every committed change after commit."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.db import connection, transaction

from games import play, signals
from games.models import Match
from tests.factories import actor, make_match, mover_token

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def listening(signal):
    heard = []

    def receiver(sender, match, **kwargs):
        heard.append((match.public_id, match.status, connection.in_atomic_block))

    signal.connect(receiver, weak=False)
    try:
        yield heard
    finally:
        signal.disconnect(receiver)


def test_a_resignation_is_told_once_inside_its_transaction():
    match, token1, _ = make_match()
    with listening(signals.match_finished) as heard:
        play.resign(match.public_id, by=actor(match, token1))
        with pytest.raises(play.GameOver):
            play.resign(match.public_id, by=actor(match, token1))
    assert heard == [(match.public_id, Match.Status.FINISHED, True)]


@pytest.mark.parametrize("ending", ["rules", "agreement", "cancel"])
def test_every_way_of_ending_is_told_once(ending):
    match, token1, token2 = make_match(joined=ending != "cancel")
    with listening(signals.match_finished) as heard:
        if ending == "rules":
            while match.status != Match.Status.FINISHED:
                token = mover_token(match, token1, token2)
                move = match.rules.legal_moves(match.current)[0]
                play.submit_move(match.public_id, by=actor(match, token), text=move, ply=match.ply)
                match.refresh_from_db()
        elif ending == "agreement":
            play.offer_draw(match.public_id, by=actor(match, token1))
            play.answer_draw(match.public_id, by=actor(match, token2), accept=True)
        else:
            play.resign(match.public_id, by=actor(match, token1))
    assert heard == [(match.public_id, Match.Status.FINISHED, True)]


def test_a_receiver_that_fails_rolls_the_ending_back():
    match, token1, _ = make_match()

    def broken(sender, match, **kwargs):
        raise RuntimeError("the ratings could not be written")

    signals.match_finished.connect(broken, weak=False)
    try:
        with pytest.raises(RuntimeError):
            play.resign(match.public_id, by=actor(match, token1))
    finally:
        signals.match_finished.disconnect(broken)
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING


def test_changes_are_told_after_commit_and_a_failing_receiver_loses_nothing():
    def broken(sender, match, **kwargs):
        raise RuntimeError("a push failed")

    signals.match_changed.connect(broken, weak=False)
    try:
        with listening(signals.match_changed) as heard:
            match, token1, _ = make_match()  # created, then joined
            play.resign(match.public_id, by=actor(match, token1))
    finally:
        signals.match_changed.disconnect(broken)
    assert [status for _, status, _ in heard] == ["waiting", "playing", "finished"]
    assert not any(atomic for _, _, atomic in heard)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED


def test_nothing_is_told_of_a_change_that_rolls_back():
    def created_then_failed():
        with transaction.atomic():
            make_match(joined=False)
            raise RuntimeError

    with listening(signals.match_changed) as heard, pytest.raises(RuntimeError):
        created_then_failed()
    assert heard == []
