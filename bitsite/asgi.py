"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets are refused if they carry a NUL or an over-long value (bitsite/edge.py, as
HTTP requests are by its middleware), origin-checked (bitsite/origins.py: the site's own
scheme, host and port) and carry the Django session, which is where a player's seat
secret lives (read by the consumer itself, once, when a socket opens: no user lookup per
connection).

Every connection also tells the live layer which event loop serves it
(``bitsite.loop``): pushes made in a request's thread, or on the SQLite writer's, are
handed to that loop and never make the request wait.

``build`` is the application with more websocket routes (the benchmark's bare baseline
mounts itself this way: the site never imports the benchmark). When daphne serves this
process, ``bitsite.runtime.serving`` applies the server-only hooks that are on.
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")

# Set up Django (and its app registry) before importing anything that uses models
# (what django.core.asgi.get_asgi_application does, with the handler of bitsite/runtime/).
django.setup(set_prefix=False)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from bitsite import loop, runtime  # noqa: E402
from bitsite.edge import EdgeGuard  # noqa: E402
from bitsite.origins import SameOriginValidator  # noqa: E402

django_asgi_app = runtime.asgi_handler()


def build(extra_websocket_routes=()):
    """The site's ASGI application, with ``extra_websocket_routes`` before the catch-all."""
    from bitsite.routing import routes

    return loop.Recorded(
        ProtocolTypeRouter(
            {
                "http": django_asgi_app,
                "websocket": EdgeGuard(
                    SameOriginValidator(
                        SessionMiddlewareStack(URLRouter(routes(extra_websocket_routes)))
                    )
                ),
            }
        )
    )


application = build()

runtime.serving()  # daphne serves this process: deflate on the wire, the start-up warm-up

if runtime.daphne_serves():  # the server's own timers, from the database (a restart)
    from games import timers
    from tournaments import scheduler

    loop.when_serving(timers.recover)
    scheduler.start()  # the tournaments' clock (one process ticks at a time: its lease)
