from django.urls import path

from games.consumers import MatchConsumer

websocket_urlpatterns = [
    path("ws/m/<str:public_id>/", MatchConsumer.as_asgi()),
]
