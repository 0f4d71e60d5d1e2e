"""The site's URLs and, under ``/bench/``, the bare baseline (benchmarks/baseline.py)."""

from django.urls import include, path

from bitsite.urls import urlpatterns as site

urlpatterns = [*site, path("bench/", include("benchmarks.baseline"))]
