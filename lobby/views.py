"""The lobby's pages and actions: the home page with the open challenges, the watch page,
accepting and withdrawing a challenge, and "Play anyone".

Accepting goes through the same join as a share link (``games.play.join``), withdrawing
through the write path too; every action is a POST that works without JavaScript (a
redirect) and answers htmx with a message for the lobby, or a redirect to the match.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import play, rights
from games.browsers import (
    remember_name,
    remembered_name,
    seat_token,
    signed_in_user,
    typed_name,
)
from games.http import plays_as_account, refusal_status, see_other
from games.models import Match
from games.rights import Refused
from games.rules import GAMES
from games.views import limited
from lobby import challenges, live

# What a refusal of the join means here, in the lobby's words.
ACCEPT_WORDS = {
    rights.OwnMatch: "This is your own challenge: wait for someone to accept it.",
    rights.SeatsTaken: "That challenge is no longer open: someone accepted it first, or it "
    "was withdrawn.",
}


def _challenger(request) -> challenges.Challenger:
    """This browser, as the lobby recognises a challenge's creator (a visit makes no
    session)."""
    user = signed_in_user(request)
    return challenges.Challenger.of(request.session.get("token"), user.pk if user else None)


@require_GET
def home(request):
    context = {
        "games": GAMES,
        "challenges": live.challenge_rows(_challenger(request)),
        "lobby_name": remembered_name(request),
    }
    return render(request, "lobby/home.html", context)


@require_GET
def watch(request):
    return render(request, "lobby/watch.html", {"cards": live.watch_cards()})


def _answer(request, message: str, *, status: int = 200, level: str = "error"):
    """A message for the lobby: in its notice area (htmx), or on the home page."""
    if request.htmx:
        html = render_to_string("lobby/notice.html", {"message": message, "level": level})
        return HttpResponse(html, status=status)
    messages.add_message(request, messages.ERROR if level == "error" else messages.INFO, message)
    return see_other(reverse("home"))


def _landed(request, match: Match, message: str):
    """On to the match page (a full load, so that its socket carries the seat)."""
    messages.info(request, message)
    if request.htmx:
        return HttpResponseClientRedirect(match.get_absolute_url())
    return see_other(match.get_absolute_url())


def _listed_or_404(public_id: str) -> Match:
    """A challenge of the lobby: a match that is not listed is never one (its share link
    is the way in)."""
    match = Match.objects.filter(public_id=public_id, listed=True).first()
    if match is None:
        raise Http404("There is no such challenge.")
    return match


@plays_as_account
@require_POST
@limited("join")
def accept(request, public_id):
    """Take the second seat of an open challenge: the share link's join."""
    user = signed_in_user(request)
    try:
        name = play.display_name(typed_name(request, request.POST.get("name")), user)
        match = challenges.accept(public_id, token=seat_token(request), user=user, name=name)
    except rights.NoSuchMatch:
        raise Http404("There is no such challenge.") from None
    except Refused as refusal:
        message = ACCEPT_WORDS.get(type(refusal), refusal.message)
        return _answer(request, message, status=refusal_status(refusal))
    remember_name(request, match.seat2_name)
    player = match.player_name(match.player_of_seat(2))
    return _landed(request, match, f"You accepted the challenge: you are {player}.")


@require_POST
@limited("move")
def withdraw(request, public_id):
    """The creator withdraws an open challenge: it is cancelled (never a started match)."""
    _listed_or_404(public_id)
    try:
        play.withdraw_challenge(public_id, by=play.Actor(token=request.session.get("token")))
    except Refused as refusal:
        return _answer(request, refusal.message, status=refusal_status(refusal))
    return _answer(request, "Your challenge was withdrawn.", level="info")


@plays_as_account
@require_POST
@limited("lobby")
def play_anyone(request, game):
    """Quick pairing: the oldest compatible open challenge, else a new one; pressed again
    (a double click, another tab or device of the account), the same answer."""
    user = signed_in_user(request)
    try:  # a name that is another account's is refused before anything is written
        name = play.display_name(typed_name(request, request.POST.get("name")), user)
    except Refused as refusal:
        return _answer(request, refusal.message, status=refusal_status(refusal))
    match, pairing = challenges.play_anyone(
        game.slug, token=seat_token(request), user=user, name=name
    )
    remember_name(request, name)
    if pairing == challenges.Pairing.TOOK:
        player = match.player_name(match.player_of_seat(2))
        return _landed(request, match, f"You accepted an open challenge: you are {player}.")
    if pairing == challenges.Pairing.PLAYING:
        return _landed(
            request,
            match,
            f"You are already playing {game.title} from the lobby: here is your match. "
            "Finish it (or resign) to be paired again.",
        )
    return _landed(
        request,
        match,
        "Your challenge is open in the lobby: the first person to accept it plays you here. "
        "Keep this page open.",
    )
