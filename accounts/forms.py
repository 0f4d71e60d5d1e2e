"""Signing up, and the filters of My games."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import MaxLengthValidator

from accounts.my_games import RESULT_CHOICES
from games.models import Match

USERNAME_MAX = 30  # shown next to names of up to 40 characters, on a 360 px screen


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label="Email (optional)",
        required=False,
        help_text="Only used to reset a forgotten password, when this site can send email.",
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.max_length = USERNAME_MAX
        username.widget.attrs.update(maxlength=USERNAME_MAX, autocomplete="username")
        username.help_text = (
            f"Up to {USERNAME_MAX} characters: letters, digits and @ . + - _ only. "
            "Others see it next to your games."
        )
        username.validators.append(MaxLengthValidator(USERNAME_MAX))
        self.fields["email"].widget.attrs["autocomplete"] = "email"


class GamesFilter(forms.Form):
    """My games' filters of the finished list (a GET form: it works without JavaScript)."""

    game = forms.ChoiceField(
        label="Game", choices=[("", "All games"), *Match.GAME_CHOICES], required=False
    )
    result = forms.ChoiceField(
        label="Result", choices=[("", "Any result"), *RESULT_CHOICES], required=False
    )
