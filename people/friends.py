"""Following players, and the friends list: who is online now and what they are playing.

Online is read from the same expiring sets as the rest of presence (games.presence's
store): an account is online while one of its pages holds its inbox socket
(people/consumers.py keeps the set ``inbox:<user id>``), so no row is written per page
and a closed or killed page drops out within a heartbeat or two. Reading the list is one
round trip to the store for every friend at once, and one query for their games in play.
If the store cannot be read, online reads as unknown (shown as nothing, never as gone).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Q

from games import presence
from games.models import Match
from people import live
from people.challenges import Refused, blocked_between
from people.models import Follow

MAX_FOLLOWS = 500  # accounts one player may follow
PLAYING_SHOWN = 3  # a friend's games in play listed, the newest first


def follows(user, other) -> bool:
    return Follow.objects.filter(follower=user, followed=other).exists()


def follow(user, other) -> None:
    if user.pk == other.pk:
        raise Refused("You cannot follow yourself.", 400)
    if blocked_between(user, other):
        raise Refused(f"You cannot follow {other.get_username()}.", 403)
    if Follow.objects.filter(follower=user).count() >= MAX_FOLLOWS:
        raise Refused(f"You follow {MAX_FOLLOWS} players: unfollow one first.", 429)
    try:
        with transaction.atomic():
            Follow.objects.create(follower=user, followed=other)
    except IntegrityError:
        pass  # already followed: nothing changes


def unfollow(user, other) -> None:
    Follow.objects.filter(follower=user, followed=other).delete()


def online(user_ids: list[int]) -> list[bool | None]:
    """Whether each account has a page open now (None: it cannot be known)."""
    counts = presence.counts([live.pages_set(uid) for uid in user_ids])
    if counts is None:
        return [None] * len(user_ids)
    return [count > 0 for count in counts]


def friends(user) -> list[dict]:
    """The players ``user`` follows, online first, then by name; each with its games in
    play (linking to them, as a spectator's page)."""
    followed = list(
        Follow.objects.filter(follower=user)
        .select_related("followed__profile")  # the BOT mark (accounts/bots.py)
        .order_by("followed__username")
    )
    people = [f.followed for f in followed if f.followed.is_active]
    ids = [p.pk for p in people]
    playing: dict[int, list[Match]] = {pk: [] for pk in ids}
    if ids:
        games = (
            Match.objects.filter(status=Match.Status.PLAYING)
            .filter(Q(seat1_user_id__in=ids) | Q(seat2_user_id__in=ids))
            .select_related("seat1_user__profile", "seat2_user__profile")
            .order_by("-created_at", "-pk")
        )
        for match in games[: PLAYING_SHOWN * len(ids)]:
            for pk in {match.seat1_user_id, match.seat2_user_id} & set(ids):
                if len(playing[pk]) < PLAYING_SHOWN:
                    playing[pk].append(match)
    rows = [
        {"user": person, "online": here, "playing": playing[person.pk]}
        for person, here in zip(people, online(ids), strict=True)
    ]
    rows.sort(key=lambda row: (row["online"] is not True, row["user"].get_username().lower()))
    return rows
