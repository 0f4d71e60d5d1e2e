from django.urls import path

from . import (
    converters,  # noqa: F401  (registers <match:...> and <game:...>)
    views,
)
from .review_views import export_json, replay, replay_frames

urlpatterns = [
    path("games/<game:game>/", views.rules_page, name="rules"),
    path("games/<game:game>/new/", views.new_match, name="new_match"),
    path(
        "games/<game:game>/new", views.old_new_match, name="old_new_match"
    ),  # where the form used to post
    path("m/<match:public_id>/", views.match_page, name="match"),
    path("m/<match:public_id>/join", views.join, name="join"),
    path("m/<match:public_id>/move", views.move, name="move"),
    path("m/<match:public_id>/computer", views.computer, name="computer"),
    path("m/<match:public_id>/resign", views.resign, name="resign"),
    path("m/<match:public_id>/rematch", views.rematch, name="rematch"),
    path("m/<match:public_id>/hints", views.toggle_hints, name="hints"),
    path("m/<match:public_id>/draw", views.offer_draw, name="offer_draw"),
    path("m/<match:public_id>/draw/answer", views.answer_draw, name="answer_draw"),
    path("m/<match:public_id>/draw/withdraw", views.withdraw_draw, name="withdraw_draw"),
    path("m/<match:public_id>/abort", views.abort, name="abort"),
    path("m/<match:public_id>/claim", views.claim, name="claim"),
    path("m/<match:public_id>/replay/", replay, name="replay"),
    path("m/<match:public_id>/replay/frames", replay_frames, name="replay_frames"),
    path("m/<match:public_id>/export.json", export_json, name="export_match"),
]
