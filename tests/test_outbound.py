"""Requests to an address a user gave (bitsite/outbound.py): only to public addresses, and
to the very address that was checked (no second resolution for DNS rebinding to use)."""

from __future__ import annotations

import ipaddress
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from bitsite import outbound

# Every way of writing an internal address that a resolver takes (the attack's seven, and
# more), and public ones.
INTERNAL_HOSTS = [
    "127.1",
    "0x7f.1",
    "127.0.1",
    "0x7f.0.0.1",
    "10.1",
    "169.254.43518",
    "0251.0376.0251.0376",
    "0",
    "localhost",
]
INTERNAL = [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "::7f00:1",
    "::ffff:0:7f00:1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "2001:db8::1",
    "2001::1",
    "fe80::1",
    "fec0::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
]
PUBLIC = ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001:81c::200a"]


@pytest.mark.parametrize("text", INTERNAL)
def test_internal_addresses_are_not_public(text):
    assert not outbound.public(ipaddress.ip_address(text))


@pytest.mark.parametrize("text", PUBLIC)
def test_public_addresses_are(text):
    assert outbound.public(ipaddress.ip_address(text))


@pytest.mark.parametrize("host", INTERNAL_HOSTS)
def test_every_spelling_of_an_internal_host_is_refused(host):
    with pytest.raises(outbound.NotPublic, match="not a public address"):
        outbound.checked_address(host, 443)


def test_numeric_forms_are_told_from_names():
    assert all(outbound.numeric(h) for h in INTERNAL_HOSTS if h != "localhost")
    assert outbound.numeric("[::1]") and outbound.numeric("8.8.8.8")
    assert not outbound.numeric("fcm.googleapis.com") and not outbound.numeric("localhost")


def test_a_name_is_judged_by_every_address_it_resolves_to(resolver):
    answers, _ = resolver
    answers["push.example.org"] = ["93.184.216.34"]
    assert outbound.checked_address("push.example.org", 443) == "93.184.216.34"
    answers["push.example.org"] = ["2606:4700::1111"]
    assert outbound.checked_address("push.example.org", 443) == "[2606:4700::1111]"
    for inside in (["127.0.0.1"], ["93.184.216.34", "10.0.0.1"], ["::ffff:10.0.0.1"]):
        answers["push.example.org"] = inside
        with pytest.raises(outbound.NotPublic, match=r"push\.example\.org is not a public"):
            outbound.checked_address("push.example.org", 443)
    with pytest.raises(outbound.NotPublic, match="could not be resolved"):
        outbound.checked_address("nothing.invalid", 443)


class Listener:
    """A plain HTTP server on 127.0.0.1 that records what reaches it."""

    def __init__(self):
        self.seen: list[dict] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                seen.append({"host": self.headers["Host"], "body": self.rfile.read(length)})
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.close()


def test_a_request_goes_to_the_address_checked_under_its_host_name(resolver, listener):
    answers, asked = resolver
    answers["push.example.org"] = ["127.0.0.1"]
    url = f"http://push.example.org:{listener.port}/push/1"
    with outbound.session(loopback=True) as session:  # the stand-in's allowance
        assert session.post(url, data=b"hello", timeout=5).status_code == 201
    assert listener.seen == [{"host": f"push.example.org:{listener.port}", "body": b"hello"}]
    assert asked == ["push.example.org"]  # resolved once, by the check


def test_a_name_rebound_to_an_inside_address_after_the_check_is_never_reached(resolver, listener):
    """The endpoint was public when it was given; at the send it resolves to the machine
    itself: refused before any connection."""
    answers, _ = resolver
    answers["push.example.org"] = ["93.184.216.34"]
    outbound.checked_address("push.example.org", 443)  # as when it was subscribed
    answers["push.example.org"] = ["127.0.0.1"]
    with outbound.session() as session, pytest.raises(requests.ConnectionError) as refused:
        session.post(f"http://push.example.org:{listener.port}/push/1", data=b"x", timeout=5)
    assert isinstance(refused.value, outbound.NotPublic)
    with outbound.session() as session, pytest.raises(outbound.NotPublic):
        session.post(f"https://127.0.0.1:{listener.port}/push/1", timeout=5)
    assert listener.seen == []


def test_no_redirect_is_followed():
    with outbound.session() as session:
        assert session.max_redirects == 0
