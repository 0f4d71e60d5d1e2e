from django.urls import path

from people.consumers import InboxConsumer

websocket_urlpatterns = [
    path("ws/me/", InboxConsumer.as_asgi()),
    path("ws/me/challenges/", InboxConsumer.as_asgi(), kwargs={"lists": True}),
]
