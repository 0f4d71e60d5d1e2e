"""What no request may carry, refused at the edge before anything reads it.

A NUL character is never part of a real address, field, header or cookie, and PostgreSQL
refuses it in any text it is given ("text fields cannot contain NUL"): a NUL that reached a
query (``/players/%00/``, a session cookie ``"\\000"``, a User-Agent stored by django-axes)
was an error where SQLite shrugged. Over-long values are refused with it: no address of
the site is longer than ``MAX_PATH`` characters, and no field longer than ``MAX_VALUE``.

One check (``fault``) for both kinds of connection:

- HTTP: ``EdgeMiddleware``, early in the middleware, answers 400 with the reason, before
  any session, database read or view (under ``/api/``, as the API's JSON error). It reads
  the address, the query string, every header, the cookies (as Django unquotes them:
  ``"\\000"`` is a NUL) and the form.
- Websockets: ``EdgeGuard`` wraps the websocket application and refuses such a handshake
  (403), as the origin check does, before the session is loaded or a consumer runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from channels.security.websocket import WebsocketDenier
from django.http import HttpResponseBadRequest, JsonResponse
from django.http.cookie import parse_cookie
from django.template.loader import render_to_string

NUL = "\x00"
MAX_PATH = 2048  # characters of an address (the path, without the query string)
MAX_VALUE = 4096  # characters of one name or value in the query string or the form
# Addresses whose clients read JSON errors (the API's, docs/features/api.md), not the page.
JSON_ERRORS = ("/api/",)


def fault(path: str, fields: Iterable[tuple[str, str]], headers: Iterable[str]) -> str | None:
    """Why a request with this path, these (name, value) fields (query string, form,
    cookies) and these header values must be refused, in words; None if it may go on."""
    if len(path) > MAX_PATH:
        return f"Its address is longer than {MAX_PATH} characters."
    if NUL in path:
        return "Its address holds a NUL character."
    for name, value in fields:
        if NUL in name or NUL in value:
            return "One of its fields holds a NUL character."
        if len(name) > MAX_VALUE or len(value) > MAX_VALUE:
            return f"One of its fields is longer than {MAX_VALUE} characters."
    for value in headers:
        if NUL in value:
            return "One of its headers holds a NUL character."
    return None


def refused(reason: str, path: str = "") -> HttpResponseBadRequest | JsonResponse:
    """The 400 page, with the reason (rendered without the request: nothing of it is read);
    under the API's address, its JSON error instead."""
    if path.startswith(JSON_ERRORS):
        return JsonResponse({"error": "invalid_request", "message": reason}, status=400)
    return HttpResponseBadRequest(render_to_string("400.html", {"reason": reason}))


def _request_fields(request):
    for query in (request.GET, request.POST):
        for name, values in query.lists():
            for value in values:
                yield name, value
    for name, files in request.FILES.lists():
        for upload in files:
            yield name, upload.name or ""
    yield from request.COOKIES.items()


class EdgeMiddleware:
    """400 for a request ``fault`` refuses, before the middleware after it and the view.

    Reading the form here is what CSRF's check does next for every POST anyway; a body
    too large, or with too many fields, is Django's own 400 (RequestDataTooBig,
    TooManyFieldsSent)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        headers = (
            value
            for name, value in request.META.items()
            if name.startswith("HTTP_") or name in ("CONTENT_TYPE", "CONTENT_LENGTH")
        )
        reason = fault(request.path, _request_fields(request), headers)
        if reason is not None:
            return refused(reason, request.path)
        return self.get_response(request)


def _scope_fields(scope):
    query = scope.get("query_string", b"").decode("latin1")
    yield from parse_qsl(query, keep_blank_values=True)
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            yield from parse_cookie(value.decode("latin1")).items()


class EdgeGuard:
    """ASGI middleware for websockets: a handshake ``fault`` refuses is denied (403)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            headers = (value.decode("latin1") for _, value in scope.get("headers") or ())
            if fault(scope.get("path", ""), _scope_fields(scope), headers) is not None:
                return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
