from django.urls import path

from lobby.consumers import LobbyConsumer, WatchConsumer

websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/watch/", WatchConsumer.as_asgi()),
]
