"""``{% match_notes match %}``: what a match belongs to (games/extras.py), above its board."""

from django import template
from django.utils.html import format_html_join

from games import extras

register = template.Library()


@register.simple_tag
def match_notes(match):
    notes = extras.match_notes(match)
    return format_html_join("", '<p class="meta event-note">{}</p>', ((note,) for note in notes))
