"""Signing up, signing in (the site's form and the admin's), and the filters of My games."""

from __future__ import annotations

from axes.models import AccessAttempt
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator

from accounts.my_games import RESULT_CHOICES
from games.models import Match
from games.names import passes_for_an_account

USERNAME_MAX = 30  # shown next to names of up to 40 characters, on a 360 px screen


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label="Email (optional)",
        required=False,
        help_text=(
            "Only used to reset a forgotten password and, if you choose, for notifications, "
            "when this site can send email."
        ),
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

    def clean_username(self):
        """Django's checks, then: no other account's user name may read the same
        (games/names.py: case, spacing and look-alike letters aside)."""
        username = super().clean_username()
        if username and passes_for_an_account(username):
            raise forms.ValidationError(
                "That user name reads as another account's: please choose another.",
                code="looks_taken",
            )
        return username


class NameLengthChecked:
    """A sign-in form that refuses a user name longer than any account's before it
    authenticates. Django's AuthenticationForm sets its field's ``max_length`` after the
    field is made, so nothing checked it: a 256-character name reached ``authenticate``,
    and django-axes' record of the failure overflowed its column (a 500 on PostgreSQL)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        field.validators.append(
            MaxLengthValidator(
                field.max_length,
                message=f"No account has a user name that long: at most {field.max_length} "
                "characters.",
            )
        )


class SignInForm(NameLengthChecked, AuthenticationForm):
    """The site's sign-in form (accounts.views.login_view)."""


class AdminSignInForm(NameLengthChecked, AdminAuthenticationForm):
    """The admin's sign-in form (accounts/admin.py sets it on the admin site)."""


AXES_USERNAME_MAX = AccessAttempt._meta.get_field("username").max_length


def axes_username(request, credentials) -> str | None:
    """AXES_USERNAME_CALLABLE: the user name django-axes records and locks out, as axes
    finds it itself (the credentials given to ``authenticate``, else the form), cut to
    what its records hold. Every ``authenticate`` call goes through it, whatever form
    made it, so no record overflows even where a form does not check the length."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")  # axes' default
    source = credentials or getattr(request, "POST", None) or {}
    username = source.get(field)
    return username[:AXES_USERNAME_MAX] if isinstance(username, str) else username


class GamesFilter(forms.Form):
    """My games' filters of the finished list (a GET form: it works without JavaScript)."""

    game = forms.ChoiceField(
        label="Game", choices=[("", "All games"), *Match.GAME_CHOICES], required=False
    )
    result = forms.ChoiceField(
        label="Result", choices=[("", "Any result"), *RESULT_CHOICES], required=False
    )
