"""Notifications that reach a player away from the site: Web Push (people/push.py) and
email, for the kinds the player chose (``NotificationPreference``; the settings page).

``send_away`` is called once the notifications are made (people/notifications.py, after
the change that caused them committed). It reads the players' choices (one query) and
hands what is to be sent to a small pool of background threads (``WORKERS``), then
returns: a push service or a mail server that is slow, down or refusing never delays
nor fails the move, the challenge or the tournament that caused it, nor holds any write.
Each push has ``push.TIMEOUT`` seconds to connect and to answer, each email the
settings' ``EMAIL_TIMEOUT``. At most ``WAITING`` deliveries wait for a thread; past that
a delivery is dropped and logged (the in-site notification stands). Failures are logged,
never raised.

Why threads and not a task queue: the site runs no worker process or broker of its own
(the embedded default is one daphne process), a delivery is a few HTTP requests that
spend their time waiting on the network, and a notification missed in a crash is
still in the bell. Each process sends the notifications made in it.

Email goes only when the site can send email (``PASSWORD_RESET_BY_EMAIL``: EMAIL_HOST
set) and the account has an address: a short plain-text message, with the absolute link
(``settings.SITE_URL``).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import connections
from django.urls import reverse

from people import push
from people.models import Notification, NotificationPreference, PushSubscription

log = logging.getLogger(__name__)

WORKERS = 2
WAITING = 1000

_pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="bitsite-notify")
_lock = threading.Lock()
_pending: set[Future] = set()


def email_available() -> bool:
    """The site can send email (EMAIL_HOST is set)."""
    return bool(getattr(settings, "PASSWORD_RESET_BY_EMAIL", False))


def site_url() -> str:
    """The site's address, for the links of emails (no request to read it from)."""
    if settings.SITE_URL:
        return settings.SITE_URL
    hosts = [h for h in settings.ALLOWED_HOSTS if h and not h.startswith((".", "*"))]
    scheme = "https" if getattr(settings, "SECURE", True) else "http"
    return f"{scheme}://{hosts[0] if hosts else 'localhost'}"


def payload(note: Notification) -> dict:
    """What a push carries (the service worker, static/site/sw.js, shows it)."""
    return {
        "title": Notification.Kind(note.kind).label,
        "body": note.text,
        "url": note.url,
        "tag": f"{note.kind}:{note.about}" if note.about else note.kind,
    }


def send_away(notes: list[Notification]) -> None:
    """Hand ``notes`` (made and committed) to the background threads, for each player
    who chose push or email for their kind."""
    if not notes:
        return
    chosen = {
        p.user_id: p
        for p in NotificationPreference.objects.filter(
            user_id__in={n.user_id for n in notes}, user__is_active=True
        )
    }
    mail = email_available()
    for note in notes:
        preference = chosen.get(note.user_id)
        if preference is None:
            continue
        by_push = note.kind in preference.push
        by_email = mail and note.kind in preference.email
        if by_push or by_email:
            _submit(_deliver, note.user_id, payload(note), by_push, by_email)


def _submit(job, *args) -> None:
    with _lock:
        if len(_pending) >= WAITING:
            log.warning(
                "%d notifications wait to be sent: one for user %s dropped", WAITING, args[0]
            )
            return
        future = _pool.submit(_run, job, *args)
        _pending.add(future)
    future.add_done_callback(_done)


def _done(future: Future) -> None:
    with _lock:
        _pending.discard(future)


def _run(job, *args) -> None:
    try:
        job(*args)
    except Exception:
        log.exception("could not send a notification away")
    finally:
        connections.close_all()  # this thread's: a pooled one goes back, none is held


def drain(timeout: float = 30.0) -> bool:
    """Wait until every delivery handed over so far is done (tests, a clean shutdown).
    True if they all are."""
    with _lock:
        waiting = list(_pending)
    return not wait(waiting, timeout=timeout).not_done


def _deliver(user_id: int, data: dict, by_push: bool, by_email: bool) -> None:
    if by_push:
        for subscription in PushSubscription.objects.filter(user_id=user_id):
            push.send(subscription, data)
    if by_email and email_available():
        _email(user_id, data)


def _email(user_id: int, data: dict) -> None:
    address = (
        get_user_model()
        .objects.filter(pk=user_id, is_active=True)
        .values_list("email", flat=True)
        .first()
    )
    if not address:
        return
    base = site_url()
    link = data["url"] if data["url"].startswith("http") else base + data["url"]
    body = (
        f"{data['body']}\n\n{link}\n\n"
        f"You chose to get this by email. To change what bitsite sends you: "
        f"{base}{reverse('account_settings')}\n"
    )
    try:
        send_mail(f"bitsite: {data['title']}", body, None, [address])
    except Exception as error:  # SMTP refused, timed out, unreachable...
        log.warning("could not email user %s a notification: %s", user_id, error)
