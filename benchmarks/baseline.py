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
    /ws/bench/move/<key>/      the bare websocket move: joins the group of ``<key>``; each
                               text frame ``{"seq": N}`` is one INSERT (one thread hop,
                               ``database_sync_to_async``), then one group send to the
                               group, and an answer to the sender: ``<!--answer-->N``

The views are plain sync function views, like the site's, so both pay the same
ASGI thread hop; the consumers are async, like the site's. The bare websocket move
mirrors a move sent over the match's socket (games/consumers.py ``act``): the write in
one hop off the event loop, then a push to the group (the other socket of the pair gets
``N``, as an opponent gets the board) and the mover answered on its own socket with the
site's answer marker (``games.consumers.ANSWER``); its own copy of the group message is
not sent again, as the site's page does not get its own move's push twice. ``bench_row`` is made
by the benchmark (``benchmarks.fixtures prepare``) with ``CREATE TABLE IF NOT
EXISTS``: no model, no migration, and nothing of it in production.
"""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.db import connection, transaction
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

TABLE = "bench_row"
# The site's answer marker (games.consumers.ANSWER; a test checks they agree): imported
# from there, it would load the site's models before benchmarks/asgi.py has set Django up.
ANSWER = "<!--answer-->"
CLOSE_UNEXPECTED = 4400  # the site's code for a frame it does not expect (games/sockets.py)


def group_name(key: str) -> str:
    return f"bench.{key}"


def create_table_sql(vendor: str) -> str:
    key = "BIGSERIAL PRIMARY KEY" if vendor == "postgresql" else "INTEGER PRIMARY KEY AUTOINCREMENT"
    return (
        f"CREATE TABLE IF NOT EXISTS {TABLE} "
        f"(id {key}, key VARCHAR(40) NOT NULL, seq INTEGER NOT NULL)"
    )


def insert_row(key: str, seq: int) -> None:
    """The bare write: one INSERT in its own transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {TABLE} (key, seq) VALUES (%s, %s)", [key, seq])


@require_GET
def bare_get(request):
    return HttpResponse(b"ok", content_type="text/plain")


@csrf_exempt  # benchmark-only module: never mounted in production
@require_POST
def bare_insert(request, key):
    seq = request.POST.get("seq", "")
    if not seq.isdigit() or len(key) > 40:
        return HttpResponse(b"bad seq", status=400, content_type="text/plain")
    insert_row(key, int(seq))
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


class MoveConsumer(GroupConsumer):
    """The bare websocket move: a frame ``{"seq": N}`` is one INSERT in one thread hop,
    one group send (the pair's other socket receives ``N``) and the sender's answer
    (``<!--answer-->N``). Anything else closes the socket with 4400."""

    async def connect(self):
        self.key = self.scope["url_route"]["kwargs"]["key"]
        if len(self.key) > 40:
            await self.close(code=CLOSE_UNEXPECTED)
            return
        await super().connect()

    async def receive(self, text_data=None, bytes_data=None):
        try:
            seq = json.loads(text_data)["seq"]
        except (TypeError, ValueError, KeyError):
            seq = None
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            await self.close(code=CLOSE_UNEXPECTED)
            return
        await database_sync_to_async(insert_row)(self.key, seq)
        text = str(seq)
        await self.channel_layer.group_send(
            self.group, {"type": "bench.push", "text": text, "sender": self.channel_name}
        )
        await self.send(text_data=ANSWER + text)

    async def bench_push(self, event):
        if event.get("sender") == self.channel_name:
            return  # answered on this socket already
        await self.send(text_data=event["text"])


urlpatterns = [
    path("get", bare_get, name="bench-get"),
    path("insert/<str:key>", bare_insert, name="bench-insert"),
]

websocket_urlpatterns = [
    path("ws/bench/echo/", EchoConsumer.as_asgi()),
    path("ws/bench/group/<str:key>/", GroupConsumer.as_asgi()),
    path("ws/bench/move/<str:key>/", MoveConsumer.as_asgi()),
]
