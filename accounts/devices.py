"""Where an account is signed in, and signing the other browsers out.

Each sign-in (the site's, the sign-up's, the admin's: Django's ``user_logged_in``) notes
its session as a ``Device``; signing out removes it. The settings page lists them
(``signed_in``: the ones whose session still exists) and signs the others out
(``sign_out_others``: their sessions deleted through the session engine, so the cache
and the database forget them alike). A password change signs the others out too: Django
checks each session against the password's hash, and the change renews this session's
key (``renewed``).
"""

from __future__ import annotations

from importlib import import_module

from django.conf import settings

from accounts.models import Device

USER_AGENT_KEPT = 200


# What a user agent names, most specific first (Chrome's names Safari too; Edge's, Chrome).
_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def describe(user_agent: str) -> str:
    """A user agent in words: "Firefox on Linux" ("A browser" when it names neither)."""
    browser = next((name for token, name in _BROWSERS if token in user_agent), "")
    system = next((name for token, name in _SYSTEMS if token in user_agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or (f"A browser on {system}" if system else "A browser")


def _store(session_key: str | None = None):
    return import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)


def on_login(sender, request, user, **kwargs) -> None:
    if request is None or not hasattr(request, "session"):
        return
    key = request.session.session_key
    if not key:
        request.session.save()
        key = request.session.session_key
    Device.objects.update_or_create(
        session_key=key,
        defaults={
            "user": user,
            "user_agent": request.headers.get("User-Agent", "")[:USER_AGENT_KEPT],
            "address": request.META.get("REMOTE_ADDR") or None,
        },
    )


def on_logout(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session") and request.session.session_key:
        Device.objects.filter(session_key=request.session.session_key).delete()


def signed_in(user) -> list[Device]:
    """The account's browsers whose session still exists (the others are forgotten)."""
    devices = list(Device.objects.filter(user=user))
    store = _store()
    gone = [d.pk for d in devices if not store.exists(d.session_key)]
    if gone:
        Device.objects.filter(pk__in=gone).delete()
    return [d for d in devices if d.pk not in gone]


def sign_out_others(user, current_key: str | None) -> int:
    """Sign the account out everywhere but in ``current_key``'s session; how many."""
    others = list(Device.objects.filter(user=user).exclude(session_key=current_key or ""))
    for device in others:
        _store(device.session_key).delete()
    Device.objects.filter(pk__in=[d.pk for d in others]).delete()
    return len(others)


def renewed(user, old_key: str | None, new_key: str | None) -> None:
    """This browser's session got a new key (a password change renews it); the others
    are signed out by the change."""
    if old_key and new_key and old_key != new_key:
        Device.objects.filter(session_key=old_key).update(session_key=new_key)
    sign_out_others(user, new_key)
