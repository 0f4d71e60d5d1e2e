"""The in-process channel layer of the embedded default (one server process, no Redis).

Channels' InMemoryChannelLayer runs its clean-up (drop messages older than ``expiry``,
and group memberships older than ``group_expiry``) before every receive and every group
send, and that scan walks every channel and every group membership of the process. With
thousands of open sockets it cost more than the sends themselves (the benchmark's idle-
socket run). Here it runs at most once a second: messages live 60 s and memberships a
day, so a second's delay in dropping them changes nothing else.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer


class InProcessChannelLayer(InMemoryChannelLayer):
    clean_every = 1.0  # seconds between clean-up scans

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._cleaned_at = float("-inf")

    def _clean_expired(self):
        now = time.monotonic()
        if now - self._cleaned_at < self.clean_every:
            return
        self._cleaned_at = now
        super()._clean_expired()
