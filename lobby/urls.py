from django.urls import path

from games import converters  # noqa: F401  (registers <match:...> and <game:...>)

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("watch/", views.watch, name="watch"),
    path("lobby/<match:public_id>/accept", views.accept, name="lobby_accept"),
    path("lobby/<match:public_id>/withdraw", views.withdraw, name="lobby_withdraw"),
    path("games/<game:game>/play-anyone", views.play_anyone, name="play_anyone"),
]
