"""The API's schema is made from the code; the one served must equal api/openapi.json, so
that a change to the API is a deliberate change to that file (`make api-schema`)."""

from __future__ import annotations

import json
from pathlib import Path

from django.test import Client

CHECKED_IN = Path(__file__).resolve().parents[2] / "api" / "openapi.json"


def test_the_served_schema_is_the_checked_in_one():
    served = Client().get("/api/openapi.json")
    assert served.status_code == 200
    assert served.json() == json.loads(CHECKED_IN.read_text()), (
        "The API changed: if that is meant, run `make api-schema` and commit api/openapi.json."
    )


def test_every_operation_says_what_it_does_and_how_it_is_authenticated():
    schema = json.loads(CHECKED_IN.read_text())
    assert schema["components"]["securitySchemes"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), f"{method.upper()} {path} has no summary"
            assert "security" in operation, f"{method.upper()} {path} says no authentication"


def test_the_docs_page_is_served_from_the_sites_own_files():
    page = Client().get("/api/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle" in page and "cdn" not in page.lower()
