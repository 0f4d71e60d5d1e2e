"""Tournaments in the admin: staff create an event through the write path and review it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.replays import logged_in, staff_user
from tests.tournaments.helpers import accounts, event, finish
from tournaments import director
from tournaments.models import Pairing, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_superuser_creates_an_arena_in_the_admin_and_its_terms_are_then_fixed():
    admin = staff_user("boss", is_superuser=True)
    client = logged_in(admin)
    form = {
        "name": "Staff arena",
        "kind": "arena",
        "game": "bit-flip",
        "clock_base": 180,
        "clock_increment": 2,
        "rated": "on",
        "starts_at_0": "2030-01-01",
        "starts_at_1": "12:00:00",
        "minutes": 30,
        "rounds": 0,
    }
    made = client.post("/admin/tournaments/tournament/add/", form)
    assert made.status_code == 302, made.content.decode()[:2000]
    t = Tournament.objects.get()
    assert t.name == "Staff arena" and t.created_by is None and t.version >= 0
    page = client.get(f"/admin/tournaments/tournament/{t.pk}/change/").content.decode()
    # Its terms are read-only once made; only the name is a field.
    assert 'name="name"' in page and 'name="minutes"' not in page


def test_the_admin_lists_an_events_players_and_games():
    admin = staff_user("boss", is_superuser=True)
    ada, bob = accounts("ada", "bob")
    t = event("arena", starts_in=-1, name="Busy arena")
    director.join(t.public_id, ada)
    director.join(t.public_id, bob)
    director.advance(t.public_id)
    finish(Pairing.objects.get(tournament=t).match, winner=bob)
    client = logged_in(admin)
    listing = client.get("/admin/tournaments/tournament/").content.decode()
    assert "Busy arena" in listing
    page = client.get(f"/admin/tournaments/tournament/{t.pk}/change/").content.decode()
    assert "ada vs bob" in page or "bob vs ada" in page


def test_the_command_ticks_once_under_the_lease(settings, capsys):
    settings.TOURNAMENT_SCHEDULE = "hourly"
    if not settings.REDIS_URL:
        # Outside daphne the scheduler needs Redis to see who has a page open: it says so.
        with pytest.raises(CommandError, match="only with REDIS_URL set"):
            call_command("tournaments", "--once")
        assert not Tournament.objects.exists()
        # As a deployment with Redis runs it (the tick below reads no presence: no arena
        # is running yet).
        settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    call_command("tournaments", "--once")
    out = capsys.readouterr().out
    assert "lease held" in out
    # The hourly arenas of this hour (if not over) and the next: five games each.
    assert Tournament.objects.filter(schedule_key__startswith="hourly:").count() in (5, 10)
    call_command("tournaments", "--once")
    assert Tournament.objects.filter(schedule_key__startswith="hourly:").count() in (5, 10)


def test_renaming_in_the_admin_goes_through_the_write_path():
    admin = staff_user("boss", is_superuser=True)
    t = event("arena", starts_in=600, name="Old name")
    before = Tournament.objects.get(pk=t.pk).version
    client = logged_in(admin)
    management = {
        f"{prefix}-{field}": 0
        for prefix in ("entries", "pairings")
        for field in ("TOTAL_FORMS", "INITIAL_FORMS")
    }
    answer = client.post(
        f"/admin/tournaments/tournament/{t.pk}/change/", {"name": "New name", **management}
    )
    assert answer.status_code == 302
    t = Tournament.objects.get(pk=t.pk)
    assert t.name == "New name" and t.version == before + 1 and t.minutes == 30
