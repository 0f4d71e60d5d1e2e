"""How a player's name is drawn, on every page: one line, ellipsised when long, the whole
name on hover (its title) and on focus (a long name can take the focus: site.css shows it
in full then). Screen readers read the whole name either way. A name of at most LONG
characters is never cut short (site.css gives a name 14em): it is drawn as plain text.

- ``{{ name|name }}``: a bare name ("Ada", a lobby row's "by Ada").
- ``{{ message|labels }}``: a message not tied to a match on the page (a flash: "You
  joined: you are Player 2 (Ada)"): each "Player N (name)" in it drawn as a name.
- ``{{ text|names:match }}``: a sentence with the match's players in it, as
  ``Match.player_name`` calls them ("Waiting for Player 1 (Ada)"): each typed name in it
  is drawn as a name. ``names_hover``: the same without the focus (the move list, where
  a long name on every line would be as many stops for the Tab key).
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# A name longer than this may be cut short on a narrow screen: it is drawn as a name, and
# takes the focus. (Twelve of the widest letters fit the 14em site.css allows a name.)
LONG = 12
# Punctuation that ends a clause after a player's label: kept with it on its line.
TAIL = r"([.,:;!?]*)"
# How the site calls a player with a name: "Player 1 (Ada)" (Match.player_name).
LABEL = re.compile(r"^(Player \d+ \()(.+)\)$", re.S)


def name_html(name: str, *, focusable: bool = True) -> SafeString:
    name = str(name)
    if len(name) <= LONG:
        return conditional_escape(name)
    focus = mark_safe(' tabindex="0"') if focusable else ""
    return format_html('<span class="name" title="{}"{}>{}</span>', name, focus, name)


def label_html(label: str, *, focusable: bool = True, tail: str = "") -> SafeString:
    """A player as the site calls them, the typed name drawn as a name; ``tail`` is the
    punctuation right after it in a sentence, kept on its line."""
    found = LABEL.match(label)
    if found is None or len(found.group(2)) <= LONG:
        return conditional_escape(label + tail)
    # One box, kept on one line, whose name gives way (site.css): "Player 1 (WWW…)", never
    # "Player 1 (" on one line and the name on the next, nor the full stop after it alone.
    return format_html(
        '<span class="named">{}{}){}</span>',
        found.group(1),
        name_html(found.group(2), focusable=focusable),
        tail,
    )


def with_names(text: str, labels, *, focusable: bool = True) -> SafeString:
    """``text``, escaped, with each of ``labels`` in it drawn by ``label_html`` (the longest
    first, in one pass: a name that contains another player's label is one name)."""
    text = str(text)
    wanted = sorted({label for label in labels if label}, key=len, reverse=True)
    if not wanted or not text:
        return conditional_escape(text)
    parts, at = [], 0
    for found in re.finditer("(" + "|".join(map(re.escape, wanted)) + ")" + TAIL, text):
        parts.append(escape(text[at : found.start()]))
        parts.append(label_html(found.group(1), focusable=focusable, tail=found.group(2)))
        at = found.end()
    parts.append(escape(text[at:]))
    return mark_safe("".join(parts))


def _labels(match) -> list[str]:
    return [match.player_name(1), match.player_name(2)] if match is not None else []


@register.filter
def name(value) -> SafeString:
    return name_html(value) if value not in (None, "") else ""


# "Player 1 (Ada)" in a message: the name up to the last ")" before the end of a clause.
IN_TEXT = re.compile(r"Player [12] \((?:[^()]|\([^()]*\))+\)")


@register.filter
def labels(value) -> SafeString:
    text = str(value)
    return with_names(text, IN_TEXT.findall(text))


@register.filter
def names(value, match) -> SafeString:
    return with_names(value, _labels(match))


@register.filter
def names_hover(value, match) -> SafeString:
    return with_names(value, _labels(match), focusable=False)
