"""Every app's websocket routes, and after them a clean refusal of any other path."""

from accounts.routing import websocket_urlpatterns as accounts_ws
from games.routing import unknown_path
from games.routing import websocket_urlpatterns as games_ws
from lobby.routing import websocket_urlpatterns as lobby_ws
from people.routing import websocket_urlpatterns as people_ws
from tournaments.routing import websocket_urlpatterns as tournaments_ws

websocket_urlpatterns = [*games_ws, *accounts_ws, *lobby_ws, *tournaments_ws, *people_ws]


def routes(extra=()) -> list:
    """The site's routes, then ``extra``, then the catch-all (4404, never an error)."""
    return [*websocket_urlpatterns, *extra, unknown_path]
