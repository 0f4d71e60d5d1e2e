"""The "New match" form of each game: its options (from the rules), who starts, the opponent.

The new-match page shows the computer's level only when the opponent is the computer,
and the clock only when it is not, and "List it in the lobby" only for a friend (CSS
``:has()`` on the checked opponent, so without JavaScript too). A hidden field still
travels with the form, so what it hides is ignored here rather than refused: the level of
a match between people, the clock of a match against the computer, and "Rated" and the
listing of anything but a friend's match. "Rated" is offered only to a signed-in player
(``signed_in``); posted by anyone else, it is ignored.
"""

from __future__ import annotations

from django import forms

from games import clock
from games.models import Match
from games.rules import Game
from games.rules.computer import LEVELS

TIME_CONTROLS = (
    [("none", "No clock")]
    + [(f"{m}+{i}", f"{m}+{i} (minutes + seconds a move)") for m, i in clock.PRESETS]
    + [("custom", "Real time, my choice"), ("correspondence", "Correspondence (days a move)")]
)


# The opponent, as the new-match page offers it (the values are Match.Mode's).
OPPONENTS = [
    (Match.Mode.FRIEND, "Play a friend (send them a link)"),
    (Match.Mode.COMPUTER, "Play the computer"),
    (Match.Mode.HOTSEAT, "Pass and play on one device"),
]


class NewMatchForm(forms.Form):
    first = forms.ChoiceField(
        label="Who moves first",
        choices=Match.First.choices,
        initial=Match.First.ME,
        widget=forms.RadioSelect,
    )
    opponent = forms.ChoiceField(
        label="Opponent",
        choices=OPPONENTS,
        initial=Match.Mode.FRIEND,
        widget=forms.RadioSelect,
    )
    level = forms.ChoiceField(
        label="Computer level",
        choices=Match.LEVEL_CHOICES,
        initial="strong",
        widget=forms.RadioSelect,
        required=False,
    )
    time_control = forms.ChoiceField(
        label="Clock",
        choices=TIME_CONTROLS,
        initial="none",
        widget=forms.RadioSelect,
        required=False,  # none
    )
    minutes = forms.IntegerField(
        label="Minutes each",
        min_value=clock.BASE_MINUTES[0],
        max_value=clock.BASE_MINUTES[1],
        initial=5,
        required=False,
    )
    increment = forms.IntegerField(
        label="Seconds added a move",
        min_value=clock.INCREMENT_SECONDS[0],
        max_value=clock.INCREMENT_SECONDS[1],
        initial=3,
        required=False,
    )
    days = forms.TypedChoiceField(
        label="Days a move",
        choices=[(d, f"{d} day{'s' if d > 1 else ''}") for d in clock.DAYS],
        coerce=int,
        initial=3,
        required=False,
    )
    # An open challenge in the lobby (lobby/): anyone may take the second seat.
    listed = forms.BooleanField(
        label="List it in the lobby (anyone may take the seat)", required=False
    )
    name = forms.CharField(label="Your name (optional)", max_length=40, required=False)
    opponent_name = forms.CharField(
        label="Second player's name (same device, optional)", max_length=40, required=False
    )

    rated = forms.BooleanField(
        label="Rated: the result changes both players' ratings (your friend needs an account)",
        required=False,
    )

    def __init__(self, game: Game, *args, signed_in: bool = False, **kwargs):
        kwargs.setdefault("prefix", game.slug)
        super().__init__(*args, **kwargs)
        self.game = game
        if not signed_in:
            del self.fields["rated"]
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
        if data.get("opponent") == Match.Mode.COMPUTER:
            if data.get("level") not in LEVELS:
                self.add_error("level", "Choose the computer's level.")
        else:
            data["level"] = ""  # hidden for a match between people: ignored
        if data.get("opponent") != Match.Mode.FRIEND:
            data["listed"] = False  # hidden unless playing a friend: ignored
        data["time_control"] = self._time_control(data)
        # Rated: only a friend's match between accounts (hidden, and ignored, otherwise).
        data["rated"] = bool(data.get("rated")) and data.get("opponent") == Match.Mode.FRIEND
        return data

    def _time_control(self, data) -> dict:
        choice = data.get("time_control") or "none"
        if choice == "none":
            return {}
        if data.get("opponent") == Match.Mode.COMPUTER:
            return {}  # hidden against the computer: no clock (the write path refuses one)
        if choice == "correspondence":
            return {"clock": Match.Clock.CORRESPONDENCE, "days": data.get("days") or 3}
        if choice == "custom":
            minutes, increment = data.get("minutes"), data.get("increment")
            if minutes is None:
                self.add_error("minutes", "How many minutes each?")
                return {}
            base, increment = minutes * 60, increment or 0
        else:
            base_minutes, increment = (int(part) for part in choice.split("+"))
            base = base_minutes * 60
        return {"clock": Match.Clock.REALTIME, "base": base, "increment": increment}

    @property
    def option_fields(self):
        return [self[name] for name in self.option_names]
