"""A button pressed by a browser whose session has ended takes the whole page to sign in.

A form on a page sends its htmx request to an address of its own (``/t/<id>/join``, a POST
only). When the browser's session has ended meanwhile (signed out in another tab, or
expired), ``login_required`` answers with a redirect to the sign-in page, which the browser
follows inside the request: htmx then drew the whole sign-in page, a second header and
all, into the part of the page the button swaps, and signing in there came back to the
button's address by GET, an empty 405.

``SignInRedirectMiddleware`` turns that redirect, for an htmx request, into htmx's
``HX-Redirect`` (django-htmx's ``HttpResponseClientRedirect``): the browser loads the
sign-in page as a page, whose ``next`` is the page the person was on (htmx's
``HX-Current-URL``, on this site only), so that signing in brings them back there, with
the button to press again. A form sent without htmx (no JavaScript) gets Django's
redirect with the same ``next``, the page the form was on (its ``Referer``); a page asked
for by GET keeps Django's own, whose ``next`` is that page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect


def on_this_site(request: HttpRequest, address: str) -> bool:
    """Is ``address`` one of this site's (the only ``next`` a sign-in ever follows)?"""
    return url_has_allowed_host_and_scheme(
        address, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )


def back_to(request: HttpRequest) -> str:
    """The page the person was on (this site's only), else the home page: htmx says which
    (``HX-Current-URL``), a form sent without it by its ``Referer``."""
    htmx = getattr(request, "htmx", None)
    current = (htmx.current_url if htmx else None) or request.headers.get("Referer", "")
    if current and on_this_site(request, current):
        parts = urlsplit(current)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return "/"


def signin_redirect(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """``response`` as the browser should get it (see the module's docstring)."""
    if response.status_code != 302:
        return response
    if urlsplit(response.get("Location", "")).path != resolve_url(settings.LOGIN_URL):
        return response
    htmx = bool(getattr(request, "htmx", False))
    if not htmx and request.method in ("GET", "HEAD"):
        return response  # Django's: its next is the page asked for
    signin = redirect_to_login(back_to(request))
    return HttpResponseClientRedirect(signin.url) if htmx else signin


class SignInRedirectMiddleware:
    """After django-htmx's middleware (which sets ``request.htmx``); sync and async."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.is_async:
            return self.__acall__(request)
        return signin_redirect(request, self.get_response(request))

    async def __acall__(self, request):
        return signin_redirect(request, await self.get_response(request))
