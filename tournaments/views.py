"""The tournaments' pages: the list, one event's page, creating, joining and withdrawing.

Every action is a POST through the write path (tournaments/director.py) that works
without JavaScript (a redirect with a message) and answers htmx with the player's panel.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_POST

from games.browsers import signed_in_user
from games.http import plays_as_account, see_other
from games.views import limited
from tournaments import director, live
from tournaments.forms import TournamentForm
from tournaments.models import Entry, Tournament

FINISHED_SHOWN = 20


@require_GET
def tournament_list(request):
    return _list_page(request, TournamentForm() if signed_in_user(request) else None)


def _list_page(request, form, status: int = 200):
    """The list of events, with the form to create one (``form``: bound when it was
    refused, so that it names its fields' errors and keeps what was typed)."""
    events = Tournament.objects.order_by("starts_at", "pk")
    context = {
        "running": list(events.filter(status=Tournament.Status.RUNNING)),
        "upcoming": list(events.filter(status=Tournament.Status.UPCOMING)),
        "finished": list(
            Tournament.objects.filter(status=Tournament.Status.FINISHED).order_by("-ended_at")[
                :FINISHED_SHOWN
            ]
        ),
        "form": form,
    }
    return render(request, "tournaments/list.html", context, status=status)


@plays_as_account
@require_POST
@login_required
@limited("create")
def create(request):
    form = TournamentForm(request.POST)
    if not form.is_valid():
        return _list_page(request, form, status=400)
    data = form.cleaned_data
    try:
        tournament = director.create(
            name=data["name"],
            kind=data["kind"],
            game=data["game"],
            starts_at=timezone.now() + timedelta(minutes=data["starts_in"]),
            minutes=data["minutes"],
            rounds=data["rounds"],
            base=data["base"],
            increment=data["increment"],
            rated=data["rated"],
            by=request.user,
        )
    except (director.Refused, ValueError) as refusal:
        form.add_error(None, getattr(refusal, "message", str(refusal)))
        return _list_page(request, form, status=400)
    messages.info(request, f"{tournament.name} is made: share this page with the players.")
    return see_other(tournament.get_absolute_url())


def _event(public_id: str) -> Tournament:
    return get_object_or_404(Tournament, public_id=public_id)


@require_GET
def tournament(request, public_id):
    t = _event(public_id)
    user = signed_in_user(request)
    entry = (
        Entry.objects.filter(tournament=t, user=user).select_related("playing").first()
        if user
        else None
    )
    full = t.status == Tournament.Status.FINISHED or request.GET.get("all") == "1"
    context = {
        **live.shared_context(t, limit=None if full else live.SHOWN),
        "entry": entry,
        "signed_in": user is not None,
        "full": full,
    }
    return render(request, "tournaments/tournament.html", context)


def _answer(request, t: Tournament, message: str | None, *, status: int = 200):
    """The player's panel (htmx), or the page with a message."""
    if request.htmx:
        user = signed_in_user(request)
        entry = Entry.objects.filter(tournament=t, user=user).select_related("playing").first()
        html = live.render_panel(t, entry, signed_in=True)
        if message:
            # Beside the panel, not in it: the push of the same change redraws the panel
            # (on every page of the player), and would take the message away with it. A
            # refusal is an alert; what was done is said calmly, in words that stay true
            # after the event moves on (it starts, the player is paired), until the next.
            refused = status >= 400
            html += format_html(
                '<div id="t-notice" hx-swap-oob="true"><p class="notice{}" role="{}">{}</p></div>',
                "" if refused else " info",
                "alert" if refused else "status",
                message,
            )
        return HttpResponse(html, status=status)
    if message:
        (messages.error if status >= 400 else messages.info)(request, message)
    return see_other(t.get_absolute_url())


@plays_as_account
@require_POST
@login_required
@limited("join")
def join(request, public_id):
    t = _event(public_id)
    try:
        director.join(public_id, request.user)
    except director.Refused as refusal:
        return _answer(request, t, refusal.message, status=refusal.status)
    return _answer(request, t, f"You joined {t.name}.")


@require_POST
@login_required
@limited("join")
def withdraw(request, public_id):
    t = _event(public_id)
    try:
        director.withdraw(public_id, request.user)
    except director.Refused as refusal:
        return _answer(request, t, refusal.message, status=refusal.status)
    if t.status == Tournament.Status.UPCOMING:
        return _answer(request, t, "You left the tournament.")
    return _answer(request, t, "You are paused: you will not be paired again until you rejoin.")
