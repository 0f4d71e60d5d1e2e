"""Requests the site makes to an address a user gave it (a browser's push endpoint): only
to public addresses, and only to the address that was checked.

A host name is resolved once for each request; every address it resolves to must be public
(``public``: not loopback, private, link-local, shared, multicast, reserved, unspecified or
documentation, in IPv4 or IPv6, an IPv4 address mapped into IPv6 judged as IPv4), and the
connection goes to the first of them: urllib3 is given that address, with the host name for
the ``Host`` header, the TLS server name and the certificate's check, so a name that
resolves elsewhere a moment later (DNS rebinding) is never connected to, and a name that
resolves to one public address and one internal one is refused outright. The same check
runs when an endpoint is given (people/push.py), so a bad one is refused then, with its
reason, and again at every send.

Not requests-hardened: its filter lets IPv4-compatible (``::7f00:1``), IPv4-translated
(``::ffff:0:7f00:1``) and site-local (``fec0::/10``) IPv6 addresses through. The hook used
here is requests' documented ``HTTPAdapter.build_connection_pool_key_attributes``.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import requests
from django.utils.translation import gettext as _
from requests.adapters import HTTPAdapter

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Public unicast IPv6 lies in 2000::/3; of that, these carry or reach IPv4 or overlays.
GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
NOT_PUBLIC = tuple(
    ipaddress.ip_network(net)
    for net in (
        "100.64.0.0/10",  # shared address space (carrier NAT)
        "192.0.0.0/24",  # IETF protocol assignments
        "192.88.99.0/24",  # 6to4 relays
        "198.18.0.0/15",  # benchmarking
        "2001::/23",  # IETF protocol assignments (Teredo among them)
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4: an IPv4 address inside
        "3fff::/20",  # documentation
    )
)


class NotPublic(requests.ConnectionError):
    """A request refused before connecting: ``reason`` says why, in words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def public(address: Address) -> bool:
    """Whether the Internet at large reaches ``address``, and nothing inside."""
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.version == 6 and address not in GLOBAL_UNICAST_V6:
        return False
    return (
        address.is_global
        and not address.is_multicast
        and not any(address in net for net in NOT_PUBLIC)
    )


def numeric(host: str) -> bool:
    """Whether ``host`` is an address written as one, in any form a resolver takes
    (``127.1``, ``0x7f.1``, ``0251.0376.0251.0376``, ``[::1]``...), not a name."""
    bare = host.strip("[]")
    try:
        socket.inet_aton(bare)  # the C library's forms: short, hex, octal
    except OSError:
        pass
    else:
        return True
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        return False
    return True


def checked_address(host: str, port: int, *, loopback: bool = False) -> str:
    """The address to connect to for ``host``: resolved once, every answer public (or
    ``loopback``: 127.0.0.1 allowed too, for a stand-in service in the tests). NotPublic
    otherwise, with the reason."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise NotPublic(_("%(host)s could not be resolved.") % {"host": host}) from None
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in found]
    if not addresses:
        raise NotPublic(_("%(host)s could not be resolved.") % {"host": host})
    for address in addresses:
        if not public(address) and not (loopback and str(address) == "127.0.0.1"):
            raise NotPublic(_("%(host)s is not a public address.") % {"host": host})
    first = addresses[0]
    return str(first) if first.version == 4 else f"[{first}]"


class PublicOnlyAdapter(HTTPAdapter):
    """Connects each request to the address ``checked_address`` found for its host."""

    def __init__(self, *, loopback: bool = False):
        super().__init__(max_retries=0)
        self.loopback = loopback

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        host, port = host_params["host"], host_params["port"]
        scheme = host_params["scheme"]
        default = 443 if scheme == "https" else 80
        request.headers["Host"] = host if port in (None, default) else f"{host}:{port}"
        if scheme == "https":  # the certificate and the server name are the host's
            pool_kwargs["assert_hostname"] = host
            pool_kwargs["server_hostname"] = host
        host_params["host"] = checked_address(host, port or default, loopback=self.loopback)
        return host_params, pool_kwargs


def session(*, loopback: bool = False) -> requests.Session:
    """A requests session that connects only to checked public addresses and follows no
    redirect (a push service answers; it does not send the site elsewhere)."""
    found = requests.Session()
    found.max_redirects = 0
    adapter = PublicOnlyAdapter(loopback=loopback)
    found.mount("https://", adapter)
    found.mount("http://", adapter)
    return found
