"""NDJSON streams (a game's events, the account's events)."""

from __future__ import annotations

from ninja import Router

router = Router(tags=["streams"])
