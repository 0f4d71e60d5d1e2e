"""Web Push: the site's VAPID key pair, the accounts' push subscriptions, and sending one
notification to one browser (the Push API: RFC 8030, encrypted as RFC 8291 says, signed
with VAPID, RFC 8292; pywebpush does the encryption and the signing).

- **The key pair.** ``BITSITE_VAPID_PRIVATE_KEY`` (settings.VAPID_PRIVATE_KEY), or else one
  made on first need and kept in the database (``VapidKey``), so that it survives a restart
  and every process shares it: a browser subscribes for the public key, and a push signed
  with another key is refused by its push service.
- **Subscribing** (``parse``, ``subscribe``): what a browser's ``PushSubscription.toJSON()``
  gives, checked before anything is kept: an https endpoint on a host name (not an
  address in any spelling, not localhost) whose every address is public (bitsite/outbound.py;
  a stand-in on 127.0.0.1 over http only when ``settings.PUSH_LOOPBACK_ENDPOINTS``, with
  debug and in the tests), of at most
  ``MAX_ENDPOINT`` characters, and base64url keys of the right lengths (``p256dh`` a
  65-byte P-256 point, ``auth`` 16 bytes). An endpoint belongs to one account, the last
  that turned push on in that browser; an account keeps at most ``MAX_PER_ACCOUNT`` (a new
  one replaces the one reached least recently). The first device turned on while no kind
  is chosen for push chooses them all.
- **Sending** (``send``): one POST to the push service, within ``TIMEOUT`` seconds to
  connect and to read, no redirect followed, connected only to the public address its
  name resolved to as it connects (bitsite/outbound.py: no DNS rebinding). A 404 or 410
  (the subscription is gone) deletes the row; any other failure counts on it; a success
  clears the count. It logs, and never raises. It runs on people/delivery.py's background
  threads, never on a request's thread.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import threading
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from bitsite import locks, outbound
from people.models import Notification, NotificationPreference, PushSubscription, VapidKey

log = logging.getLogger(__name__)

TIMEOUT = 5.0  # seconds to connect to a push service, and to wait for each read
TTL = 24 * 3600  # how long a push service keeps a notification for a device that is off
MAX_PER_ACCOUNT = 10
MAX_ENDPOINT = 1024  # characters (real ones are a few hundred)
MAX_BODY = 4096  # bytes of a subscription as posted
KEY_LENGTHS = {"p256dh": 65, "auth": 16}  # decoded bytes
_BASE64URL = re.compile(r"[A-Za-z0-9_-]{1,100}={0,2}")


class Invalid(Exception):
    """A subscription refused: ``message`` says why (the page shows it)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


# ---- the key pair ---------------------------------------------------------------------------

_key_lock = threading.Lock()
_key: tuple[str, Vapid] | None = None  # (where it came from, the key)


def vapid() -> Vapid:
    """The site's VAPID key: the configured one, else the one kept in the database (made
    on first need)."""
    global _key
    source = settings.VAPID_PRIVATE_KEY or "database"
    with _key_lock:
        if _key is None or _key[0] != source:
            if settings.VAPID_PRIVATE_KEY:
                _key = (source, Vapid.from_string(settings.VAPID_PRIVATE_KEY))
            else:
                _key = (source, Vapid.from_string(_stored_key()))
        return _key[1]


def _stored_key() -> str:
    found = VapidKey.objects.filter(pk=1).values_list("private_key", flat=True).first()
    if found:
        return found
    private = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(private.private_numbers().private_value.to_bytes(32, "big"))
    try:
        with transaction.atomic():
            VapidKey.objects.create(pk=1, private_key=raw)
    except IntegrityError:  # another process made it a moment ago: theirs is the key
        return VapidKey.objects.get(pk=1).private_key
    return raw


def forget_key() -> None:
    """Read the key again on next need (tests; a process whose key changed)."""
    global _key
    with _key_lock:
        _key = None


def public_key() -> str:
    """The public key a browser subscribes with (``applicationServerKey``), base64url."""
    point = vapid().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def key_problem(private_key: str) -> str:
    """Why a configured private key cannot be used ("" if it can): the system check."""
    try:
        key = Vapid.from_string(private_key).private_key
    except Exception as error:  # whatever py-vapid and cryptography raise for bad input
        return str(error) or error.__class__.__name__
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        return "not a P-256 (prime256v1) key"
    return ""


# ---- subscribing ----------------------------------------------------------------------------


def parse(body: bytes) -> dict:
    """A subscription as a browser posts it (``PushSubscription.toJSON()``), checked:
    ``{"endpoint", "p256dh", "auth"}``, or Invalid."""
    if len(body) > MAX_BODY:
        raise Invalid("That is too long for a push subscription.")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Invalid("That is not a push subscription: JSON was expected.") from None
    if not isinstance(data, dict) or not isinstance(data.get("endpoint"), str):
        raise Invalid("A push subscription has an endpoint.")
    keys = data.get("keys")
    if not isinstance(keys, dict):
        raise Invalid("A push subscription has keys (p256dh and auth).")
    endpoint = data["endpoint"]
    check_endpoint(endpoint)
    found = {name: _key_bytes(keys.get(name), name, size) for name, size in KEY_LENGTHS.items()}
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), found["p256dh"])
    except ValueError:
        raise Invalid("The subscription's p256dh key is not a P-256 public key.") from None
    return {"endpoint": endpoint, **{name: b64url(raw) for name, raw in found.items()}}


def _key_bytes(value, name: str, size: int) -> bytes:
    if not isinstance(value, str) or not _BASE64URL.fullmatch(value):
        raise Invalid(f"The subscription's {name} key must be base64url text.")
    bare = value.rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))
    except (binascii.Error, ValueError):
        raise Invalid(f"The subscription's {name} key must be base64url text.") from None
    if len(raw) != size:
        raise Invalid(f"The subscription's {name} key must be {size} bytes long.")
    return raw


def check_endpoint(endpoint: str) -> None:
    """An endpoint the site may post to: https on a host name whose every address is
    public (bitsite/outbound.py: checked again, and connected to, at each send), on its
    default port."""
    refused = Invalid("A push endpoint must be the https address of a push service.")
    if not 0 < len(endpoint) <= MAX_ENDPOINT:
        raise Invalid(f"A push endpoint has at most {MAX_ENDPOINT} characters.")
    if any(not 0x21 <= ord(char) <= 0x7E for char in endpoint):
        raise refused
    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise refused from None
    if parts.username is not None or parts.password is not None or not host:
        raise refused
    if settings.PUSH_LOOPBACK_ENDPOINTS and parts.scheme == "http" and host == "127.0.0.1":
        return  # a stand-in push service (debug, tests)
    if parts.scheme != "https" or port not in (None, 443) or not _a_host_name(host):
        raise refused
    try:
        outbound.checked_address(host, 443)
    except outbound.NotPublic as error:
        raise Invalid(
            _("A push endpoint must be the address of a push service on the Internet: %(why)s")
            % {"why": error.reason}
        ) from None


def _a_host_name(host: str) -> bool:
    """A public-looking host name: not an address in any form, not localhost, with a dot."""
    name = host.rstrip(".").lower()
    if outbound.numeric(name):
        return False
    return "." in name and not (name == "localhost" or name.endswith(".localhost"))


def subscribe(user, found: dict, user_agent: str = "") -> PushSubscription:
    """Keep ``found`` (from ``parse``) as ``user``'s: a browser that another account had
    turned on now reaches this one."""
    fields = {
        "user": user,
        "p256dh": found["p256dh"],
        "auth": found["auth"],
        "user_agent": user_agent[:200],
        "failures": 0,
    }
    with transaction.atomic():
        locks.hold(f"push-devices-of:{user.pk}")  # keep, then trim to the limit: one at a time
        try:
            with transaction.atomic():
                subscription, _ = PushSubscription.objects.update_or_create(
                    endpoint=found["endpoint"], defaults=fields
                )
        except IntegrityError:  # the same browser, posted twice at once: the other one
            subscription = PushSubscription.objects.get(endpoint=found["endpoint"])
            PushSubscription.objects.filter(pk=subscription.pk).update(**fields)
        others = (
            PushSubscription.objects.filter(user=user)
            .exclude(pk=subscription.pk)
            .order_by(Coalesce("last_success_at", "created_at").desc(), "-pk")
            .values_list("pk", flat=True)
        )
        dropped = list(others[MAX_PER_ACCOUNT - 1 :])
        if dropped:
            PushSubscription.objects.filter(pk__in=dropped).delete()
        preference, _ = NotificationPreference.objects.get_or_create(user=user)
        if not preference.push:  # the first device: every kind, until the player chooses
            preference.push = list(Notification.Kind.values)
            preference.save(update_fields=["push", "updated_at"])
    return subscription


def unsubscribe(user, *, endpoint: str | None = None, pk: int | None = None) -> bool:
    """Forget one of ``user``'s subscriptions (by its endpoint, or its id); never
    another account's. True if there was one."""
    mine = PushSubscription.objects.filter(user=user)
    if endpoint is not None:
        mine = mine.filter(endpoint=endpoint)
    elif pk is not None:
        mine = mine.filter(pk=pk)
    else:
        return False
    deleted, _ = mine.delete()
    return bool(deleted)


# ---- sending --------------------------------------------------------------------------------


def send(subscription: PushSubscription, payload: dict) -> str:
    """Push ``payload`` (JSON: title, body, url, tag) to one browser: "sent", "gone" (the
    row deleted) or "failed" (counted). Logs; never raises."""
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    rows = PushSubscription.objects.filter(pk=subscription.pk)
    try:
        # Only to the public address checked as it connects (a stand-in on 127.0.0.1 in
        # the tests), following no redirect.
        with outbound.session(loopback=settings.PUSH_LOOPBACK_ENDPOINTS) as session:
            webpush(
                subscription_info=info,
                data=json.dumps(payload),
                vapid_private_key=vapid(),
                vapid_claims={"sub": settings.VAPID_SUBJECT},  # aud and exp: pywebpush's
                ttl=TTL,
                timeout=TIMEOUT,
                requests_session=session,
            )
    except WebPushException as error:
        status = error.status_code
        if status in (404, 410):
            rows.delete()
            log.info("push subscription %s is gone (%s): deleted", subscription.pk, status)
            return "gone"
        log.warning("push to subscription %s refused: %s", subscription.pk, status or error)
    except requests.RequestException as error:  # refused, timed out, a redirect...
        log.warning("push to subscription %s failed: %s", subscription.pk, error)
    except Exception:
        log.exception("push to subscription %s failed", subscription.pk)
    else:
        rows.update(last_success_at=timezone.now(), failures=0)
        return "sent"
    rows.update(failures=F("failures") + 1)
    return "failed"
