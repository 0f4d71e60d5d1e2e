"""The ``layer_cleanup`` hook: the in-process channel layer's clean-up scan, once a second.

Channels' InMemoryChannelLayer runs its clean-up (drop messages older than ``expiry``,
and group memberships older than ``group_expiry``) before every receive and every group
send, and that scan walks every channel and every group membership of the process. With
thousands of open sockets it cost more than the sends themselves (the benchmark's idle-
socket run). Here it runs at most once a second: messages live 60 s and memberships a
day, so a second's delay in dropping them changes nothing else.

Private: it overrides ``InMemoryChannelLayer._clean_expired`` (tests/test_runtime.py
checks that the pinned Channels still calls it on receive and on group send).
"""

from __future__ import annotations

import time

from bitsite.layers import InProcessChannelLayer as GuardedInProcessLayer


class InProcessChannelLayer(GuardedInProcessLayer):
    clean_every = 1.0  # seconds between clean-up scans

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cleaned_at = float("-inf")

    def _clean_expired(self):
        now = time.monotonic()
        if now - self.cleaned_at < self.clean_every:
            return
        self.cleaned_at = now
        super()._clean_expired()
