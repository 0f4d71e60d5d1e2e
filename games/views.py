"""Pages and actions. One function view per action; every change is a POST.

htmx requests get the board partial; other requests get the full page, and
actions answer them with POST-redirect-GET, so every form also works without
JavaScript. Refusals come back as the board with a message and a 4xx status
(the base template tells htmx to swap 4xx responses).
"""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.http import HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import actions, limits, live, play
from games.boards import board_context, render_board, render_notice, told_notice
from games.browsers import (
    browser_key,
    keep_browser_key,
    remember_name,
    remembered_name,
    seat_token,
    signed_in_user,
    typed_name,
)
from games.forms import NewMatchForm
from games.http import plays_as_account, refusal_status, see_other
from games.models import Match
from games.play import Actor
from games.rights import Refused, viewer_from_session


def limited(action: str, *, by_browser: bool = False):
    """Count the request against ``action``'s rate limits (games/limits.py); past one, it
    is answered 429 and nothing changes. ``by_browser``: the per-browser limit counts by
    the browser's own key (games.browsers.browser_key), not by its session, for actions
    that start a new session (signing up), which a session's count would never stop."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            browser = browser_key(request) if by_browser else None
            if limits.over_limit(request, action, browser=browser):
                response = too_fast(request, kwargs.get("public_id"))
            else:
                response = view(request, *args, **kwargs)
            return keep_browser_key(request, response) if by_browser else response

        return wrapper

    return decorate


def too_fast(request, public_id: str | None = None):
    match = Match.objects.filter(public_id=public_id).first() if public_id else None
    if request.htmx and match is not None:
        return _board(request, match, message=limits.TOO_FAST, status=429)
    return render(
        request, "too_fast.html", {"message": limits.TOO_FAST, "match": match}, status=429
    )


def _match_or_404(public_id: str) -> Match:
    return get_object_or_404(Match, public_id=public_id)


def _actor(request) -> Actor:
    """This browser, by its session's secret: the write path finds its seats."""
    return Actor(token=request.session.get("token"))


def _refused(request, public_id: str, refusal: Refused):
    """The answer to a refusal: the current board, with the message and its status."""
    match = _match_or_404(public_id)
    return _board(request, match, message=refusal.message, status=refusal_status(refusal))


def _share_url(request, match: Match) -> str:
    return request.build_absolute_uri(match.get_absolute_url())


def _board(
    request,
    match: Match,
    *,
    message: str = "",
    status: int = 200,
    level: str = "error",
    fresh: bool = False,
):
    """The answer to an action: the board partial for htmx, else a redirect to the match.

    ``fresh``: ``match`` is the row as the write path left it (no need to read it again);
    if the push of that change rendered this viewer's board, the answer is that board
    (with what the change tells this viewer, ``match.told``: a declined draw offer).
    ``message``: the answer's own notice. An answer without one leaves the page's notice
    as it is: the page clears it as its viewer acts (static/site/site.js).
    """
    told = getattr(match, "told", None) if fresh else None
    if request.htmx:
        if not fresh:
            match.refresh_from_db()
        viewer = viewer_from_session(request.session, match)
        pushed = getattr(match, "pushed", None) if fresh else None
        if pushed and viewer.key in pushed:
            html = pushed[viewer.key] + (render_notice(message, level) if message else "")
            return HttpResponse(html, status=status)
        html = render_board(
            match,
            viewer,
            request=request,
            message=message,
            message_level=level,
            share_url=_share_url(request, match),
            told=told,
        )
        return HttpResponse(html, status=status)
    if not message and told is not None:  # without JavaScript: told on the next page
        message = told_notice(match, viewer_from_session(request.session, match), told)
        level = "info"
    if message:
        messages.add_message(
            request, messages.ERROR if level == "error" else messages.INFO, message
        )
    return see_other(match.get_absolute_url())


# ---- pages -----------------------------------------------------------------------


@require_GET
def rules_page(request, game):
    start = game.start()
    return render(
        request,
        "games/rules.html",
        {
            "game": game,
            "analysis": game.analyse(start),
            "start": start,
            "rules_template": f"games/rules/{game.slug}.html",
        },
    )


def _new_match_page(request, game, form, status: int = 200):
    return render(request, "games/new_match.html", {"game": game, "form": form}, status=status)


@require_GET
def match_page(request, public_id):
    match = play.settle_time(_match_or_404(public_id))  # a clock that ran out ends it first
    viewer = viewer_from_session(request.session, match)
    share_url = _share_url(request, match)
    if request.htmx:
        return HttpResponse(render_board(match, viewer, request=request, share_url=share_url))
    context = board_context(match, viewer, share_url=share_url)
    (context["watching"],) = live.spectator_counts([match.public_id])  # "N watching"
    return render(request, "games/match.html", context)


# ---- actions ---------------------------------------------------------------------


@plays_as_account
@require_http_methods(["GET", "HEAD", "POST"])
def new_match(request, game):
    """The new-match page of a game (GET), and the start of a match (POST)."""
    if request.method == "POST":
        return _create_match(request, game)
    account = signed_in_user(request)
    initial = {"name": remembered_name(request)}
    form = NewMatchForm(game, initial=initial, signed_in=account is not None)
    return _new_match_page(request, game, form)


@plays_as_account
@require_http_methods(["GET", "HEAD", "POST"])
def old_new_match(request, game):
    """``/games/<slug>/new``, where the form used to post: a POST still starts a match,
    anything else goes to the new-match page."""
    if request.method == "POST":
        return _create_match(request, game)
    return HttpResponsePermanentRedirect(reverse("new_match", args=[game.slug]))


@limited("create")
def _create_match(request, game):
    form = NewMatchForm(game, request.POST, signed_in=request.user.is_authenticated)
    if not form.is_valid():  # the page again, with the errors (nothing was created)
        return _new_match_page(request, game, form, status=400)
    data = form.cleaned_data
    if data.get("listed") and limits.over_limit(request, "lobby"):
        return too_fast(request)
    try:
        match = play.create_match(
            game.slug,
            token=seat_token(request),
            options=data["options"],
            mode=data["opponent"],
            first=data["first"],
            level=data.get("level") or "",
            name=typed_name(request, data.get("name", "")),
            opponent_name=data.get("opponent_name", ""),
            time_control=data.get("time_control"),
            user=signed_in_user(request),
            rated=data["rated"],
            listed=data.get("listed", False),
        )
    except Refused as refusal:  # a name that is another account's: nothing was created
        form.add_error(None, refusal.message)
        return _new_match_page(request, game, form, status=refusal_status(refusal))
    remember_name(request, match.seat1_name)
    if match.computer_to_move:  # the computer moves first
        play.computer_move(match.public_id)
    return see_other(match.get_absolute_url())


@plays_as_account
@require_POST
@limited("join")
def join(request, public_id):
    match = _match_or_404(public_id)
    try:
        match = play.join(
            public_id,
            token=seat_token(request),
            name=typed_name(request, request.POST.get("name", "")),
            user=signed_in_user(request),
        )
    except Refused as refusal:
        return _board(request, match, message=refusal.message, status=refusal_status(refusal))
    remember_name(request, match.seat2_name)
    player = match.player_of_seat(2)
    messages.info(request, f"You joined: you are {match.player_name(player)}.")
    # A full reload, so that the page's websocket carries the new seat.
    if request.htmx:
        return HttpResponseClientRedirect(match.get_absolute_url())
    return see_other(match.get_absolute_url())


@plays_as_account
@require_POST
@limited("move")
def move(request, public_id):
    response = _acted(request, public_id, "move")
    if response.status_code < 400 and not request.htmx:
        # Without JavaScript the page cannot ask for the computer's reply.
        play.computer_move(public_id)
    return response


@plays_as_account
@require_POST
@limited("move")
def computer(request, public_id):
    """Ask the computer to reply: the board asks for this right after it shows your move."""
    moved = play.computer_move(public_id)
    if moved is not None:
        return _board(request, moved, fresh=True)
    return _board(request, _match_or_404(public_id))


@plays_as_account
@require_POST
@limited("move")
def resign(request, public_id):
    return _acted(request, public_id, "resign")


@plays_as_account
@require_POST
@limited("move")
def rematch(request, public_id):
    match = _match_or_404(public_id)
    try:
        new = play.rematch(public_id, by=_actor(request))
    except Refused as refusal:
        return _board(request, match, message=refusal.message, status=refusal_status(refusal))
    play.computer_move(new.public_id)
    if request.htmx:  # the board now links the rematch, and site.js follows it
        return _board(request, match)
    return see_other(new.get_absolute_url())


@plays_as_account
@require_POST
@limited("move")
def toggle_hints(request, public_id):
    try:
        match = play.toggle_hints(public_id, by=_actor(request))
    except Refused as refusal:
        return _refused(request, public_id, refusal)
    return _board(request, match, fresh=True)


# ---- draws, aborts and claims (games/play.py; what each viewer may do: games/rights.py) ----


def _acted(request, public_id: str, name: str):
    """Run the page's action ``name`` (games/actions.py: the same for a socket's frame)
    for this browser with the form's fields; the board (or a redirect) after."""
    try:
        match = actions.perform(name, public_id, _actor(request), request.POST)
    except Refused as refusal:
        return _refused(request, public_id, refusal)
    return _board(request, match, fresh=True)


@plays_as_account
@require_POST
@limited("move")
def offer_draw(request, public_id):
    return _acted(request, public_id, "offer_draw")


@plays_as_account
@require_POST
@limited("move")
def answer_draw(request, public_id):
    return _acted(request, public_id, "answer_draw")


@plays_as_account
@require_POST
@limited("move")
def withdraw_draw(request, public_id):
    return _acted(request, public_id, "withdraw_draw")


@plays_as_account
@require_POST
@limited("move")
def abort(request, public_id):
    return _acted(request, public_id, "abort")


@plays_as_account
@require_POST
@limited("move")
def claim(request, public_id):
    return _acted(request, public_id, "claim")
