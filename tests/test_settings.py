"""The settings read from the environment, and what a deployment needs."""

import os
import subprocess
import sys

from django.conf import settings
from django.db import connection

from tests.servers import ROOT


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


SETUP = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'bitsite.settings'; "


def test_start_up_without_secret_key_fails_with_a_clear_message():
    result = run_python(SETUP + "django.setup()", DJANGO_DEBUG="0")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_debug_allows_a_missing_secret_key():
    result = run_python(
        SETUP + "django.setup(); from django.conf import settings; print(settings.DEBUG)",
        DJANGO_DEBUG="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_check_deploy_is_clean_with_debug_off():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "k8Jq2v9XzLr4Tn7Wb1Ys5Dh3Gf6Pm0Ca-Qe_Vu8Ri2No4Lx7Kt1Zw9Bj3Hs5",
            "DJANGO_ALLOWED_HOSTS": "bitsite.example.org",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_sqlite_runs_in_wal_mode_with_immediate_transactions(db):
    if connection.vendor != "sqlite":
        assert connection.vendor == "postgresql"
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"
    assert connection.settings_dict["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert connection.settings_dict["OPTIONS"]["timeout"] >= 5
    assert not connection.settings_dict["NAME"].startswith(":memory:")


def test_channel_layer_and_cache_follow_redis_url():
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    cache = settings.CACHES["default"]["BACKEND"]
    sessions = settings.CACHES["sessions"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        batch = "redis_batch" in settings.RUNTIME_HOOKS
        assert backend == f"bitsite.{'runtime.' if batch else ''}layers.RedisChannelLayer"
        # Each clears its own keys, not the database the channel layer shares.
        assert cache == "bitsite.caches.RedisCache"
        assert sessions == "bitsite.caches.ForgivingRedisCache"
        assert settings.CACHES["learn"]["BACKEND"] == "bitsite.caches.ForgivingRedisCache"
    else:
        cleanup = "layer_cleanup" in settings.RUNTIME_HOOKS
        assert backend == f"bitsite.{'runtime.' if cleanup else ''}layers.InProcessChannelLayer"
        assert cache == sessions == "django.core.cache.backends.locmem.LocMemCache"


def test_daphne_comes_first_and_websockets_are_checked_at_the_edge_then_origin_checked():
    from bitsite.asgi import application
    from bitsite.edge import EdgeGuard
    from bitsite.origins import SameOriginValidator

    assert settings.INSTALLED_APPS[0] == "daphne"
    edge = application.application_mapping["websocket"]
    assert isinstance(edge, EdgeGuard)
    assert isinstance(edge.application, SameOriginValidator)
