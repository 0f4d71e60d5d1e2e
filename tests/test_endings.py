"""Every match can end: draws by agreement, time, aborts and abandonment claims, through
the one write path. Time passes by moving a match's stamps back through the ORM."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone

from games import play, presence
from games.models import Match, Move
from tests.factories import actor, client_with_token, make_match

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
REALTIME = {"clock": "realtime", "base": 180, "increment": 2}


def clocked(game="last-bit-standing", control=REALTIME, **kwargs):
    match, t1, t2 = make_match(game, time_control=control, **kwargs)
    return match, t1, t2


def back(match, **delta):
    """Make time pass: the turn began ``delta`` earlier."""
    Match.objects.filter(pk=match.pk).update(
        turn_started_at=Match.objects.get(pk=match.pk).turn_started_at - timedelta(**delta)
    )


def play_moves(match, t1, t2, moves):
    tokens = {1: t1, 2: t2}
    for ply, text in enumerate(moves):
        fresh = Match.objects.get(pk=match.pk)
        seat = fresh.seat_of_player(fresh.current.to_move)
        play.submit_move(match.public_id, by=actor(fresh, tokens[seat]), text=text, ply=ply)


# ---- draws -----------------------------------------------------------------------


def test_a_draw_offered_and_accepted():
    match, t1, t2 = make_match("last-bit-standing")
    play.offer_draw(match.public_id, by=actor(match, t1))
    assert Match.objects.get(pk=match.pk).draw_offer == 1
    ended = play.answer_draw(match.public_id, by=actor(match, t2), accept=True)
    assert ended.status == "finished" and ended.winner is None and ended.ending == "agreement"
    assert ended.result_text == "Player 2 (Bob) accepted the draw."
    page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert "Draw by agreement" in page


def test_a_move_by_the_offerers_opponent_declines_and_one_offer_stands_at_a_time():
    match, t1, t2 = make_match("last-bit-standing")
    play.offer_draw(match.public_id, by=actor(match, t1))
    with pytest.raises(play.Refused, match="offered a draw"):
        play.offer_draw(match.public_id, by=actor(match, t1))
    play_moves(match, t1, t2, ["0"])  # the offerer moves: the offer stands
    assert Match.objects.get(pk=match.pk).draw_offer == 1
    fresh = Match.objects.get(pk=match.pk)
    play.submit_move(match.public_id, by=actor(fresh, t2), text="1", ply=1)  # the opponent moves
    assert Match.objects.get(pk=match.pk).draw_offer is None
    with pytest.raises(play.Refused, match="no draw offer"):
        play.answer_draw(match.public_id, by=actor(match, t1), accept=True)


def test_an_offer_declined_or_withdrawn_and_two_offers_agree():
    match, t1, t2 = make_match("last-bit-standing")
    play.offer_draw(match.public_id, by=actor(match, t1))
    play.answer_draw(match.public_id, by=actor(match, t2), accept=False)
    assert Match.objects.get(pk=match.pk).draw_offer is None
    play.offer_draw(match.public_id, by=actor(match, t2))
    play.withdraw_draw(match.public_id, by=actor(match, t2))
    assert Match.objects.get(pk=match.pk).draw_offer is None
    play.offer_draw(match.public_id, by=actor(match, t1))
    ended = play.offer_draw(match.public_id, by=actor(match, t2))  # both offered: agreed
    assert ended.ending == "agreement"


def test_spectators_cannot_offer_answer_claim_or_abort():
    match, t1, _ = clocked()
    play.offer_draw(match.public_id, by=actor(match, t1))
    nobody = play.Actor()
    for action in (
        lambda: play.offer_draw(match.public_id, by=nobody),
        lambda: play.answer_draw(match.public_id, by=nobody, accept=True),
        lambda: play.withdraw_draw(match.public_id, by=nobody),
        lambda: play.abort(match.public_id, by=nobody),
        lambda: play.claim(match.public_id, by=nobody, win=True),
    ):
        with pytest.raises(play.Refused):
            action()
    fresh = Match.objects.get(pk=match.pk)
    assert fresh.status == "playing" and fresh.draw_offer == 1
    response = Client().post(f"/m/{match.public_id}/draw/answer", {"answer": "accept"}, **HTMX)
    assert response.status_code == 403
    assert "only its players" in response.content.decode()


@pytest.mark.parametrize(
    ("game", "options", "accepts"),
    [
        ("last-bit-standing", None, True),  # careful play never ends: nobody can force a win
        ("bit-flip", {"width": 8}, False),  # the first player (the computer) wins: it declines
    ],
)
def test_the_computer_accepts_exactly_when_nobody_can_force_a_win(game, options, accepts):
    match, t1, _ = make_match(game, mode="computer", first="opponent", options=options)
    if game == "bit-flip":
        play.computer_move(match.public_id)  # the computer opens
    client = client_with_token(t1)
    answer = client.post(f"/m/{match.public_id}/draw", **HTMX).content.decode()
    fresh = Match.objects.get(pk=match.pk)
    assert fresh.get_mode_display() == "The computer"
    if accepts:
        assert fresh.ending == "agreement" and fresh.ended_by == 2
        assert "Draw by agreement" in answer
    else:
        assert fresh.status == "playing" and fresh.draw_offer is None
        assert "The computer declines" in answer


# ---- time ------------------------------------------------------------------------


def test_a_move_after_the_flag_fell_loses_on_time():
    match, t1, t2 = clocked()
    play_moves(match, t1, t2, ["0", "1"])  # both first moves (free): clocks run from here
    Match.objects.filter(pk=match.pk).update(seat1_ms=1_000)
    back(match, seconds=2)
    fresh = Match.objects.get(pk=match.pk)
    with pytest.raises(play.TimeRanOut, match="lost on time"):
        play.submit_move(match.public_id, by=actor(fresh, t1), text="0", ply=2)
    ended = Match.objects.get(pk=match.pk)
    assert ended.ending == "time" and ended.winner == 2 and ended.seat1_ms == 0
    assert ended.result_text == "Player 1 (Ada) ran out of time."
    assert Move.objects.filter(match=match).count() == 2


def test_moves_charge_the_clock_and_record_their_time():
    match, t1, t2 = clocked()
    play_moves(match, t1, t2, ["0", "1"])
    back(match, seconds=10)
    play_moves_from = Match.objects.get(pk=match.pk)
    play.submit_move(match.public_id, by=actor(play_moves_from, t1), text="0", ply=2)
    fresh = Match.objects.get(pk=match.pk)
    assert 171_000 <= fresh.seat1_ms <= 172_000  # 180 s - 10 s + 2 s
    assert fresh.seat2_ms == 180_000
    assert Move.objects.get(match=match, ply=3).time_ms >= 10_000


def test_any_read_of_a_match_whose_clock_ran_out_finishes_it_first():
    match, t1, t2 = clocked()
    play_moves(match, t1, t2, ["0", "1"])
    Match.objects.filter(pk=match.pk).update(seat1_ms=500)
    back(match, seconds=1)
    page = Client().get(match.get_absolute_url())  # a spectator just looks
    assert "ran out of time" in page.content.decode()
    assert Match.objects.get(pk=match.pk).ending == "time"


def test_the_command_finishes_overdue_correspondence_games():
    match, t1, t2 = clocked(control={"clock": "correspondence", "days": 1})
    other, _, _ = clocked(control={"clock": "correspondence", "days": 3})
    play_moves(match, t1, t2, ["0", "1"])  # both moved: a flag is a loss (before: an abort)
    back(match, days=1, seconds=1)
    back(other, days=1)
    call_command("finish_overdue")
    assert Match.objects.get(pk=match.pk).ending == "time"
    assert Match.objects.get(pk=other.pk).status == "playing"


@pytest.mark.django_db(transaction=True)
def test_a_move_and_a_flag_at_the_same_instant_give_one_outcome():
    match, t1, t2 = clocked()
    play_moves(match, t1, t2, ["0", "1"])
    Match.objects.filter(pk=match.pk).update(seat1_ms=1)
    back(match, seconds=1)
    fresh = Match.objects.get(pk=match.pk)
    results, barrier = [], threading.Barrier(2)

    def mover():
        barrier.wait()
        try:
            play.submit_move(match.public_id, by=actor(fresh, t1), text="0", ply=2)
            results.append("moved")
        except play.Refused as refusal:
            results.append(type(refusal).__name__)
        finally:
            connection.close()

    def reader():
        barrier.wait()
        play.settle_time(fresh)
        results.append("read")
        connection.close()

    threads = [threading.Thread(target=mover), threading.Thread(target=reader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ended = Match.objects.get(pk=match.pk)
    assert ended.ending == "time" and ended.winner == 2
    assert Move.objects.filter(match=match).count() == 2  # the late move never counted
    assert "moved" not in results


def race(actions) -> list[str]:
    """Run the actions at once, each in a thread of its own; what became of each."""
    barrier, outcomes = threading.Barrier(len(actions)), []

    def run(action):
        barrier.wait()
        try:
            action()
            outcomes.append("done")
        except play.Refused:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(action,)) for action in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_two_accepts_give_one_outcome():
    match, t1, t2 = make_match("last-bit-standing")
    play.offer_draw(match.public_id, by=actor(match, t1))
    accept = lambda: play.answer_draw(match.public_id, by=actor(match, t2), accept=True)  # noqa: E731
    assert sorted(race([accept, accept])) == ["done", "refused"]
    assert Match.objects.get(pk=match.pk).ending == "agreement"


@pytest.mark.django_db(transaction=True)
def test_an_accept_and_a_withdrawal_at_once_give_one_outcome():
    match, t1, t2 = make_match("last-bit-standing")
    play.offer_draw(match.public_id, by=actor(match, t1))
    outcomes = race(
        [
            lambda: play.answer_draw(match.public_id, by=actor(match, t2), accept=True),
            lambda: play.withdraw_draw(match.public_id, by=actor(match, t1)),
        ]
    )
    assert sorted(outcomes) == ["done", "refused"]
    ended = Match.objects.get(pk=match.pk)
    assert (ended.ending == "agreement") != (ended.status == "playing" and ended.draw_offer is None)


# ---- aborts ----------------------------------------------------------------------


def test_an_abort_is_refused_with_the_time_left_then_allowed_after_30_seconds():
    match, _t1, t2 = clocked()
    with pytest.raises(play.Refused, match="s to go"):
        play.abort(match.public_id, by=actor(match, t2))
    back(match, seconds=31)
    ended = play.abort(match.public_id, by=actor(match, t2))
    assert ended.ending == "aborted" and ended.winner is None
    assert "Aborted by Player 2 (Bob)" in ended.result_text


def test_no_abort_once_both_have_moved_or_without_a_clock():
    match, t1, t2 = clocked()
    play_moves(match, t1, t2, ["0", "1"])
    back(match, seconds=40)
    with pytest.raises(play.Refused, match="Both players have moved"):
        play.abort(match.public_id, by=actor(match, t1))
    plain, p1, _ = make_match("bit-flip")
    with pytest.raises(play.Refused, match="real-time clock"):
        play.abort(plain.public_id, by=actor(plain, p1))


# ---- abandonment -------------------------------------------------------------------


def test_a_claim_waits_for_the_opponent_to_be_away_long_enough():
    match, t1, _t2 = make_match("bit-flip")
    seat2 = presence.seat_set(match.public_id, 2)
    presence.store().join("bobs-page", [seat2])
    with pytest.raises(play.Refused, match="connected"):
        play.claim(match.public_id, by=actor(match, t1), win=True)
    presence.store().leave("bobs-page", [seat2])
    presence.store().stamp(presence.seen_stamp(seat2), timezone.now().timestamp() - 20)
    with override_settings(ABANDON_AFTER=60), pytest.raises(play.Refused, match="40 s to go"):
        play.claim(match.public_id, by=actor(match, t1), win=True)
    presence.store().stamp(presence.seen_stamp(seat2), timezone.now().timestamp() - 61)
    with override_settings(ABANDON_AFTER=60):
        ended = play.claim(match.public_id, by=actor(match, t1), win=True)
    assert ended.ending == "abandoned" and ended.winner == 1
    assert ended.result_text == "Player 2 (Bob) left the game: Player 1 (Ada) claimed the win."


def test_a_claimed_draw_and_no_claims_in_a_clocked_match():
    match, t1, _ = make_match("bit-flip")
    presence.store().stamp(
        presence.seen_stamp(presence.seat_set(match.public_id, 2)),
        timezone.now().timestamp() - 600,
    )
    ended = play.claim(match.public_id, by=actor(match, t1), win=False)
    assert ended.ending == "abandoned" and ended.winner is None
    assert "called it a draw" in ended.result_text
    timed, c1, _ = clocked()
    with pytest.raises(play.Refused, match="without a clock"):
        play.claim(timed.public_id, by=actor(timed, c1), win=True)


def test_offers_answers_and_claims_work_as_plain_forms_without_javascript():
    match, t1, t2 = make_match("last-bit-standing")
    ada, bob = client_with_token(t1), client_with_token(t2)
    response = ada.post(f"/m/{match.public_id}/draw")
    assert response.status_code == 303 and response["Location"] == match.get_absolute_url()
    page = bob.get(match.get_absolute_url()).content.decode()
    assert "Player 1 (Ada) offers a draw." in page
    assert f'action="/m/{match.public_id}/draw/answer"' in page
    assert bob.post(f"/m/{match.public_id}/draw/answer", {"answer": "decline"}).status_code == 303
    assert Match.objects.get(pk=match.pk).draw_offer is None
    # The claim is a form in the page; it shows (by CSS) when the opponent is away.
    assert f'action="/m/{match.public_id}/claim"' in page


def test_a_clock_is_for_people_and_its_bounds_are_checked():
    from tests.test_views import form_data

    client = Client()
    # The page hides the clock against the computer, so a clock sent with it is ignored;
    # the write path itself refuses one.
    ignored = client.post(
        "/games/bit-flip/new/",
        form_data("bit-flip", opponent="computer", time_control="3+2"),
    )
    assert ignored.status_code == 303
    against_computer = Match.objects.get()
    assert (against_computer.mode, against_computer.clock) == ("computer", "")
    with pytest.raises(ValueError, match="A clock is for a match between people"):
        play.create_match(
            "bit-flip",
            token="t",
            mode="computer",
            level="strong",
            time_control={"clock": "realtime", "base": 180, "increment": 2},
        )
    against_computer.delete()
    too_long = client.post(
        "/games/bit-flip/new/", form_data("bit-flip", time_control="custom", minutes="500")
    )
    assert too_long.status_code == 400
    made = client.post(
        "/games/bit-flip/new/",
        form_data("bit-flip", time_control="custom", minutes="7", increment="4"),
    )
    assert made.status_code == 303
    match = Match.objects.get()
    assert (match.clock, match.clock_base, match.clock_increment) == ("realtime", 420, 4)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Clock: 7+4" in page


# ---- the server's own aborts, and a flag before both players moved --------------------


def test_the_server_aborts_a_first_move_that_never_came_at_twice_the_abort_window():
    match, _t1, t2 = clocked()
    back(match, seconds=31)  # a player may abort now; the server has not yet
    page = Client().get(match.get_absolute_url()).content.decode()
    assert Match.objects.get(pk=match.pk).status == "playing"
    assert "has <span data-left>" in page and "s to make a first move" in page
    back(match, seconds=30)  # 61 s: the server's read aborts it, with no result
    page = Client().get(match.get_absolute_url()).content.decode()
    ended = Match.objects.get(pk=match.pk)
    assert (ended.status, ended.ending, ended.winner, ended.ended_by) == (
        "finished",
        "aborted",
        None,
        None,
    )
    assert ended.result_text == (
        "Aborted: a first move did not come in time, so the game has no result."
    )
    assert "Aborted: no result" in page
    with pytest.raises(play.Refused):  # a move after that is refused
        play.submit_move(match.public_id, by=actor(ended, t2), text="0", ply=0)


def test_a_first_move_late_by_the_window_only_is_still_played():
    match, t1, _ = clocked()
    back(match, seconds=40)
    play.submit_move(match.public_id, by=actor(match, t1), text="0", ply=0)
    assert Match.objects.get(pk=match.pk).status == "playing"


def test_the_abort_window_follows_its_setting(settings):
    settings.ABORT_AFTER = 5
    match, t1, _ = clocked()
    with pytest.raises(play.Refused, match="for 5 seconds"):
        play.abort(match.public_id, by=actor(match, t1))
    back(match, seconds=6)
    page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert 'id="abort"' in page and "you may abort in" not in page
    back(match, seconds=5)
    assert play.settle_time(Match.objects.get(pk=match.pk)).ending == "aborted"


def test_the_abort_button_counts_down_to_when_it_may_be_pressed():
    match, t1, t2 = clocked()
    for token in (t1, t2):
        page = client_with_token(token).get(match.get_absolute_url()).content.decode()
        found = re.search(r'<form[^>]*id="abort"[^>]*data-wait-ms="(\d+)"', page)
        assert found and 25_000 < int(found[1]) <= 30_000
        assert re.search(r"you may abort in <span data-left>(29|30)</span> s", page)
        assert re.search(r'<button class="btn secondary" type="submit" disabled>Abort', page)
    spectator = Client().get(match.get_absolute_url()).content.decode()
    assert 'id="abort"' not in spectator and "s to make a first move" in spectator


def test_a_correspondence_flag_before_both_moved_aborts_without_a_result():
    match, _t1, _t2 = clocked(control={"clock": "correspondence", "days": 1})
    back(match, days=1, seconds=1)
    call_command("finish_overdue")
    ended = Match.objects.get(pk=match.pk)
    assert (ended.ending, ended.winner, ended.has_result) == ("aborted", None, False)


@pytest.mark.parametrize(("moves", "who"), [(0, 1), (0, 2), (1, 1), (1, 2)])
def test_resigning_before_both_moved_aborts_without_a_result(moves, who):
    """Issue 22: a game in which a player has not moved counts for nothing, as on lichess
    (14 rated games resigned at once had moved two accounts by 162 points each)."""
    match, t1, t2 = make_match("bit-flip")
    if moves:
        play.submit_move(match.public_id, by=actor(match, t1), text="3", ply=0)
    ended = play.resign(match.public_id, by=actor(match, {1: t1, 2: t2}[who]))
    assert (ended.ending, ended.winner, ended.has_result, ended.ended_by) == (
        "aborted",
        None,
        False,
        who,
    )
    name = {1: "Player 1 (Ada)", 2: "Player 2 (Bob)"}[who]
    assert ended.result_text == f"Aborted by {name} before both players had moved: no result."
    assert ended.headline(frozenset({1})) == "Aborted: no result"


def test_once_both_moved_resigning_loses_and_the_button_says_which():
    match, t1, t2 = make_match("bit-flip")
    page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert "A player has not moved yet, so it is aborted, with no result." in page
    play.submit_move(match.public_id, by=actor(match, t1), text="3", ply=0)
    play.submit_move(match.public_id, by=actor(match, t2), text="5", ply=1)
    page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert 'hx-confirm="Resign this game?"' in page and "not moved yet" not in page
    ended = play.resign(match.public_id, by=actor(match, t1))
    assert (ended.ending, ended.winner) == ("resigned", 2)


def test_on_one_device_or_against_the_computer_resigning_at_once_still_loses():
    """Only a friend's match is aborted: on one device or against the computer nobody else's
    game is at stake, and the board says who won."""
    for mode in ("hotseat", "computer"):
        match, t1, _ = make_match("bit-flip", mode=mode)
        ended = play.resign(match.public_id, by=actor(match, t1))
        assert ended.ending == "resigned" and ended.winner == 2


# ---- the claim's wait, as its setting says ------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(60, "a minute"), (2, "2 seconds"), (120, "2 minutes"), (90, "90 seconds")],
)
def test_the_claim_panel_says_the_wait_its_setting_gives(settings, seconds, words):
    settings.ABANDON_AFTER = seconds
    match, t1, _ = make_match("bit-flip")
    page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert f"Once they have been away for {words}, you may end the game" in page
    assert f'data-wait-ms="{seconds * 1000}" data-wait-from="#presence-seat2"' in page


def test_the_claim_panel_counts_from_when_the_opponent_left():
    match, t1, _ = make_match("bit-flip")
    seat2 = presence.seat_set(match.public_id, 2)
    presence.store().stamp(presence.seen_stamp(seat2), timezone.now().timestamp() - 20)
    with override_settings(ABANDON_AFTER=60):
        page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert re.search(r'id="presence-seat2" data-online="no" data-away-ms="2\d{4}"', page)
    assert re.search(r"\(in <span data-left>(39|40)</span> s\)", page)
    assert re.search(r'type="submit" disabled>Claim the win', page)
    presence.store().stamp(presence.seen_stamp(seat2), timezone.now().timestamp() - 61)
    with override_settings(ABANDON_AFTER=60):
        page = client_with_token(t1).get(match.get_absolute_url()).content.decode()
    assert re.search(r'type="submit">Claim the win', page)
