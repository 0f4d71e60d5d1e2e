"""The site's log (settings.LOGGING, bitsite/logs.py): a request refused with a 400 is one
line without a traceback; a server error keeps its traceback."""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def console():
    """What the site's console handler (settings.LOGGING's "console") writes, while the
    test runs."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({f"f{i}": "1" for i in range(1001)}, "The number of GET/POST parameters exceeded"),
        ({"name": "x" * (2_621_440 + 1)}, "Request body exceeded"),
    ],
    ids=["too many fields", "body too large"],
)
def test_a_400_for_a_bad_body_is_one_line_without_a_traceback(console, data, message):
    response = Client().post("/accounts/login/", data)
    assert response.status_code == 400
    logged = lines(console)
    assert len(logged) == 1, logged
    assert message in logged[0]
    assert "Traceback" not in console.getvalue()


def test_a_host_not_allowed_is_one_line(console):
    response = Client().get("/", HTTP_HOST="evil.example.org")
    assert response.status_code == 400
    logged = lines(console)
    assert len(logged) == 1 and "Invalid HTTP_HOST header" in logged[0], logged


def test_a_server_error_keeps_its_traceback(console):
    log = logging.getLogger("django.request")
    try:
        raise RuntimeError("a real bug")
    except RuntimeError as error:
        log.error("Internal Server Error: /", exc_info=error, extra={"status_code": 500})
    text = console.getvalue()
    assert "Traceback" in text and "RuntimeError: a real bug" in text
