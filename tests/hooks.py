"""What each private hook of bitsite/runtime/ touches, and the tests that run that code.

CI runs the whole suite once with every hook on (the default) on each backend, and then
these tests again with every hook off (``BITSITE_HOOKS=none``, ``-m hooks``): the site
must work the same without the hooks, only slower, and these are the tests that would see
it not. tests/conftest.py marks them ``hooks``; tests/test_runtime.py checks that every
hook has tests here of the kind that reaches it (a hook of the served process needs tests
that drive a daphne, a hook of the Redis layer needs tests that run on Redis), so a new
hook without hooks-off coverage fails the suite.
"""

from __future__ import annotations

# The pages of a match played live (every game, a spectator, reconnects, a killed server),
# in real browsers against a real daphne: the HTTP handler, the websocket's compression,
# the consumers' dispatch, the in-process layer and the served process's tuning at once.
LIVE_PLAY = (
    "tests/browser/test_live_matches.py",
    "tests/browser/test_socket_moves.py",
    "tests/browser/test_endings.py",
    "tests/browser/test_lobby.py",
)

COVERAGE: dict[str, tuple[str, ...]] = {
    # Django's ASGI handler as one synchronous chain in a pool of request threads.
    "sync_chain": (
        *LIVE_PLAY,
        "tests/test_handler.py",
        "tests/test_proxy.py",
        "tests/test_connections.py",
        "tests/test_runtime.py",
    ),
    # permessage-deflate on daphne's websockets: what a push weighs on the wire.
    "deflate": (*LIVE_PLAY, "tests/browser/test_weight.py", "tests/test_runtime.py"),
    # The in-process channel layer's clean-up scan.
    "layer_cleanup": (
        *LIVE_PLAY,
        "tests/test_layers.py",
        "tests/test_fanout.py",
        "tests/test_consumers.py",
        "tests/test_lobby_consumers.py",
        "tests/tournaments/test_consumers.py",
        "tests/chat/test_live.py",
    ),
    # channels-redis's read of a process's queue in batches (on Redis only).
    "redis_batch": (
        "tests/test_layers.py",
        "tests/test_fanout.py",
        "tests/browser/test_scale_out.py",
    ),
    # The sockets' messages handed to their handlers without Channels' hop per message.
    "dispatch": (
        *LIVE_PLAY,
        "tests/test_consumers.py",
        "tests/test_socket_actions.py",
        "tests/test_lobby_consumers.py",
        "tests/test_admission.py",
        "tests/tournaments/test_consumers.py",
        "tests/chat/test_live.py",
        "tests/api/test_streams.py",
    ),
    # The served process's interpreter settings and warm-up.
    "tuning": (*LIVE_PLAY, "tests/test_runtime.py"),
}


def covered_modules() -> set[str]:
    """Every test module that runs again with the hooks off, by its path from the checkout."""
    return {module for modules in COVERAGE.values() for module in modules}
