"""The lobby's open challenges: which are open, which are due to close, and quick pairing.

An *open challenge* is a listed friend's match still waiting for its second player
(``Match.listed``, made with "List it in the lobby" or by "Play anyone"). It closes
when someone takes it, when its creator withdraws it, ``LOBBY_CHALLENGE_TTL`` seconds
after it was made, or once its creator has had no page of it open for
``LOBBY_CREATOR_AWAY`` seconds (games/presence.py knows). The lists filter on read, so a
challenge that is due never shows, and each server process's sweeper
(``lobby.live.Sweeper``) cancels due challenges through the write path
(``games.play.expire_challenge``), which tells the lobby's pages and the creator's.

Everything here reads, except ``accept``, ``sweep`` and ``play_anyone``, which write
through games.play. Who has a page open (games/presence.py, Redis with several processes)
is read before each write, never inside it: a write holds the write lock, and a slow
Redis must not hold every other write with it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games import play, presence
from games.models import Match, hash_secret
from games.rights import NoSuchMatch, Refused
from games.rules import get_game

SHOWN = 50  # open challenges listed at most, the oldest first
WATCHED = 30  # matches on the watch page at most, the newest first


@dataclass(frozen=True)
class Challenger:
    """A browser as the lobby recognises the creator of a challenge: by its seat secret
    (hashed, as the match keeps it), or by its account when signed in. The one rule of
    who owns a challenge, for the pages (its creator sees "Withdraw"), the lobby's sockets
    and quick pairing (never pair a player with their own challenge)."""

    secret_hash: str | None = None
    user_id: int | None = None

    @classmethod
    def of(cls, token: str | None, user_id: int | None = None) -> Challenger:
        """The browser holding the seat secret ``token`` (signed into ``user_id``)."""
        return cls(hash_secret(token) if token else None, user_id)

    def made(self, secret_hash: str, user_id: int | None) -> bool:
        """Whether this browser made the challenge whose creator's seat is held by
        ``secret_hash`` (for the account ``user_id``, if any)."""
        return (self.secret_hash is not None and secret_hash == self.secret_hash) or (
            self.user_id is not None and user_id == self.user_id
        )

    def owns(self, match: Match) -> bool:
        return self.made(match.seat1_secret, match.seat1_user_id)


def creator_gone_for(matches: list[Match]) -> list[float | None]:
    """How long each challenge's creator has had no page of it open (None: a page is open,
    or it cannot be known), in two round trips to the presence store."""
    return presence.away_for_many(
        [(match.public_id, 1, match.created_at.timestamp()) for match in matches]
    )


def is_due(match: Match, *, gone_for: float | None, now=None) -> bool:
    """Should this open challenge close: made LOBBY_CHALLENGE_TTL seconds ago or more, or
    its creator away for LOBBY_CREATOR_AWAY seconds (``gone_for``: as ``creator_gone_for``
    said, read before; None: a page is open, or it cannot be known)."""
    now = now or timezone.now()
    if (now - match.created_at).total_seconds() >= settings.LOBBY_CHALLENGE_TTL:
        return True
    return gone_for is not None and gone_for >= settings.LOBBY_CREATOR_AWAY


def _waiting():
    return Match.objects.filter(
        listed=True, status=Match.Status.WAITING, mode=Match.Mode.FRIEND
    ).order_by("created_at", "pk")


def open_challenges(
    *, game: str | None = None, limit: int = SHOWN, gone: dict[str, float | None] | None = None
) -> list[Match]:
    """The open challenges, oldest first: never one that is due, even before the sweeper
    has closed it. ``gone``: how long each creator has been away, by match id, read before
    (inside a write); a challenge it does not name was made since, its creator is here."""
    now = timezone.now()
    query = _waiting().filter(created_at__gt=now - timedelta(seconds=settings.LOBBY_CHALLENGE_TTL))
    if game is not None:
        query = query.filter(game=game)
    found = list(query[: limit + SHOWN])  # room for those whose creator just left
    if gone is None:
        away = creator_gone_for(found)
    else:
        away = [gone.get(match.public_id) for match in found]
    return [
        match
        for match, gone_for in zip(found, away, strict=True)
        if not is_due(match, now=now, gone_for=gone_for)
    ][:limit]


def being_played(limit: int = WATCHED) -> list[Match]:
    """The listed matches being played now, newest first (a friend's match by link, one
    on one device or against the computer is never listed)."""
    return list(
        Match.objects.filter(listed=True, status=Match.Status.PLAYING).order_by(
            "-started_at", "-pk"
        )[:limit]
    )


def due_challenges() -> tuple[list[tuple[Match, float | None]], int]:
    """The open challenges to close now, each with how long its creator has been away, and
    how many stay open (the sweeper's read)."""
    now = timezone.now()
    waiting = list(_waiting())
    gone = creator_gone_for(waiting)
    due = [
        (match, away)
        for match, away in zip(waiting, gone, strict=True)
        if is_due(match, now=now, gone_for=away)
    ]
    return due, len(waiting) - len(due)


def sweep() -> int:
    """Close every open challenge that is due (idempotent: every server process may run
    it at once); returns how many stay open."""
    due, left = due_challenges()
    for match, away in due:
        play.expire_challenge(match.public_id, due=partial(is_due, gone_for=away))
    return left


class Expired(Refused):
    default = "That challenge is no longer open."


def accept(public_id: str, *, token: str, user=None, name: str = "") -> Match:
    """Take the second seat of an open challenge: the share link's join (``play.join``),
    in one write with the lobby's checks. A match that is not listed is no challenge
    (NoSuchMatch); one that is due is closed instead (then Expired)."""

    read = Match.objects.filter(public_id=public_id, listed=True).first()
    gone_for = creator_gone_for([read])[0] if read is not None else None  # before the write
    due = partial(is_due, gone_for=gone_for)

    def change() -> Match | None:
        match = Match.objects.filter(public_id=public_id, listed=True).first()
        if match is None:
            raise NoSuchMatch()
        if match.status == Match.Status.WAITING and due(match):
            play.expire_challenge(public_id, due=due)
            return None
        return play.join(public_id, token=token, name=name, user=user)

    joined = play.write(change)
    if joined is None:
        raise Expired()
    return joined


def compatible(match: Match, standard: dict) -> bool:
    """What "Play anyone" may take: the game's standard options, no clock, not rated."""
    return match.options == standard and not match.clock and not match.rated


class Pairing(enum.Enum):
    """What a press of "Play anyone" did."""

    TOOK = "took"  # took someone's open challenge: the browser holds its second seat
    OPENED = "opened"  # opened a challenge of its own
    WAITING = "waiting"  # kept the browser's own open challenge (nobody else's is open)
    PLAYING = "playing"  # the browser's quick match of this game is still being played


def _playing(me: Challenger, game_slug: str, standard: dict) -> Match | None:
    """This browser's (or account's) match of the lobby that "Play anyone" could have
    given it and that is being played, the newest: where pressing again takes it back."""
    mine = Q(pk__in=[])
    if me.secret_hash is not None:
        mine |= Q(seat1_secret=me.secret_hash) | Q(seat2_secret=me.secret_hash)
    if me.user_id is not None:
        mine |= Q(seat1_user_id=me.user_id) | Q(seat2_user_id=me.user_id)
    found = Match.objects.filter(
        mine,
        game=game_slug,
        status=Match.Status.PLAYING,
        mode=Match.Mode.FRIEND,
        listed=True,
        clock="",
        rated=False,
    ).order_by("-started_at", "-pk")
    return next((match for match in found if compatible(match, standard)), None)


def play_anyone(game_slug: str, *, token: str, user=None, name: str = "") -> tuple[Match, Pairing]:
    """Quick pairing: take the oldest compatible open challenge that isn't this browser's,
    else open one with the standard options (or keep this browser's own, if it has one
    open). Returns the match and what was done.

    Idempotent per browser: while this browser (its secret, or its account on any device)
    plays a match of this game that "Play anyone" could have given it, pressing again
    gives that match (PLAYING), never a second seat; its own open challenge is kept
    (WAITING) unless someone else's is open too, which it then takes, withdrawing its own.

    One step of the write path, with the game's listings locked: of two people pressing
    at once, the second finds the first's challenge; of two presses of one browser (or
    account), the second finds the first's result."""
    game = get_game(game_slug)
    standard = game.options_of(game.start())
    me = Challenger.of(token, user.pk if user is not None else None)
    mine = me.owns

    # Who has a page open, read before the write (a challenge made since is its creator's).
    before = list(_waiting().filter(game=game.slug)[: SHOWN * 2])
    gone = dict(zip((m.public_id for m in before), creator_gone_for(before), strict=True))

    def change() -> tuple[Match, Pairing]:
        play.lock_listings(game.slug)
        playing = _playing(me, game.slug, standard)
        if playing is not None:
            return playing, Pairing.PLAYING
        candidates = [
            m for m in open_challenges(game=game.slug, gone=gone) if compatible(m, standard)
        ]
        own = [m for m in candidates if mine(m)]
        for match in candidates:
            if mine(match):
                continue
            try:
                taken = play.join(match.public_id, token=token, name=name, user=user)
            except Refused:  # taken meanwhile by someone else: the next one
                continue
            for left in own:  # playing now: this browser's own challenge closes
                play.withdraw_challenge(left.public_id, by=play.Actor(token=token))
            return taken, Pairing.TOOK
        if own:
            return own[0], Pairing.WAITING
        opened = play.create_match(
            game.slug, token=token, first="random", name=name, user=user, listed=True
        )
        return opened, Pairing.OPENED

    return play.write(change)
