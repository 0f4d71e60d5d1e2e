"""Names people go by: what a name typed may be, and when two names look alike.

A seat's display name is typed by whoever takes it; an account's user name is chosen once.
Neither may pass for an account's user name it is not: "Ada", "ada " or "\u0410da" (a
Cyrillic A) all read as the account ada. ``look(name)`` is the form two names share when a reader
would take one for the other (Unicode's confusables, from confusable-homoglyphs: a letter
of another script that looks like a Latin one reads as that one; case, width and
compatibility forms folded; spaces and the punctuation of user names dropped; 1, i and l
alike, 0 and o alike).

Who owns a name is the accounts app's to say (it keeps each account's look, indexed):
``register_owner(fn)``, ``fn(look, exclude_user)`` telling whether an account other than
``exclude_user`` has that look. Without one, a name belongs to the account whose user name
is the same but for case.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

from confusable_homoglyphs import confusables

MAX = 40  # a display name's characters, at most
_DROPPED = frozenset(" ._-+@'`\u2019")
_ALIKE = str.maketrans({"1": "l", "i": "l", "|": "l", "0": "o"})

_owner: Callable[[str, object], bool] | None = None


def clean(text: str) -> str:
    """A display name as typed: printable characters only, at most ``MAX``."""
    text = "".join(ch for ch in str(text) if unicodedata.category(ch)[0] != "C")
    return " ".join(text.split())[:MAX].rstrip()


@lru_cache(maxsize=4096)
def _letter(ch: str) -> str:
    found = confusables.is_confusable(ch, preferred_aliases=["latin"])
    if not found:
        return ch
    glyphs = found[0]["homoglyphs"]
    latin = [g["c"] for g in glyphs if g["n"].startswith("LATIN")]
    return (latin or [glyphs[0]["c"]])[0]


def look(name: str) -> str:
    """What ``name`` reads as: two names with the same look pass for each other."""
    text = unicodedata.normalize("NFKC", name).casefold()
    letters = "".join(_letter(ch) for ch in text if ch not in _DROPPED and not ch.isspace())
    return unicodedata.normalize("NFKC", letters).casefold().translate(_ALIKE)


def register_owner(fn: Callable[[str, object], bool]) -> None:
    global _owner
    _owner = fn


def passes_for_an_account(name: str, exclude_user=None) -> bool:
    """Whether ``name`` reads as the user name of an account other than ``exclude_user``."""
    if _owner is not None:
        return _owner(look(name), exclude_user)
    from django.contrib.auth import get_user_model

    accounts = get_user_model().objects.filter(username__iexact=name)
    if exclude_user is not None:
        accounts = accounts.exclude(pk=exclude_user.pk)
    return accounts.exists()
