"""The challenges pages: challenge a player (their page links here), the account's
challenges (received and sent, live), answering and withdrawing, blocking; following;
the notifications, and what of them reaches the player away from the site (the settings
page's part: its form, and turning push on and off for a browser, with the service
worker that shows the pushes).

Every change is a POST with the CSRF token, through people/challenges.py; a refusal is
the page again with its message (the status says which: 400, 403, 404, 409, 429).
Without JavaScript each form posts and the page comes back; with it, the lists and the
header's badge follow every change live (people/live.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import bots
from accounts.names import player_or_404
from games.http import plays_as_account, see_other
from games.rules import GAMES, get_game
from games.views import limited
from people import challenges, friends, notifications, push
from people.forms import (
    ChallengeForm,
    DeclineForm,
    NotificationChoices,
    email_refusal,
    notification_settings,
)
from people.models import Challenge


def _signed_in(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return None


def _challenge_page(request, other, game, form, status=200, refusal=""):
    bot = bots.is_bot(other)
    context = {
        "other": other,
        "bot": bot,
        "rated_offered": not bot or bots.rates_against_bots(request.user),
        "name": other.get_username(),
        "game": game,
        "games": GAMES,
        "form": form,
        "refusal": refusal,
        "blocked": challenges.blocked_by(request.user, other),
    }
    return render(request, "people/challenge.html", context, status=status)


@require_GET
def challenge_player(request, username):
    """The challenge form's address without a game: the first game's form (or the one
    named by ``?game=``, as links made before the game was in the path say)."""
    if (answer := _signed_in(request)) is not None:
        return answer
    other = player_or_404(username)
    slug = request.GET.get("game") or GAMES[0].slug
    try:
        game = get_game(slug)
    except (KeyError, LookupError, ValueError):
        game = GAMES[0]
        return _challenge_page(
            request, other, game, ChallengeForm(game), 400, "There is no such game."
        )
    return redirect(reverse("challenge_player_game", args=[other.get_username(), game.slug]))


@plays_as_account
@require_http_methods(["GET", "HEAD", "POST"])
def challenge_player_game(request, username, game):
    """GET: the form for ``game``; POST: send the challenge."""
    if (answer := _signed_in(request)) is not None:
        return answer
    other = player_or_404(username)
    if request.method != "POST":
        return _challenge_page(request, other, game, ChallengeForm(game, initial={"rated": False}))
    return _send(request, other, game)


@limited("create")
def _send(request, other, game):
    form = ChallengeForm(game, request.POST)
    if not form.is_valid():
        return _challenge_page(request, other, game, form, 400)
    data = form.cleaned_data
    try:
        challenges.send(
            request.user,
            other,
            game=game.slug,
            options=data["options"],
            time_control=data["time_control"],
            rated=data["rated"],
            first=data["first"],
        )
    except challenges.Refused as refusal:
        return _challenge_page(request, other, game, form, refusal.status, refusal.message)
    messages.success(request, f"Challenge sent to {other.get_username()}: waiting for the answer.")
    return see_other(reverse("challenges"))


@require_GET
def challenges_page(request):
    if (answer := _signed_in(request)) is not None:
        return answer
    return _lists_page(request)


def _lists_page(request, status=200):
    context = {
        **challenges.lists(request.user.pk),
        "viewer_id": request.user.pk,
        "decline_form": DeclineForm(),
    }
    return render(request, "people/challenges.html", context, status=status)


def _answer(request, public_id, act):
    if (answer := _signed_in(request)) is not None:
        return answer
    try:
        challenge = act(public_id)
    except challenges.Refused as refusal:
        messages.error(request, refusal.message)
        return _lists_page(request, refusal.status)
    if challenge.status == Challenge.Status.ACCEPTED:
        return see_other(challenge.match.get_absolute_url())
    return see_other(reverse("challenges"))


@plays_as_account
@require_POST
def accept(request, public_id):
    return _answer(request, public_id, lambda pid: challenges.accept(pid, request.user))


@require_POST
def decline(request, public_id):
    form = DeclineForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    return _answer(request, public_id, lambda pid: challenges.decline(pid, request.user, reason))


@require_POST
def cancel(request, public_id):
    return _answer(request, public_id, lambda pid: challenges.cancel(pid, request.user))


@require_POST
def block(request, username):
    if (answer := _signed_in(request)) is not None:
        return answer
    other = player_or_404(username)
    try:
        challenges.block(request.user, other)
    except challenges.Refused as refusal:
        messages.error(request, refusal.message)
        return see_other(reverse("player", args=[username]))
    messages.info(
        request, f"You blocked {other.get_username()}: they cannot challenge you any more."
    )
    return see_other(reverse("player", args=[username]))


@require_POST
def unblock(request, username):
    if (answer := _signed_in(request)) is not None:
        return answer
    other = player_or_404(username)
    challenges.unblock(request.user, other)
    messages.info(request, f"You unblocked {other.get_username()}.")
    return see_other(reverse("player", args=[username]))


# ---- following ------------------------------------------------------------------------------


@require_GET
def friends_page(request):
    if (answer := _signed_in(request)) is not None:
        return answer
    return render(request, "people/friends.html", {"rows": friends.friends(request.user)})


def _following(request, username, act, said):
    if (answer := _signed_in(request)) is not None:
        return answer
    other = player_or_404(username)
    try:
        act(request.user, other)
    except friends.Refused as refusal:
        messages.error(request, refusal.message)
    else:
        messages.info(request, said.format(name=other.get_username()))
    return see_other(reverse("player", args=[username]))


@require_POST
def follow(request, username):
    return _following(request, username, friends.follow, "You follow {name}: see them in Friends.")


@require_POST
def unfollow(request, username):
    return _following(request, username, friends.unfollow, "You no longer follow {name}.")


# ---- notifications --------------------------------------------------------------------------


@require_GET
def notifications_page(request):
    if (answer := _signed_in(request)) is not None:
        return answer
    context = {"notices": notifications.latest(request.user.pk)}
    return render(request, "people/notifications.html", context)


@require_POST
def notifications_read(request):
    """Mark them all read."""
    if (answer := _signed_in(request)) is not None:
        return answer
    notifications.mark_read(request.user.pk)
    return see_other(reverse("notifications"))


@require_POST
def notification_open(request, pk):
    """Open one: marked read, then its page."""
    if (answer := _signed_in(request)) is not None:
        return answer
    found = notifications.mark_read(request.user.pk, pk)
    if found is None:
        messages.error(request, "There is no such notification.")
        return see_other(reverse("notifications"))
    return see_other(found.url if found.url.startswith("/") else reverse("notifications"))


# ---- notifications away from the site: the settings page's part -----------------------------

SETTINGS_ANCHOR = "#notifications-title"


@require_POST
def notification_choices(request):
    """Save which kinds go by push and by email; the settings page again. A choice the
    page did not offer is refused (400, the reason on the page) and nothing changes."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("account_settings"))
    form = NotificationChoices(request.POST, email_offered=not email_refusal(request.user))
    if not form.is_valid():
        context = notification_settings(request.user, form)
        return render(request, "people/notification_settings.html", context, status=400)
    form.save(request.user)
    messages.success(request, "Your notification choices are saved.")
    return see_other(reverse("account_settings") + SETTINGS_ANCHOR)


def _refused(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _too_long(request) -> bool:
    """A body over push.MAX_BODY, told by its length before it is read."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > push.MAX_BODY
    except ValueError:
        return True


@require_POST
def push_subscribe(request):
    """A browser turns push on (static/site/push.js posts its ``PushSubscription.toJSON()``,
    with the CSRF token in X-CSRFToken): 201, or 400/403 with the reason as JSON."""
    if not request.user.is_authenticated:
        return _refused("Sign in to turn on push notifications.", 403)
    if _too_long(request):
        return _refused("That is too long for a push subscription.")
    try:
        found = push.parse(request.body)
    except push.Invalid as refusal:
        return _refused(refusal.message)
    push.subscribe(request.user, found, request.headers.get("User-Agent", ""))
    return JsonResponse({"ok": True}, status=201)


@require_POST
def push_unsubscribe(request):
    """Turn push off: for this browser (push.js posts ``{"endpoint": ...}`` as JSON), or
    for one of the account's devices listed on the settings page (a form, ``subscription``
    its id). Only the account's own."""
    as_json = request.content_type == "application/json"
    if not request.user.is_authenticated:
        if as_json:
            return _refused("Sign in to turn off push notifications.", 403)
        return redirect_to_login(reverse("account_settings"))
    if as_json:
        if _too_long(request):
            return _refused("That is too long.")
        try:
            endpoint = json.loads(request.body).get("endpoint")
        except (ValueError, UnicodeDecodeError, AttributeError):
            endpoint = None
        if not isinstance(endpoint, str):
            return _refused("Say which endpoint to turn off.")
        removed = push.unsubscribe(request.user, endpoint=endpoint)
        return JsonResponse({"ok": True, "removed": removed})
    pk = request.POST.get("subscription", "")
    if not pk.isdigit() or len(pk) > 18 or not push.unsubscribe(request.user, pk=int(pk)):
        messages.error(request, "There is no such device with push on.")
    else:
        messages.success(request, "Push notifications are off for that device.")
    return see_other(reverse("account_settings") + SETTINGS_ANCHOR)


@require_GET
def service_worker(request):
    """static/site/sw.js at the site's root, so that its scope is the whole site: it shows
    each push and opens its page when it is clicked."""
    found = finders.find("site/sw.js")
    if not found:
        raise Http404("No service worker.")
    response = HttpResponse(Path(found).read_bytes(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"  # a new version is taken at the next visit
    return response
