"""Every operation of the API's schema, fuzzed: random JSON bodies (wrong types, huge
strings, NULs, deep nesting), bodies that are not JSON at all, random path and query
values (any character, quoted as a client would: a NUL or an over-long address is refused
at the edge, a slash makes an address no operation has), with a token of every scope and
with none. Never a 5xx; every 4xx is JSON with an "error" naming the problem. The
operations are read from the schema, so a new endpoint is fuzzed without being listed
here."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.api import api
from bitsite.edge import MAX_PATH
from tests.api.helpers import Api, token_for
from tests.ratings.helpers import account, rated_match

pytestmark = pytest.mark.django_db

SCHEMA = api.get_openapi_schema()
OPERATIONS = sorted(
    (method.upper(), path) for path, operations in SCHEMA["paths"].items() for method in operations
)
# A stream opened with a valid token answers forever: the test client would read it to the
# end. Streams are fuzzed without a token (and their own tests read them from a live server).
ENDLESS = {("GET", "/api/stream/event")}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=50)
    | st.just("x" * 5000)
    | st.just("\x00"),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["game", "move", "ply", "options", "win", "reason", "clock", "x"])
            | st.text(max_size=10),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)
raw_bodies = st.binary(max_size=200).map(lambda b: b.decode("latin1")) | st.sampled_from(
    ["", "{", "[]", "null", '{"move": ', "\ufeff{}", '{"ply": 1e999}', "{" * 2000]
)
path_values = (
    st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=40)
    | st.sampled_from(["\x00", "a/b", "..", "%00", "?x=1", "#", " "])
    | st.just("x" * 300)
    | st.just("x" * (MAX_PATH + 1))
)
query_values = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40) | st.sampled_from(
    ["\x00", "-1", "0", "9" * 40, "x" * 5000]
)


@pytest.fixture
def setting_up():
    ada, bob = account("ada"), account("bob")
    match, *_ = rated_match(ada, bob)
    return {
        "token": token_for(ada),
        "ids": [match.public_id, "ada", "bob"],
    }


def check(answer, what: str) -> None:
    assert answer.status_code < 500, f"{what}: {answer.status_code} {answer.content[:300]!r}"
    if answer.status_code >= 400:
        body = json.loads(answer.content)
        assert body.get("error") and body.get("message"), f"{what}: {body}"


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    body=json_values,
    raw=raw_bodies,
    with_token=st.booleans(),
    use_raw=st.booleans(),
)
def test_no_operation_answers_a_server_error(
    setting_up, method, path, data, body, raw, with_token, use_raw
):
    if (method, path) in ENDLESS:
        with_token = False
    names = re.findall(r"{(\w+)}", path)
    values = {
        name: data.draw(st.sampled_from(setting_up["ids"]) | path_values, label=name)
        for name in names
    }
    url = path.removeprefix("/api")
    for name, value in values.items():
        url = url.replace("{" + name + "}", quote(value, safe=""))
    client = Api(setting_up["token"] if with_token else None)
    what = f"{method} {url} body={(raw if use_raw else body)!r:.200}"
    if method == "GET":
        params = data.draw(
            st.dictionaries(
                st.sampled_from(["page", "game", "against", "x"]), query_values, max_size=3
            ),
            label="params",
        )
        answer = client.get(url, **params)
    elif use_raw:
        answer = client.post(url, raw=raw)
    else:
        answer = client.post(url, body)
    check(answer, what)
