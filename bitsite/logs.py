"""The site's log: one line for a request refused as expected, a traceback for errors.

Django logs a request it refuses with a 400 (a body too large, too many fields, a host
not allowed: ``django.security.*``) or another 4xx raised as an exception (``BadRequest``,
``PermissionDenied``: ``django.request``) with the exception's full traceback. Those are
the client's mistakes or probes, not the site's: a flood of them buried the real errors.
``OneLineRefusals``, on the console handler (settings.LOGGING), keeps their one line (what
was refused, and where) and drops the traceback; so it does for a 503 for want of a
database connection (an overload, not a bug). Any other 5xx keeps its traceback.
"""

from __future__ import annotations

import logging

from bitsite.database import pool_exhausted


def refusal(record: logging.LogRecord) -> bool:
    """Whether ``record`` is Django's note of a request refused with a 4xx."""
    if record.name.startswith("django.security."):
        return True
    status = getattr(record, "status_code", None)
    return record.name == "django.request" and isinstance(status, int) and 400 <= status < 500


def busy(record: logging.LogRecord) -> bool:
    """Whether ``record`` is Django's note of a 503 for want of a database connection
    (bitsite/database.py says why, in a line of its own)."""
    return record.name == "django.request" and pool_exhausted(record.exc_info[1])


class OneLineRefusals(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and (refusal(record) or busy(record)):
            record.exc_info = None
            record.exc_text = None
        return True
