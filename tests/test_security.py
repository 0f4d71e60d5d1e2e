"""Headers every page carries: a Content-Security-Policy with no inline script."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_match

pytestmark = pytest.mark.django_db


def test_every_kind_of_page_carries_the_content_security_policy():
    match, _, _ = make_match("bit-flip")
    paths = [
        "/",
        "/games/bit-flip/",
        match.get_absolute_url(),
        f"/m/{match.public_id}/replay/",
        "/admin/login/",
        "/no/such/page/",
    ]
    for path in paths:
        response = Client().get(path)
        policy = response["Content-Security-Policy"]
        directives = dict(
            (part.split()[0], part.split()[1:]) for part in policy.split(";") if part.strip()
        )
        assert directives["script-src"] == ["'self'"], path
        assert directives["default-src"] == ["'self'"], path
        assert directives["frame-ancestors"] == ["'none'"], path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, path
