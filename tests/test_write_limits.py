"""Writes that count, then insert (at most so many of something) hold a lock named for the
account (bitsite/locks.py): many at once from one account never pass the limit. On
PostgreSQL each thread has a connection of its own and the writes truly overlap (without
the lock, 20 tournaments at once made 3 where 2 are allowed); on SQLite every write
transaction already holds the database's one write lock."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from api import tokens
from api.models import Token
from people import challenges, push
from people.models import Challenge, PushSubscription
from tests.factories import at_once
from tests.people.push_service import PushService
from tests.ratings.helpers import account
from tournaments import director
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)
ROUNDS = 3  # the race, a few times over
THREADS = 20


def refusals(results, kind) -> int:
    unexpected = [r for r in results if isinstance(r, BaseException) and not isinstance(r, kind)]
    assert not unexpected, unexpected
    return sum(isinstance(r, kind) for r in results)


def test_tournaments_made_at_once_stop_at_the_limit():
    ada = account("ada")
    for attempt in range(ROUNDS):
        Tournament.objects.all().delete()

        def make(i, attempt=attempt):
            return director.create(
                name=f"Mine {attempt}-{i}",
                kind="arena",
                game="bit-flip",
                starts_at=timezone.now() + timedelta(hours=1),
                minutes=30,
                by=ada,
            )

        results = at_once(THREADS, make)
        made = Tournament.objects.filter(created_by=ada).count()
        assert made == director.LIMITS.upcoming, (attempt, made)
        assert refusals(results, director.TooMany) == THREADS - made


def test_challenges_sent_at_once_stop_at_the_limit():
    ada = account("ada")
    others = [account(f"p{i}") for i in range(THREADS)]
    for attempt in range(ROUNDS):
        Challenge.objects.all().delete()
        results = at_once(
            THREADS,
            lambda i: challenges.send(
                ada, others[i], game="bit-flip", options={}, time_control={}, rated=False
            ),
        )
        sent = Challenge.objects.filter(challenger=ada, status=Challenge.Status.OPEN).count()
        assert sent == challenges.MAX_OPEN, (attempt, sent)
        assert refusals(results, challenges.Refused) == THREADS - sent


def test_tokens_made_at_once_stop_at_the_limit():
    ada = account("ada")
    threads = tokens.MAX_ACTIVE + THREADS
    for attempt in range(ROUNDS):
        Token.objects.all().delete()
        results = at_once(threads, lambda i: tokens.create(ada, f"bot {i}", ["read"]))
        made = Token.objects.filter(user=ada, revoked_at=None).count()
        assert made == tokens.MAX_ACTIVE, (attempt, made)
        assert refusals(results, tokens.Refused) == threads - made


def test_push_devices_added_at_once_stay_within_the_limit(settings):
    settings.PUSH_LOOPBACK_ENDPOINTS = True
    ada = account("ada")
    service = PushService()
    try:
        for attempt in range(ROUNDS):
            PushSubscription.objects.all().delete()
            found = [
                push.parse(json.dumps(service.browser(push.public_key()).to_json()).encode())
                for _ in range(THREADS)
            ]
            results = at_once(THREADS, lambda i, found=found: push.subscribe(ada, found[i]))
            assert refusals(results, Exception) == 0
            kept = PushSubscription.objects.filter(user=ada).count()
            assert kept == push.MAX_PER_ACCOUNT, (attempt, kept)
    finally:
        service.close()
