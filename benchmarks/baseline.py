"""The bare baseline: the framework doing the least it can, in the same server.

Mounted only by the benchmark's own server (benchmarks/settings.py, benchmarks/urls.py,
benchmarks/asgi.py); the site never imports it, so it is never in production URLs, which
is also why the bare POST may be ``csrf_exempt`` here while the site's own move endpoint
checks CSRF.

HTTP (under ``/bench/``):

    GET  /bench/get            a tiny response: the bare GET rate
    POST /bench/insert/<key>   one INSERT (table ``bench_row``) and, after it commits,
                               one group send to the bare consumers of ``<key>``

Websockets:

    /ws/bench/echo/            sends back every text frame
    /ws/bench/group/<key>/     joins the group of ``<key>`` and forwards its messages as text

The views are plain sync function views, like the site's, so both pay the same
ASGI thread hop; the consumers are async, like the site's. ``bench_row`` is made
by the benchmark (``benchmarks.fixtures prepare``) with ``CREATE TABLE IF NOT
EXISTS``: no model, no migration, and nothing of it in production.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

TABLE = "bench_row"


def group_name(key: str) -> str:
    return f"bench.{key}"


def create_table_sql(vendor: str) -> str:
    key = "BIGSERIAL PRIMARY KEY" if vendor == "postgresql" else "INTEGER PRIMARY KEY AUTOINCREMENT"
    return (
        f"CREATE TABLE IF NOT EXISTS {TABLE} "
        f"(id {key}, key VARCHAR(40) NOT NULL, seq INTEGER NOT NULL)"
    )


@require_GET
def bare_get(request):
    return HttpResponse(b"ok", content_type="text/plain")


@csrf_exempt  # benchmark-only module: never mounted in production
@require_POST
def bare_insert(request, key):
    seq = request.POST.get("seq", "")
    if not seq.isdigit() or len(key) > 40:
        return HttpResponse(b"bad seq", status=400, content_type="text/plain")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE} (key, seq) VALUES (%s, %s)", [key, int(seq)])
    async_to_sync(get_channel_layer().group_send)(
        group_name(key), {"type": "bench.push", "text": seq}
    )
    return HttpResponse(seq.encode(), content_type="text/plain")


class EchoConsumer(AsyncWebsocketConsumer):
    async def receive(self, text_data=None, bytes_data=None):
        await self.send(text_data=text_data, bytes_data=bytes_data)


class GroupConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.group = group_name(self.scope["url_route"]["kwargs"]["key"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def bench_push(self, event):
        await self.send(text_data=event["text"])


urlpatterns = [
    path("get", bare_get, name="bench-get"),
    path("insert/<str:key>", bare_insert, name="bench-insert"),
]

websocket_urlpatterns = [
    path("ws/bench/echo/", EchoConsumer.as_asgi()),
    path("ws/bench/group/<str:key>/", GroupConsumer.as_asgi()),
]
