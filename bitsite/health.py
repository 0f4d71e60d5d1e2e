"""``/healthz``: 200 when this process can reach its database and its channel layer (and,
with Redis, its cache); 503 naming what is down. For a load balancer: cheap, no session,
no template, and every check bounded by a short timeout."""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

log = logging.getLogger(__name__)
TIMEOUT = 2.0


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception as error:
        log.warning("healthz: the database does not answer (%r)", error)
        return False


async def _send_probe() -> None:
    layer = get_channel_layer()
    await asyncio.wait_for(layer.group_send("bitsite.health", {"type": "health"}), TIMEOUT)


def _channel_layer() -> bool:
    try:
        async_to_sync(_send_probe)()
        return True
    except Exception as error:
        log.warning("healthz: the channel layer does not answer (%r)", error)
        return False


def _cache() -> bool:
    try:
        cache.set("healthz", 1, 10)
        return cache.get("healthz") == 1
    except Exception as error:
        log.warning("healthz: the cache does not answer (%r)", error)
        return False


@never_cache
@require_GET
def healthz(request):
    checks = {"database": _database(), "channel_layer": _channel_layer()}
    if settings.REDIS_URL:
        checks["cache"] = _cache()
    healthy = all(checks.values())
    body = {"status": "ok" if healthy else "down"}
    body.update({name: "ok" if up else "down" for name, up in checks.items()})
    return JsonResponse(body, status=200 if healthy else 503)
