"""The site's URLs and, under ``/bench/``, the bare baseline (benchmarks/baseline.py)."""

from django.urls import include, path

from bitsite.urls import handler500  # noqa: F401  (an empty database pool is a 503)
from bitsite.urls import urlpatterns as site

urlpatterns = [*site, path("bench/", include("benchmarks.baseline"))]
