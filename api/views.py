"""The settings page's API tokens: list, make (the token shown once) and revoke."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from api import tokens
from api.forms import TokenForm
from api.models import Token
from games.http import see_other
from games.views import limited


def _page(request, form=None, made=None, status=200):
    context = {
        "form": form or TokenForm(),
        "tokens": Token.objects.filter(user=request.user, revoked_at=None),
        "made": made,
        "max_tokens": tokens.MAX_ACTIVE,
    }
    return render(request, "api/tokens.html", context, status=status)


@require_http_methods(["GET", "POST"])
def create_token(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if request.method == "GET":
        return _page(request)
    return _create(request)


@limited("account", by_browser=True)
def _create(request):
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        token, text = tokens.create(
            request.user, form.cleaned_data["name"], form.cleaned_data["scopes"]
        )
    except tokens.Refused as refusal:
        form.add_error(None, refusal.message)
        return _page(request, form, status=400)
    # Shown this once, in this answer (never stored, never in a message or the session).
    response = _page(request, made={"token": token, "text": text}, status=201)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
def revoke_token(request, pk: int):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("api_token_create"))
    token = tokens.revoke(request.user, pk)
    if token is None:
        messages.error(request, "There is no such token of yours (already revoked?).")
    else:
        messages.success(request, f"The token “{token.name}” is revoked: it no longer works.")
    return see_other(reverse("api_token_create"))
