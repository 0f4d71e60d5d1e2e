"""The clock, alone: charges, increments, flags, deadlines, aborts, as the server counts
them (an injected "now": no test waits for time to pass)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from games import clock

T0 = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def a_match(**fields):
    match = dict(
        status="playing",
        clock="realtime",
        clock_base=180,
        clock_increment=2,
        clock_days=0,
        seat1_ms=180_000,
        seat2_ms=180_000,
        turn_started_at=T0,
        ply=2,
    )
    match.update(fields)
    return SimpleNamespace(**match)


def test_a_move_charges_the_mover_and_adds_the_increment():
    match = a_match()
    changes, used = clock.on_move(match, 1, T0 + timedelta(seconds=10))
    assert used == 10_000
    assert changes == {"turn_started_at": T0 + timedelta(seconds=10), "seat1_ms": 172_000}


def test_each_players_first_move_is_free_but_timed():
    for ply in (0, 1):
        changes, used = clock.on_move(a_match(ply=ply), 1, T0 + timedelta(seconds=25))
        assert used == 25_000
        assert "seat1_ms" not in changes and "seat2_ms" not in changes
        assert not clock.running(a_match(ply=ply))


def test_the_side_to_move_flags_when_its_time_is_gone_and_not_before():
    match = a_match(seat2_ms=5_000)
    assert clock.flagged_seat(match, 2, T0 + timedelta(milliseconds=4_999)) is None
    assert clock.flagged_seat(match, 2, T0 + timedelta(seconds=5)) == 2
    # The waiting side's clock does not run.
    assert clock.time_left_ms(match, 1, 2, T0 + timedelta(hours=1)) == 180_000
    # No allowance: a move that arrives after the flag fell is late, however little.
    assert clock.time_left_ms(match, 2, 2, T0 + timedelta(milliseconds=5_001)) == -1


def test_a_finished_or_not_started_match_never_flags():
    assert clock.flagged_seat(a_match(status="finished", seat1_ms=0), 1, T0 + timedelta(1)) is None
    assert clock.flagged_seat(a_match(turn_started_at=None), 1, T0 + timedelta(1)) is None


def test_correspondence_moves_are_due_days_after_their_turn_began():
    match = a_match(clock="correspondence", clock_base=0, clock_increment=0, clock_days=3, ply=0)
    assert clock.deadline(match) == T0 + timedelta(days=3)
    assert clock.flagged_seat(match, 1, T0 + timedelta(days=3, seconds=-1)) is None
    assert clock.flagged_seat(match, 1, T0 + timedelta(days=3)) == 1
    changes, used = clock.on_move(match, 1, T0 + timedelta(days=2))
    assert changes == {"turn_started_at": T0 + timedelta(days=2)} and used == 2 * 86_400_000


def test_a_match_can_be_aborted_when_a_first_move_has_not_come_in_30_seconds():
    assert not clock.abortable(a_match(ply=0), T0 + timedelta(seconds=29))
    assert clock.abortable(a_match(ply=0), T0 + timedelta(seconds=30))
    assert clock.abortable(a_match(ply=1), T0 + timedelta(seconds=31))
    assert not clock.abortable(a_match(ply=2), T0 + timedelta(minutes=5))
    assert not clock.abortable(a_match(ply=0, clock="correspondence"), T0 + timedelta(days=1))


def test_the_clock_faces_as_a_board_shows_them():
    match = a_match(seat1_ms=65_000, seat2_ms=9_450)
    faces = clock.faces(match, 2, T0 + timedelta(seconds=1))
    assert [(f.seat, f.ms, f.runs, f.low) for f in faces] == [
        (1, 65_000, False, False),
        (2, 8_450, True, True),
    ]
    assert [f.text for f in faces] == ["1:05", "0:08.4"]
    assert clock.describe(match) == "3+2"
    assert clock.describe(a_match(clock="correspondence", clock_days=1)) == "1 day a move"


def test_before_the_match_starts_both_clocks_show_the_base_time():
    """Issue 22, bug 2: a real-time match waiting for its second player showed 0:00.0."""
    waiting = a_match(status="waiting", clock_base=60, seat1_ms=0, seat2_ms=0)
    waiting.turn_started_at, waiting.ply = None, 0
    faces = clock.faces(waiting, 1, T0)
    assert [(f.text, f.runs, f.low) for f in faces] == [("1:00", False, False)] * 2


def test_tenths_under_ten_seconds_are_rounded_down_as_the_page_counts():
    faces = clock.faces(a_match(seat1_ms=9_950, seat2_ms=10_000), 1, T0)
    assert [f.text for f in faces] == ["0:09.9", "0:10"]


def test_a_correspondence_clock_shows_days_and_hours_left():
    match = a_match(clock="correspondence", clock_base=0, clock_increment=0, clock_days=3, ply=0)
    faces = clock.faces(match, 1, T0 + timedelta(hours=20, minutes=30))
    assert [(f.seat, f.text, f.runs, f.low) for f in faces] == [
        (1, "2 days 3 h", True, False),
        (2, "3 days", False, False),  # the side not to move has its whole days
    ]
    assert clock.faces(a_match(clock="correspondence", status="finished"), 1, T0) == []
    hour, minute = 3_600_000, 60_000
    words = [
        clock.long_text(ms)
        for ms in (86_400_000 + 1, 5 * hour + 12 * minute, hour, 3 * minute + 5, 40_500)
    ]
    assert words == ["1 day", "5 h 12 min", "1 h", "3 min", "40 s"]
