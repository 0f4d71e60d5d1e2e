"""The websocket routes. A path that is not a match's (a malformed id, or no route at all)
is refused cleanly, with the close code of an unknown match, instead of an error."""

from django.urls import path, re_path

from games import converters  # noqa: F401  (registers <match:...>)
from games.consumers import MatchConsumer
from games.sockets import NoSuchPath

websocket_urlpatterns = [
    path("ws/m/<match:public_id>/", MatchConsumer.as_asgi()),
]

# After every other route (bitsite/routing.py puts it last): anything else.
unknown_path = re_path(r"", NoSuchPath.as_asgi())
