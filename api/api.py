"""The public API: one NinjaAPI whose schema is made from the code (/api/openapi.json,
browsable at /api/docs). Every error is JSON (api/errors.py); every write goes through
games.play or the apps' own write functions (people.challenges), as the pages' do."""

from __future__ import annotations

import logging
import re

from django.core.exceptions import BadRequest, RequestDataTooBig
from django.http import Http404, JsonResponse, RawPostDataException
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from api.errors import ApiError, body
from bitsite.database import RETRY_AFTER, pool_exhausted
from games.http import refusal_status
from games.rights import Refused
from people import challenges as people_challenges

log = logging.getLogger(__name__)

api = NinjaAPI(
    title="bitsite API",
    version="1",
    description=(
        "Play, watch and export the five games of bitsite from any language. "
        "Authenticate with a personal access token (made on your settings page): "
        "`Authorization: Bearer bit_…`. Every error is JSON: "
        '`{"error": code, "message": words}`. See docs/features/api.md.'
    ),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)


def _code(refusal: Exception) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(refusal).__name__).lower()


def _respond(request, status: int, payload: dict, retry_after: int | None = None):
    response = api.create_response(request, payload, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


@api.exception_handler(ApiError)
def _api_error(request, error: ApiError):
    return _respond(
        request, error.status, body(error.code, error.message), retry_after=error.retry_after
    )


@api.exception_handler(Refused)
def _refused(request, refusal: Refused):
    return _respond(request, refusal_status(refusal), body(_code(refusal), refusal.message))


@api.exception_handler(people_challenges.Refused)
def _challenge_refused(request, refusal: people_challenges.Refused):
    return _respond(request, refusal.status, body("challenge_refused", refusal.message))


@api.exception_handler(ValidationError)
def _invalid(request, error: ValidationError):
    problems = []
    for item in error.errors:
        where = ".".join(str(part) for part in item.get("loc", ()) if part not in ("body",))
        problems.append(f"{where}: {item.get('msg', 'invalid')}" if where else item.get("msg"))
    message = "The request is not valid: " + "; ".join(str(p) for p in problems) + "."
    return _respond(request, 400, body("invalid_request", message, detail=problems))


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, error):
    return _respond(request, 401, body("bad_token", "A valid personal access token is needed."))


@api.exception_handler(Http404)
def _not_found(request, error):
    message = str(error) or "There is no such thing here."
    return _respond(request, 404, body("not_found", message))


@api.exception_handler(HttpError)
def _http_error(request, error: HttpError):
    code = "invalid_request" if error.status_code == 400 else "http_error"
    return _respond(request, error.status_code, body(code, str(error)))


@api.exception_handler(MultiPartParserError)
@api.exception_handler(BadRequest)
def _unreadable(request, error: Exception):
    """A body that cannot be parsed (a broken multipart form, too many fields...)."""
    message = _("The request's body could not be read: %(why)s") % {"why": error}
    return _respond(request, 400, body("invalid_request", message))


@api.exception_handler(RawPostDataException)
def _a_form(request, error: RawPostDataException):
    """A form's body (read as a form by the site's edge checks, bitsite/edge.py) where an
    operation reads JSON."""
    message = _("The API reads a JSON body: send it with Content-Type: application/json.")
    return _respond(request, 400, body("invalid_request", message))


@api.exception_handler(RequestDataTooBig)
def _too_big(request, error: RequestDataTooBig):
    return _respond(request, 413, body("too_large", _("The request's body is too large.")))


@api.exception_handler(Exception)
def _fault(request, error: Exception):
    if pool_exhausted(error):  # an overload, not a fault: as the pages (bitsite/database.py)
        log.warning("503 %s %s: no database connection free in time", request.method, request.path)
        message = _("The server is busy: try again in a moment.")
        return _respond(request, 503, body("unavailable", message), retry_after=RETRY_AFTER)
    log.exception("API fault on %s %s", request.method, request.path)
    return _respond(request, 500, body("server_error", "Something went wrong on the server."))


@csrf_exempt  # as every operation is: a POST here is answered the same 404, not CSRF's 403
def unknown_address(request, rest: str = ""):
    """A 404 under /api/ that no operation matches (a path value holding a slash, an
    endpoint that does not exist): JSON like every other API error, not the site's page."""
    message = "There is no such address in the API: its endpoints are listed at /api/docs."
    return JsonResponse(body("not_found", message), status=404)


def _register() -> None:
    from api.routes import account, challenges, games, players, streams

    api.add_router("/account", account.router)
    api.add_router("/players", players.router)
    api.add_router("/games", games.router)
    api.add_router("/challenges", challenges.router)
    api.add_router("/stream", streams.router)


_register()
