"""The challenge form: a new match's terms (games.forms.NewMatchForm: the options, the
clock, rated, who moves first), without what a direct challenge fixes (the opponent is
the player challenged, a person; no listing, no names). And the notification choices of
the settings page: which kinds also go by push, and by email."""

from __future__ import annotations

from django import forms

from games.forms import NewMatchForm
from games.models import Match
from people.models import Challenge, Notification, NotificationPreference, PushSubscription

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


# ---- notifications away from the site (the settings page) ----------------------------------


class NotificationChoices(forms.Form):
    """For each kind of notification: whether it also goes by push, and by email (only
    when email is offered: the site can send it and the account has an address)."""

    push = forms.MultipleChoiceField(choices=Notification.Kind.choices, required=False)
    email = forms.MultipleChoiceField(choices=Notification.Kind.choices, required=False)

    def __init__(self, *args, email_offered: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.email_offered = email_offered

    def clean_email(self):
        chosen = self.cleaned_data["email"]
        if chosen and not self.email_offered:
            raise forms.ValidationError(
                "This site cannot email you (it sends no email, or your account has no "
                "address): choose push only."
            )
        return chosen

    def save(self, user) -> NotificationPreference:
        preference, _ = NotificationPreference.objects.get_or_create(user=user)
        preference.push = self.cleaned_data["push"]
        if self.email_offered:  # else what was chosen before is kept (and not sent)
            preference.email = self.cleaned_data["email"]
        preference.save()
        return preference


def email_refusal(user) -> str:
    """Why email cannot be offered to ``user`` ("" when it can)."""
    from people.delivery import email_available

    if not email_available():
        return "This site does not send email, so notifications come in the bell and by push."
    if not user.email:
        return "Your account has no email address, so none can be sent to you."
    return ""


def notification_settings(user, form: NotificationChoices | None = None) -> dict:
    """What the settings page's notifications part shows (people/_notifications.html)."""
    from accounts.devices import describe
    from people import push

    preference = NotificationPreference.objects.filter(user=user).first()
    push_on = set(preference.push if preference else ())
    email_on = set(preference.email if preference else ())
    if form is not None and form.is_bound:  # as posted, when it is shown again
        push_on = set(form.data.getlist("push"))
        email_on = set(form.data.getlist("email"))
    refusal = email_refusal(user)
    devices = [
        {"subscription": s, "browser": describe(s.user_agent)}
        for s in PushSubscription.objects.filter(user=user)
    ]
    return {
        "rows": [
            {"kind": kind, "label": label, "push": kind in push_on, "email": kind in email_on}
            for kind, label in Notification.Kind.choices
        ],
        "email_offered": not refusal,
        "email_refusal": refusal,
        "push_devices": devices,
        "vapid_public_key": push.public_key(),
        "form": form,
    }
