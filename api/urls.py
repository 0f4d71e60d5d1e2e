from django.urls import path, re_path

from api import views
from api.api import api, unknown_address

urlpatterns = [
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", unknown_address),  # after every operation: JSON 404
    path("accounts/settings/tokens/", views.create_token, name="api_token_create"),
    path("accounts/settings/tokens/<int:pk>/revoke/", views.revoke_token, name="api_token_revoke"),
]
