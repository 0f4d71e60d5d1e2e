"""Websockets are opened only by this site's own pages.

A browser sends the page's origin (scheme, host and port) with every websocket it opens.
Channels' AllowedHostsOriginValidator compares only the host with ALLOWED_HOSTS, so a
page on the right host but another port or scheme (``http://localhost:6666``,
``https://127.0.0.1`` on a plain-HTTP site) could open one. Here the origin must equal
the site as this request reaches it: the scheme (https when the socket is wss, or when
a trusted proxy says so with X-Forwarded-Proto), the Host header (which must be an
allowed host) and its port. An origin listed in CSRF_TRUSTED_ORIGINS is accepted too,
as it is for forms. Anything else is refused during the handshake.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": "80", "https": "443"}


def _origin(scheme: str, netloc: str) -> tuple[str, str, str] | None:
    """(scheme, host, port) with the default port filled in, or None if malformed."""
    scheme = scheme.lower()
    if scheme not in DEFAULT_PORTS or not netloc or "@" in netloc:
        return None
    host, port = split_domain_port(netloc.lower())
    if not host:
        return None
    return scheme, host, port or DEFAULT_PORTS[scheme]


def site_origin(scope) -> tuple[str, str, str] | None:
    """The origin of the site as this socket reaches it, if its Host is allowed."""
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin1")
    domain, _ = split_domain_port(host.lower())
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") == "wss"
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy is not None:
        forwarded = headers.get(b"x-forwarded-proto", b"").decode("latin1").lower()
        secure = secure or forwarded == proxy[1]
    return _origin("https" if secure else "http", host)


def allowed(scope) -> bool:
    headers = dict(scope.get("headers") or [])
    raw = headers.get(b"origin")
    if raw is None:
        return False
    try:
        parts = urlsplit(raw.decode("latin1"))
    except ValueError:
        return False
    origin = _origin(parts.scheme, parts.netloc)
    if origin is None:
        return False
    if origin == site_origin(scope):
        return True
    trusted = (urlsplit(o) for o in settings.CSRF_TRUSTED_ORIGINS)
    return origin in {_origin(t.scheme, t.netloc) for t in trusted}


class SameOriginValidator:
    """ASGI middleware for websockets: only this site's own pages may open one."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
