"""The challenge form: a new match's terms (games.forms.NewMatchForm: the options, the
clock, rated, who moves first), without what a direct challenge fixes (the opponent is
the player challenged, a person; no listing, no names)."""

from __future__ import annotations

from django import forms

from games.forms import NewMatchForm
from games.models import Match
from people.models import Challenge

FIXED = ("opponent", "level", "listed", "name", "opponent_name")


class ChallengeForm(NewMatchForm):
    def __init__(self, game, *args, **kwargs):
        super().__init__(game, *args, signed_in=True, **kwargs)
        for name in FIXED:
            del self.fields[name]
        self.fields["rated"].label = "Rated: the result changes both players' ratings"

    def clean(self):
        # NewMatchForm.clean reads the opponent from the cleaned data: a person, always.
        self.cleaned_data["opponent"] = Match.Mode.FRIEND
        return super().clean()


class DeclineForm(forms.Form):
    reason = forms.ChoiceField(
        label="Why", choices=Challenge.Reason.choices, initial=Challenge.Reason.GENERIC
    )
