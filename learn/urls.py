from django.urls import path

from games import converters  # noqa: F401  (registers <match:...> and <game:...>)

from .views.analysis import analyse_match, analysis

urlpatterns = [
    # The analysis board (issue 14): the state in the query string, no writes.
    path("games/<game:game>/analysis/", analysis, name="analysis"),
    path("m/<match:public_id>/analyse", analyse_match, name="analyse_match"),
]
