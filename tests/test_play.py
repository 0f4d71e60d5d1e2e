"""The one write path: seats, turns, plies, races, resign, rematch, the computer."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import play
from games.models import Match, Move
from games.rules import get_game
from tests.factories import actor, both_moved, make_match

pytestmark = pytest.mark.django_db


def test_a_legal_move_writes_one_row_and_the_new_position():
    match, t1, _ = make_match("bit-flip")
    play.submit_move(match.public_id, by=actor(match, t1), text="5 4", ply=0)
    match.refresh_from_db()
    assert match.ply == 1
    assert match.version == 2  # join, then the move
    assert match.position["bits"] == "00011000"
    move = Move.objects.get(match=match)
    assert (move.ply, move.seat, move.player, move.text) == (1, 1, 1, "4 5")


def test_wrong_seat_is_refused_and_changes_nothing():
    match, _, t2 = make_match("bit-flip")
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t2), text="1", ply=0)
    assert "not your turn" in refusal.value.message
    assert isinstance(refusal.value, play.NotYourTurn)
    assert Move.objects.count() == 0
    match.refresh_from_db()
    assert match.ply == 0


def test_a_spectator_cannot_move():
    match, _, _ = make_match("bit-flip")
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=play.Actor(frozenset()), text="1", ply=0)
    assert isinstance(refusal.value, play.NotAPlayer)
    assert Move.objects.count() == 0


def test_a_stale_ply_is_refused_without_a_move_or_forfeit():
    match, t1, _ = make_match("bit-flip-divisor")
    play.submit_move(match.public_id, by=actor(match, t1), text="8", ply=0)
    # The same page submitted again (a double click): ply 0 has passed.
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t1), text="8", ply=0)
    assert "out of date" in refusal.value.message
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING  # the stale "8" did not forfeit
    assert Move.objects.filter(match=match).count() == 1


def test_an_illegal_move_is_refused_with_the_rules_message():
    match, t1, _ = make_match("bit-flip")
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t1), text="3 5", ply=0)
    assert isinstance(refusal.value, play.IllegalMove)
    assert "not adjacent" in refusal.value.message
    assert Move.objects.count() == 0


def test_divisor_forfeit_is_a_recorded_losing_move():
    match, t1, _ = make_match("bit-flip-divisor")
    play.submit_move(match.public_id, by=actor(match, t1), text="9", ply=0)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner == 2
    assert "outside 1-8" in match.result_text
    assert list(match.moves.values_list("text", flat=True)) == ["9"]


def test_moves_before_the_opponent_joins_are_refused():
    match, t1, _ = make_match("bit-flip", joined=False)
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=0)
    assert "waiting for a second player" in refusal.value.message


def test_a_finished_game_refuses_moves():
    match, t1, t2 = make_match("bit-flip", options={"width": 2})
    play.submit_move(match.public_id, by=actor(match, t1), text="1 2", ply=0)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner == 1
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t2), text="1", ply=1)
    assert "over" in refusal.value.message


def test_first_seat_maps_players_to_seats():
    match, t1, t2 = make_match("last-digit-standing", first="opponent")
    assert match.first_seat == 2
    # Seat 2 (the joiner) is Player 1 and moves first.
    with pytest.raises(play.Refused):
        play.submit_move(match.public_id, by=actor(match, t1), text="5", ply=0)
    play.submit_move(match.public_id, by=actor(match, t2), text="5", ply=0)
    assert Move.objects.get().seat == 2
    assert Move.objects.get().player == 1


def test_join_takes_seat_two_once():
    match, t1, _ = make_match("bit-flip", joined=False)
    with pytest.raises(play.Refused) as own:
        play.join(match.public_id, token=t1)
    assert "your own match" in own.value.message
    play.join(match.public_id, token="second-browser-token-0123456789")
    with pytest.raises(play.Refused) as late:
        play.join(match.public_id, token="third-browser-token-0123456789")
    assert "spectator" in late.value.message
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.seats_for(["third-browser-token-0123456789"]) == set()


def test_resign_ends_the_game_for_the_other_player():
    match, t1, t2 = make_match("last-bit-standing")
    both_moved(match)  # before that, a resignation aborts (tests/test_endings.py)
    play.resign(match.public_id, by=actor(match, t2))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner == 1
    assert "Player 2 (Bob) resigned" in match.result_text
    with pytest.raises(play.Refused):
        play.resign(match.public_id, by=actor(match, t1))


def test_resign_before_anyone_joined_cancels_without_a_winner():
    match, t1, _ = make_match("bit-flip", joined=False)
    play.resign(match.public_id, by=actor(match, t1))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner is None
    with pytest.raises(play.Refused):
        play.rematch(match.public_id, by=actor(match, t1))


def test_rematch_swaps_the_first_move_and_keeps_the_seats():
    match, t1, t2 = make_match("bit-flip", options={"width": 5})
    play.resign(match.public_id, by=actor(match, t1))
    new = play.rematch(match.public_id, by=actor(match, t2))
    assert new.first_seat == 2
    assert new.options == {"width": 5}
    assert new.status == Match.Status.PLAYING
    assert new.seats_for([t1]) == {1}
    assert new.seats_for([t2]) == {2}
    # Asking again gives the same rematch.
    assert play.rematch(match.public_id, by=actor(match, t1)).pk == new.pk
    assert Match.objects.count() == 2


def test_hotseat_holds_both_seats_and_resign_is_by_the_player_to_move():
    match, t1, _ = make_match("bit-flip", mode="hotseat")
    assert match.seats_for([t1]) == {1, 2}
    play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=0)
    play.resign(match.public_id, by=actor(match, t1))
    match.refresh_from_db()
    assert match.winner == 1  # Player 2 was to move and resigned


def test_the_computer_replies_through_the_same_path():
    match, t1, _ = make_match("last-digit-standing", mode="computer", level="perfect")
    play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=0)
    after = play.computer_move(match.public_id)
    assert after is not None
    assert after.ply == 2
    replies = list(Move.objects.filter(match=match).values_list("seat", flat=True))
    assert replies == [1, 2]
    # Nothing to do when it is not the computer's turn.
    assert play.computer_move(match.public_id) is None


def test_the_computer_cannot_be_moved_for_by_a_player():
    match, t1, _ = make_match("bit-flip", mode="computer", first="opponent")
    # The computer (seat 2) moves first; the human may not move for it.
    with pytest.raises(play.Refused) as refusal:
        play.submit_move(match.public_id, by=actor(match, t1), text="1", ply=0)
    assert "computer" in refusal.value.message


def test_computer_moves_are_deterministic_per_match_seed():
    match, _, _ = make_match("bit-flip", mode="computer", first="opponent", level="random")
    first = play.computer_move(match.public_id).moves.get().text
    match2, _, _ = make_match("bit-flip", mode="computer", first="opponent", level="random")
    Match.objects.filter(pk=match2.pk).update(computer_seed=match.computer_seed)
    assert play.computer_move(match2.public_id).moves.get().text == first


def test_stored_position_is_the_replay_of_the_move_log():
    match, t1, t2 = make_match("last-bit-standing")
    tokens = {1: t1, 2: t2}
    for ply, bit in enumerate(["0", "1", "1", "0", "0"]):
        match.refresh_from_db()
        seat = match.seat_of_player(match.current.to_move)
        play.submit_move(match.public_id, by=actor(match, tokens[seat]), text=bit, ply=ply)
    match.refresh_from_db()
    game = get_game("last-bit-standing")
    pos = game.start()
    for text in match.moves.values_list("text", flat=True):
        pos = game.play(pos, text)
    assert game.to_json(pos) == match.position


def _race(match, tokens, texts, ply):
    """Submit one move per thread, all for the same ply, at the same instant."""
    barrier = threading.Barrier(len(texts))
    results = []

    def submit(token, text):
        try:
            barrier.wait()
            play.submit_move(match.public_id, by=actor(match, token), text=text, ply=ply)
            results.append("ok")
        except play.Refused as refusal:
            results.append(refusal.message)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=submit, args=(t, x)) for t, x in zip(tokens, texts, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_same_ply_race_produces_exactly_one_move(attempt):
    match, t1, _ = make_match("bit-flip-divisor")
    results = _race(match, [t1] * 4, ["1", "2", "3", "4"], ply=0)
    assert results.count("ok") == 1
    assert all("out of date" in r for r in results if r != "ok")
    assert Move.objects.filter(match=match).count() == 1
    match.refresh_from_db()
    assert match.ply == 1
    assert match.status == Match.Status.PLAYING


@pytest.mark.django_db(transaction=True)
def test_same_ply_race_on_join_gives_one_seat():
    match, _, _ = make_match("bit-flip", joined=False)
    barrier = threading.Barrier(3)
    results = []

    def claim(i):
        try:
            barrier.wait()
            play.join(match.public_id, token=f"racing-browser-{i}-0123456789abcdef")
            results.append(i)
        except play.Refused:
            pass
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 1
    match.refresh_from_db()
    assert match.seats_for([f"racing-browser-{results[0]}-0123456789abcdef"]) == {2}
