"""The migration that turned each finished match's reason into an ending, on old rows."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.rules import get_game

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0003_choices_and_constraints")]
AFTER = [("games", "0004_endings")]


def old_result(game, pos, reason):
    """A position as the site stored it before: the result as a winner and a sentence."""
    data = game.to_json(pos)
    if pos.result is not None:
        data["result"] = {"winner": pos.result.winner, "reason": reason}
    return data


def test_old_finished_matches_get_their_ending_and_a_position_in_the_new_form():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    Match, Move = apps.get_model("games", "Match"), apps.get_model("games", "Move")
    game = get_game("last-digit-standing")

    def old_match(moves, **fields):
        pos = game.start()
        for text in moves:
            pos = game.play(pos, text)
        match = Match.objects.create(
            game=game.slug, options={"highest": 9}, mode="friend", first_seat=1, **fields
        )
        for ply, text in enumerate(moves, start=1):
            Move.objects.create(
                match=match, ply=ply, seat=1 + (ply - 1) % 2, player=1 + (ply - 1) % 2, text=text
            )
        return match, pos

    from django.utils import timezone

    now = timezone.now()
    won, won_pos = old_match(
        ["3", "6", "2", "4", "8", "1", "5"],
        status="finished",
        winner=1,
        finished_at=now,
        position={},
    )
    Match.objects.filter(pk=won.pk).update(
        position=old_result(game, won_pos, "Player 2 cannot ..."), reason="Player 2 cannot ..."
    )
    resigned, resigned_pos = old_match(
        ["6", "3"], status="finished", winner=2, finished_at=now, position={}
    )
    gave_up = game.resign(resigned_pos, 1)
    Match.objects.filter(pk=resigned.pk).update(
        position=old_result(game, gave_up, "Player 1 (Ada) resigned."),
        reason="Player 1 (Ada) resigned.",
    )
    cancelled, start = old_match([], status="finished", winner=None, finished_at=now, position={})
    Match.objects.filter(pk=cancelled.pk).update(
        position=game.to_json(start), reason="Cancelled before an opponent joined."
    )
    playing, playing_pos = old_match(["6"], status="playing", position={})
    Match.objects.filter(pk=playing.pk).update(position=game.to_json(playing_pos))

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from games.models import Match as Now

    rows = {m.pk: m for m in Now.objects.all()}
    assert rows[won.pk].ending == "no_move"
    assert rows[won.pk].result_text.startswith("Player 2 cannot remove a divisor or multiple of 5")
    assert game.from_json(rows[won.pk].position).result.winner == 1
    assert rows[resigned.pk].ending == "resigned"
    assert game.from_json(rows[resigned.pk].position).result.ending.value == "resigned"
    assert rows[cancelled.pk].ending == "cancelled"
    assert rows[cancelled.pk].result_text == "Cancelled before an opponent joined."
    assert rows[playing.pk].ending == "" and rows[playing.pk].current.ply == 1
