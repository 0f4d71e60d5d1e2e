"""``{% load learn_puzzles %}``: ``game.slug|has_puzzles``, so that a page links a game's
puzzles only when it has some (Bitwise Battle and Last Bit Standing have none)."""

from django import template

from learn import puzzles

register = template.Library()


@register.filter
def has_puzzles(slug: str) -> bool:
    return bool(puzzles.puzzles_of(slug))
