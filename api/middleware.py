"""Every answer under /api/ that is an error is JSON, whatever made it: the operations'
own refusals are (api/api.py); this turns the rest into the same ``{"error", "message"}``
shape, keeping their status and their ``Allow`` and ``Retry-After`` headers: a method an
address does not take (405), a body that cannot be parsed before any operation runs (400),
an address no route matches (404), the empty connection pool (503), a body too large
(413), an unexpected fault (500). A program reading the API never has to parse a page."""

from __future__ import annotations

from django.http import JsonResponse
from django.utils.translation import gettext as _

from api.errors import body

PREFIX = "/api/"


def _words(status: int, request, response) -> tuple[str, str]:
    if status == 405:
        allowed = response.get("Allow", "")
        return "method_not_allowed", _(
            "This address does not take %(method)s: it takes %(allowed)s."
        ) % {"method": request.method, "allowed": allowed or _("no method")}
    if status == 404:
        return "not_found", _(
            "There is no such address in the API: its endpoints are listed at /api/docs."
        )
    if status == 413:
        return "too_large", _("The request's body is too large.")
    if status == 429:
        return "rate_limited", _("Too many requests: try again later.")
    if status == 503:
        return "unavailable", _("The server is busy: try again in a moment.")
    if status >= 500:
        return "server_error", _("Something went wrong on the server.")
    if status == 403:
        return "forbidden", _("That is not allowed.")
    return "invalid_request", _("The request is not valid: it could not be read.")


class JsonErrorsMiddleware:
    """Outermost but for the security headers (bitsite/settings.py), so that it sees the
    errors of every layer inside it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path.startswith(PREFIX)
            or response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        code, message = _words(response.status_code, request, response)
        answer = JsonResponse(body(code, message), status=response.status_code)
        for header in ("Allow", "Retry-After"):
            if header in response:
                answer[header] = response[header]
        return answer
