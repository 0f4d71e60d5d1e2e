"""The ``deflate`` hook: permessage-deflate (RFC 7692) for daphne's websockets.

A pushed board is HTML that compresses well, and each board looks much like the one
before it on the same socket (context takeover), so a move's push costs a few hundred
bytes on the wire instead of several kilobytes.

Daphne builds its autobahn factory without compression and has no option for it;
autobahn itself implements the extension. ``enable()`` (bitsite.runtime.serving, before
daphne builds its factory) makes daphne's factory accept a browser's deflate offer.
Private: it replaces ``daphne.server.WebSocketFactory`` (daphne's own name for the class
it instantiates), and relies on autobahn's ``perMessageCompressionAccept`` protocol
option and ``PerMessageDeflateOfferAccept`` (tests/test_runtime.py checks them).

The windows are small on purpose: every open socket keeps its own compressor, so these
sizes bound what an idle socket costs (about 20 KiB), where zlib's defaults would cost
about 300 KiB. A client that offers no compression gets plain frames, as before.
"""

from __future__ import annotations

WINDOW_BITS = 11  # the server's window: 2 KiB of earlier output to refer back to
MEM_LEVEL = 4  # zlib's internal state: 8 KiB (1 << (MEM_LEVEL + 9))
CLIENT_WINDOW_BITS = 11  # asked of the client, when it allows it, for our decompressor


def accept(offers):
    """Accept the first deflate offer, with the small windows above."""
    from autobahn.websocket.compress import (
        PerMessageDeflateOffer,
        PerMessageDeflateOfferAccept,
    )

    for offer in offers:
        if isinstance(offer, PerMessageDeflateOffer):
            window = WINDOW_BITS
            if offer.request_max_window_bits:
                window = min(window, offer.request_max_window_bits)
            return PerMessageDeflateOfferAccept(
                offer,
                request_max_window_bits=CLIENT_WINDOW_BITS if offer.accept_max_window_bits else 0,
                window_bits=window,
                mem_level=MEM_LEVEL,
            )
    return None


def enable() -> bool:
    """Make daphne's websocket factory accept deflate offers (daphne's command line is
    serving this process: bitsite.runtime.serving)."""
    import daphne.server as server

    if getattr(server.WebSocketFactory, "deflate", False):
        return True
    from daphne.ws_protocol import WebSocketFactory

    class DeflateWebSocketFactory(WebSocketFactory):
        deflate = True

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.setProtocolOptions(perMessageCompressionAccept=accept)

    server.WebSocketFactory = DeflateWebSocketFactory
    return True
