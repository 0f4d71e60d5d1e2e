"""``{{ user|bot_mark }}``: the BOT mark after a bot account's name (accounts/bots.py
``MARK``), nothing for anyone else. Where a page lists many players, read their profiles
with them (``select_related("…__profile")``) so that no name costs a query."""

from __future__ import annotations

from django import template

from accounts.bots import mark

register = template.Library()


@register.filter
def bot_mark(user):
    return mark(user)
