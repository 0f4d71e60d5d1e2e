"""Creating a tournament from the site: a few choices, each bounded."""

from __future__ import annotations

from django import forms

from games.models import Match
from tournaments.models import Tournament

STARTS_IN = [(2, "in 2 minutes"), (5, "in 5 minutes"), (15, "in 15 minutes"), (60, "in an hour")]
MINUTES = [(20, "20 minutes"), (45, "45 minutes"), (60, "an hour")]
ROUNDS = [(n, f"{n} rounds") for n in (3, 4, 5, 7, 9)]
BASE = [(60, "1 minute"), (180, "3 minutes"), (300, "5 minutes"), (600, "10 minutes")]
INCREMENT = [(0, "no increment"), (2, "2 seconds a move"), (5, "5 seconds a move")]


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=60, required=False, label="Name (optional)")
    kind = forms.ChoiceField(choices=Tournament.Kind.choices, initial=Tournament.Kind.ARENA)
    game = forms.ChoiceField(choices=Match.GAME_CHOICES)
    starts_in = forms.TypedChoiceField(choices=STARTS_IN, coerce=int, initial=5, label="Starts")
    minutes = forms.TypedChoiceField(
        choices=MINUTES, coerce=int, initial=45, label="Arena: duration"
    )
    rounds = forms.TypedChoiceField(choices=ROUNDS, coerce=int, initial=5, label="Swiss: rounds")
    base = forms.TypedChoiceField(choices=BASE, coerce=int, initial=180, label="Clock")
    increment = forms.TypedChoiceField(choices=INCREMENT, coerce=int, initial=2, label="Increment")
    rated = forms.BooleanField(required=False, initial=True, label="Rated")

    def clean_name(self):
        """Printable characters, spaces tidied; as long as the field allows (a player's
        display name, games.names.clean, is cut at 40: an event's name may be longer)."""
        import unicodedata

        text = "".join(ch for ch in self.cleaned_data["name"] if unicodedata.category(ch)[0] != "C")
        return " ".join(text.split())
