from django.urls import path

from api import views
from api.api import api

urlpatterns = [
    path("api/", api.urls),
    path("accounts/settings/tokens/", views.create_token, name="api_token_create"),
    path("accounts/settings/tokens/<int:pk>/revoke/", views.revoke_token, name="api_token_revoke"),
]
