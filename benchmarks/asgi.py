"""The benchmark's server: the site's application with the bare baseline's websockets."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.settings")

from benchmarks.baseline import websocket_urlpatterns
from bitsite.asgi import build

application = build(websocket_urlpatterns)
