"""The benchmark's server: the site's settings, with the bare baseline's URLs mounted.

The site never imports the benchmark: the benchmark's daphne serves
``benchmarks.asgi:application`` with ``DJANGO_SETTINGS_MODULE=benchmarks.settings``.
"""

from bitsite.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"
