from django.conf import settings

from accounts.routing import websocket_urlpatterns as accounts_ws
from games.routing import unknown_path
from games.routing import websocket_urlpatterns as games_ws
from lobby.routing import websocket_urlpatterns as lobby_ws

websocket_urlpatterns = [*games_ws, *accounts_ws, *lobby_ws]

if settings.BITSITE_BENCHMARK:  # the bare baseline, for benchmarks only
    from benchmarks.baseline import websocket_urlpatterns as baseline_ws

    websocket_urlpatterns += baseline_ws

websocket_urlpatterns.append(unknown_path)  # last: a clean refusal, not an error
