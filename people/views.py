"""The challenges pages: challenge a player (their page links here), the account's
challenges (received and sent, live), answering and withdrawing, blocking.

Every change is a POST with the CSRF token, through people/challenges.py; a refusal is
the page again with its message (the status says which: 400, 403, 404, 409, 429).
Without JavaScript each form posts and the page comes back; with it, the lists and the
header's badge follow every change live (people/live.py).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.http import see_other
from games.rules import GAMES, get_game
from games.views import limited
from people import challenges, friends, notifications
from people.forms import ChallengeForm, DeclineForm
from people.models import Challenge


def _player(username: str):
    User = get_user_model()
    return get_object_or_404(User, **{User.USERNAME_FIELD: username, "is_active": True})


def _signed_in(request):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return None


def _game(request) -> object:
    slug = request.GET.get("game") or request.POST.get("game") or GAMES[0].slug
    try:
        return get_game(slug)
    except (KeyError, LookupError, ValueError):
        return None


def _challenge_page(request, other, game, form, status=200, refusal=""):
    context = {
        "other": other,
        "name": other.get_username(),
        "game": game,
        "games": GAMES,
        "form": form,
        "refusal": refusal,
        "blocked": challenges.blocked_by(request.user, other),
    }
    return render(request, "people/challenge.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def challenge_player(request, username):
    """GET: the form (the game chosen by ``?game=``); POST: send the challenge."""
    if (answer := _signed_in(request)) is not None:
        return answer
    other = _player(username)
    game = _game(request)
    if game is None:
        game = GAMES[0]
        return _challenge_page(
            request, other, game, ChallengeForm(game), 400, "There is no such game."
        )
    if request.method != "POST":
        return _challenge_page(request, other, game, ChallengeForm(game))
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
    other = _player(username)
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
    other = _player(username)
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
    other = _player(username)
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
