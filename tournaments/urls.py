from django.urls import path

from games import converters  # noqa: F401  (registers <event:...>)

from . import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new", views.create, name="tournament_create"),
    path("t/<event:public_id>/", views.tournament, name="tournament"),
    path("t/<event:public_id>/join", views.join, name="tournament_join"),
    path("t/<event:public_id>/withdraw", views.withdraw, name="tournament_withdraw"),
]
