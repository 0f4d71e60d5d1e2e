from django.urls import path

from . import views
from .review_views import export_json, replay

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<slug:slug>/", views.rules_page, name="rules"),
    path("games/<slug:slug>/new", views.new_match, name="new_match"),
    path("m/<str:public_id>/", views.match_page, name="match"),
    path("m/<str:public_id>/join", views.join, name="join"),
    path("m/<str:public_id>/move", views.move, name="move"),
    path("m/<str:public_id>/computer", views.computer, name="computer"),
    path("m/<str:public_id>/resign", views.resign, name="resign"),
    path("m/<str:public_id>/rematch", views.rematch, name="rematch"),
    path("m/<str:public_id>/hints", views.toggle_hints, name="hints"),
    path("m/<str:public_id>/replay/", replay, name="replay"),
    path("m/<str:public_id>/export.json", export_json, name="export_match"),
]
