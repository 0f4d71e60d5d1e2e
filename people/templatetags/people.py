"""What a signed-in visitor can do with another player, on that player's page (and what
My games offers for an opponent): challenge them, block or unblock them. And the
settings page's notifications part."""

from __future__ import annotations

from django import template

from accounts import bots
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
        # A bot is challenged as anyone is (casual, unless the viewer says yes to rated
        # games against bots); a bot signed in on the web challenges nobody from here.
        "bot": bots.is_bot(player),
        "may_challenge": not bots.is_bot(user),
        "blocked": blocked_by(user, player),
        "following": follows(user, player),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("people/_notifications.html", takes_context=True)
def notification_choices(context):
    """The settings page's notifications part: which kinds go by push and by email, and
    push on this device (people/forms.py ``notification_settings``)."""
    from people.forms import notification_settings

    user = context["user"]
    return {
        **notification_settings(user),
        "user": user,
        "csrf_token": context.get("csrf_token"),
    }
