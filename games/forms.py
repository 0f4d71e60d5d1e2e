"""The "New match" form of each game: its options (from the rules), who starts, the opponent."""

from __future__ import annotations

from django import forms

from games.models import Match
from games.rules import Game
from games.rules.computer import LEVELS


class NewMatchForm(forms.Form):
    first = forms.ChoiceField(
        label="Who moves first",
        choices=Match.First.choices,
        initial=Match.First.ME,
        widget=forms.RadioSelect,
    )
    opponent = forms.ChoiceField(
        label="Opponent",
        choices=Match.Mode.choices,
        initial=Match.Mode.FRIEND,
        widget=forms.RadioSelect,
    )
    level = forms.ChoiceField(
        label="Computer level",
        choices=Match.LEVEL_CHOICES,
        initial="strong",
        required=False,
    )
    name = forms.CharField(label="Your name (optional)", max_length=40, required=False)
    opponent_name = forms.CharField(
        label="Second player's name (same device, optional)", max_length=40, required=False
    )

    def __init__(self, game: Game, *args, **kwargs):
        kwargs.setdefault("prefix", game.slug)
        super().__init__(*args, **kwargs)
        self.game = game
        self.option_names = []
        for option in game.options:
            if option.choices:
                field = forms.ChoiceField(
                    label=option.label, choices=option.choices, initial=option.default
                )
            else:
                field = forms.IntegerField(
                    label=option.label,
                    initial=option.default,
                    min_value=option.minimum,
                    max_value=option.maximum,
                )
            field.help_text = option.help
            self.fields[option.name] = field
            self.option_names.append(option.name)
        # The options come first, in the game's order.
        order = self.option_names + [n for n in self.fields if n not in self.option_names]
        self.order_fields(order)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        options = {name: data[name] for name in self.option_names}
        try:
            data["options"] = self.game.clean_options(options)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
        if data.get("opponent") == Match.Mode.COMPUTER and data.get("level") not in LEVELS:
            self.add_error("level", "Choose the computer's level.")
        return data

    @property
    def option_fields(self):
        return [self[name] for name in self.option_names]
