from django.urls import path

from games import converters  # noqa: F401  (registers <event:...>)
from tournaments.consumers import TournamentConsumer

websocket_urlpatterns = [
    path("ws/t/<event:public_id>/", TournamentConsumer.as_asgi()),
]
