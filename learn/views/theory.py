"""The theory pages: why each game's perfect-play result holds, drawn from the rules.

``/games/<slug>/theory/?option=value``: the options are the new-match form's, with
its bounds; options that are not allowed get the page back with a plain message and
a 400, never a 500. The picture and its numbers come from ``learn.theory``, as an
expensive answer (learn/answers.py): rate-limited by its cost, cached by its cleaned
options and computed in the learn pool.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from learn import answers, theory


def _fields(game, values: dict) -> list[dict]:
    """The options form: each option with the value to show in its field."""
    return [
        {
            "option": option,
            "value": str(values.get(option.name, option.default)),
            "id": f"theory-{option.name}",
        }
        for option in game.options
    ]


@require_GET
@answers.costly("theory")
def theory_page(request, game):
    if not theory.has_theory(game):
        raise Http404("This game has no theory page.")
    query = {name: request.GET.get(name, "") for name in request.GET}
    try:
        repeated = [name for name, values in request.GET.lists() if len(values) != 1]
        if repeated:  # as the analysis board refuses it: which one is meant?
            name = repeated[0][:40]
            count = len(request.GET.getlist(repeated[0]))
            raise ValueError(f"{name!r} is given {count} times: give it once.")
        options = theory.clean(game, query)
    except ValueError as error:
        context = {"game": game, "error": str(error), "fields": _fields(game, query)}
        return render(request, "learn/theory.html", context, status=400)
    drawn = answers.theory(request, game, options)
    context = {"game": game, "theory": drawn, "fields": _fields(game, drawn.options)}
    return render(request, "learn/theory.html", context)
