"""The benchmark's server: the site's settings, with the bare baseline's URLs mounted.

The site never imports the benchmark: the benchmark's daphne serves
``benchmarks.asgi:application`` with ``DJANGO_SETTINGS_MODULE=benchmarks.settings``.
"""

import os

from bitsite.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"

# The layer comparison (benchmarks/api_streams.py ``layers_run``) runs the same rows on
# channels-redis's pub/sub layer, which the site tried on 4 December and reverted
# (benchmarks/README.md, "The pub/sub layer"): a benchmark's choice, never the site's.
if REDIS_URL and os.environ.get("BITSITE_BENCH_LAYER") == "pubsub":  # noqa: F405
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL}]},  # noqa: F405
        }
    }
