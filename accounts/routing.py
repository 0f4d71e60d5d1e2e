from django.urls import path

from accounts.consumers import MyGamesConsumer

websocket_urlpatterns = [
    path("ws/me/games/", MyGamesConsumer.as_asgi()),
]
