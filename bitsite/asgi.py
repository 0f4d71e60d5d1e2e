"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets are origin-checked (bitsite/origins.py: the site's own scheme, host and port)
and carry the Django session, which is where a player's seat secret lives (read by the
consumer itself, once, when a socket opens: no user lookup per connection).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bitsite.settings")

# Set up Django (and its app registry) before importing anything that uses models
# (what django.core.asgi.get_asgi_application does, with the handler of bitsite/handlers.py).
django.setup(set_prefix=False)

from bitsite.handlers import SyncChainASGIHandler  # noqa: E402

django_asgi_app = SyncChainASGIHandler()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from bitsite.origins import SameOriginValidator  # noqa: E402
from bitsite.routing import websocket_urlpatterns  # noqa: E402
from bitsite.wsdeflate import enable as enable_deflate  # noqa: E402

enable_deflate()  # pushes compressed on the wire when daphne serves (bitsite/wsdeflate.py)

from bitsite.warmup import warm_up  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(SessionMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

warm_up()  # templates compiled, and what was loaded kept out of the collector's way
