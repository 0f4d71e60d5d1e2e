"""What a signed-in visitor can do with another player, on that player's page (and what
My games offers for an opponent): challenge them, block or unblock them."""

from __future__ import annotations

from django import template

from people.challenges import blocked_by
from people.friends import follows

register = template.Library()


@register.inclusion_tag("people/_player_actions.html", takes_context=True)
def player_actions(context, player):
    user = context.get("user")
    if user is None or not user.is_authenticated or user.pk == player.pk:
        return {"shown": False}
    return {
        "shown": True,
        "name": player.get_username(),
        "blocked": blocked_by(user, player),
        "following": follows(user, player),
        "csrf_token": context.get("csrf_token"),
    }
