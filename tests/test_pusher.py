"""On SQLite the writer thread commits and the pusher thread draws and sends (games/play.py):
the next write does not wait for the last one's push, and pushes leave in commit order. On
PostgreSQL each request writes and pushes in its own thread: nobody waits for anybody."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import live, play
from tests.factories import actor, make_match

pytestmark = pytest.mark.django_db(transaction=True)  # writes go through the writer thread


def test_the_next_write_commits_while_the_last_ones_push_is_drawn_and_pushes_keep_order(
    monkeypatch,
):
    first, a1, _ = make_match("bit-flip")
    second, b1, _ = make_match("bit-flip")
    drawing = threading.Event()
    release = threading.Event()
    sent = []
    prepare, send = live.Push.prepare, live.Push.send

    def slow_prepare(push):
        if push.match.public_id == first.public_id:
            drawing.set()
            assert release.wait(10)
        prepare(push)

    def recorded_send(push):
        sent.append(push.match.public_id)
        send(push)

    monkeypatch.setattr(live.Push, "prepare", slow_prepare)
    monkeypatch.setattr(live.Push, "send", recorded_send)

    answered = []
    mover = threading.Thread(
        target=lambda: answered.append(
            play.submit_move(first.public_id, by=actor(first, a1), text="5 4", ply=0)
        )
    )
    mover.start()
    assert drawing.wait(10)  # the first move committed; its push is being drawn
    committed = play._writer.submit(lambda: None)  # the writer is free for the next write
    committed.result(timeout=10)
    moved = play.submit_move  # the second move commits now, its push queues behind
    other = threading.Thread(
        target=lambda: moved(second.public_id, by=actor(second, b1), text="5 4", ply=0)
    )
    other.start()
    second.refresh_from_db()
    for _ in range(100):
        if second.ply == 1:
            break
        other.join(0.05)
        second.refresh_from_db()
    assert second.ply == 1  # committed while the first push was still being drawn
    assert not answered  # the first mover still waits for its push
    sqlite = connection.vendor == "sqlite"
    if not sqlite:
        other.join(10)  # its push left from its own thread, behind nobody's
        assert sent == [second.public_id]
    release.set()
    mover.join(10)
    other.join(10)
    assert answered and answered[0].ply == 1  # the first mover answered once its push left
    if sqlite:
        assert sent == [first.public_id, second.public_id]  # in the order of the commits
    else:
        assert sent == [second.public_id, first.public_id]


def test_a_receiver_that_writes_from_the_pusher_thread_runs_inline_and_freezes_nothing():
    """An app's receiver of match_changed runs where the pushes are delivered (on SQLite,
    the pusher thread). A write it makes runs there, inline: queued behind its own thread
    it would wait for itself, and every write of the process with it."""
    from games import signals

    match, t1, _ = make_match("bit-flip")
    other, o1, _ = make_match("bit-flip")
    threads = []

    def answer_with_a_draw_offer(sender, match, **kwargs):
        if match.public_id == other.public_id and match.ply == 1 and match.draw_offer is None:
            threads.append(threading.current_thread().name)
            play.offer_draw(match.public_id, by=actor(match, o1))

    signals.match_changed.connect(answer_with_a_draw_offer)
    try:
        done = []
        mover = threading.Thread(
            target=lambda: done.append(
                play.submit_move(other.public_id, by=actor(other, o1), text="5 4", ply=0)
            ),
            daemon=True,
        )
        mover.start()
        mover.join(10)
        assert done, "the move never came back: the receiver's write waited for itself"
        # Every other write of the process goes on.
        moved = play.submit_move(match.public_id, by=actor(match, t1), text="5 4", ply=0)
        assert moved.ply == 1
    finally:
        signals.match_changed.disconnect(answer_with_a_draw_offer)
    other.refresh_from_db()
    assert other.draw_offer == 1  # the receiver's write committed
    if connection.vendor == "sqlite":
        assert threads == ["bitsite-pusher_0"]
