"""Bot accounts: an account made a bot plays only through the API (issue 26).

An account becomes a bot on its settings page, for good, and only while it has played no
match (no match holds it in a seat): ``make_bot(user)``, refused with ``NotABot`` and its
message otherwise. Becoming one gives the account a new seat secret, which no web session
holds, and a bot's sign-in on the web never puts it into the session (accounts/signin.py):
the web holds none of a bot's seats, so no page can move, resign or offer a draw for it.
The pages that would take a seat or make a match as the signed-in account (a new match,
joining, the lobby, tournaments, challenges) refuse a bot before they act
(``BotWebMiddleware``); the API plays with the account's secret through games.play and
people.challenges, as any client does.

A bot is marked wherever its name is drawn (``mark``; the ``bot_mark`` filter and the
board's seat marks, ``seat_marks``). Its ratings are on their own leaderboards. A rated
challenge between a bot and a human needs the human's yes (``rated_against_bots``, their
settings page: people/challenges.py checks it).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from accounts.models import Profile
from accounts.signin import profile_of
from games.http import plays
from games.models import Match, new_secret

# The one way a bot is drawn next to its name.
MARK = mark_safe('<span class="bot-mark" title="Bot account">BOT</span>')

ON_THE_WEB = (
    "This is a bot account: it plays only through the API, not from the site's pages. "
    "Nothing was changed."
)


class NotABot(Exception):
    """Making an account a bot was refused: ``message`` says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


def is_bot(user) -> bool:
    """Whether ``user`` (an account, or None, or an anonymous user) is a bot."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    try:
        return user.profile.is_bot
    except Profile.DoesNotExist:
        return False


def has_played(user) -> bool:
    """Whether any match holds the account in a seat (over, going on or waiting)."""
    return Match.objects.filter(Q(seat1_user=user) | Q(seat2_user=user)).exists()


def make_bot(user) -> Profile:
    """Make the account a bot, for good. Refused (``NotABot``) once it has played a match.
    The account gets a new seat secret: the browsers signed in to it hold nothing."""
    with transaction.atomic():
        profile_of(user)  # made if missing
        profile = Profile.objects.select_for_update().get(user=user)
        if profile.is_bot:
            return profile
        if has_played(user):
            raise NotABot(
                f"{user.get_username()} has already played on this site: only an account "
                "that has never played a match can become a bot. Nothing was changed."
            )
        profile.is_bot = True
        profile.bot_since = timezone.now()
        profile.rated_against_bots = False
        profile.token = new_secret()
        profile.save(update_fields=["is_bot", "bot_since", "rated_against_bots", "token"])
    user.profile = profile
    return profile


def let_bots_rate(user, allowed: bool) -> Profile:
    """A human's choice: bots may (or may not) challenge them to rated games."""
    profile = profile_of(user)
    Profile.objects.filter(pk=profile.pk).update(rated_against_bots=bool(allowed))
    profile.rated_against_bots = bool(allowed)
    return profile


def rates_against_bots(user) -> bool:
    try:
        return user.profile.rated_against_bots
    except Profile.DoesNotExist:
        return False


def bot_ids(user_ids) -> set[int]:
    """Which of these accounts are bots, in one query."""
    wanted = {pk for pk in user_ids if pk is not None}
    if not wanted:
        return set()
    found = Profile.objects.filter(user_id__in=wanted, is_bot=True)
    return set(found.values_list("user_id", flat=True))


def mark(user) -> SafeString | str:
    """The BOT mark of a bot account, else nothing."""
    return MARK if is_bot(user) else ""


def seat_marks(match: Match) -> dict[int, SafeString]:
    """The marks of a match's seats whose accounts are bots (games/extras.py: drawn on the
    board next to the players' names, once per change for every viewer)."""
    seats = {seat: match.seat_user_id(seat) for seat in (1, 2)}
    bots = bot_ids(seats.values())
    return {seat: MARK for seat, user_id in seats.items() if user_id in bots}


class BotWebMiddleware:
    """A bot signed in on the web is refused, before the view acts, every POST to a page
    that would play, make a match, seek, join a tournament or send or accept a challenge
    as the account (the views marked ``games.http.plays_as_account``): a 403 that says
    so, and nothing changed."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method != "POST" or not plays(view_func):
            return None
        if not is_bot(getattr(request, "user", None)):
            return None
        return refused(request)


def refused(request, message: str = ON_THE_WEB, status: int = 403):
    """The answer to a bot on a page it may not use: the message alone for htmx, else a
    page."""
    if getattr(request, "htmx", False):
        return render(request, "accounts/_bot_refused.html", {"message": message}, status=status)
    return render(request, "accounts/bot_refused.html", {"message": message}, status=status)
