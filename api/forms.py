from django import forms

from api.models import Scope


class TokenForm(forms.Form):
    name = forms.CharField(label="Name (what it is for)", max_length=60)
    scopes = forms.MultipleChoiceField(
        label="What it may do",
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Scope.READ],
    )
