"""``{% match_notes match %}``: where a match began if set up from a position, and what it
belongs to (games/extras.py), above its board."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from games import extras

register = template.Library()


@register.simple_tag
def match_notes(match):
    notes = extras.match_notes(match)
    drawn = format_html_join("", '<p class="meta event-note">{}</p>', ((note,) for note in notes))
    if match.setup:  # a practice from a position: where it began
        drawn = (
            format_html('<p class="meta long-text" id="setup-note">{}</p>', match.setup_text)
            + drawn
        )
    return drawn


@register.simple_tag(takes_context=True)
def match_panels(context, match, viewer):
    """What the apps above games draw under a match's board (games/extras.py): the chat."""
    return mark_safe(extras.page_panels(match, viewer, context.get("request")))


@register.simple_tag(takes_context=True)
def replay_panels(context, match, viewer):
    return mark_safe(extras.replay_panels(match, viewer, context.get("request")))
