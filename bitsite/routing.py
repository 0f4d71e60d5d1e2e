from django.conf import settings

websocket_urlpatterns = []

if settings.BITSITE_BENCHMARK:  # the bare baseline, for benchmarks only
    from benchmarks.baseline import websocket_urlpatterns as baseline_ws

    websocket_urlpatterns += baseline_ws
