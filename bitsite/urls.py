from django.contrib import admin
from django.urls import include, path

from bitsite.health import healthz

# An empty PostgreSQL pool is a 503 with Retry-After, anything else the 500 page.
handler500 = "bitsite.database.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("lobby.urls")),  # the home page (the lobby) and the watch page
    path("", include("games.urls")),
    path("", include("learn.urls")),  # the theory pages, the puzzles, the analysis board
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("people.urls")),  # challenges and blocks
    path("", include("chat.urls")),  # a match's chats
    path("", include("api.urls")),  # the API (/api/) and the settings page's tokens
]
