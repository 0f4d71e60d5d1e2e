"""Who owns a name: each account's profile keeps what its user name reads as
(games/names.py), brought up to date whenever the user is saved; a display name or a new
user name that reads the same as another account's is refused."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404

from accounts.models import Profile
from games.names import look


def player_or_404(username: str):
    """The active account called ``username``, for every page about a player (their page,
    their games, a challenge to them, a follow or a block), or a 404."""
    User = get_user_model()
    return get_object_or_404(User, **{User.USERNAME_FIELD: username, "is_active": True})


def user_saved(sender, instance, **kwargs) -> None:
    """Every account has a profile that knows its user name's look (a post_save of the
    user model: a sign-up, a rename in the admin, createsuperuser)."""
    Profile.objects.update_or_create(
        user=instance, defaults={"name_look": look(instance.get_username())}
    )


def owned(name_look: str, exclude_user=None) -> bool:
    """Whether an account other than ``exclude_user`` has this look (games.names)."""
    profiles = Profile.objects.filter(name_look=name_look)
    if exclude_user is not None:
        profiles = profiles.exclude(user_id=exclude_user.pk)
    return profiles.exists()
