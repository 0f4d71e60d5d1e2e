"""Push notifications in Chromium: the settings page's notifications part with and without
JavaScript (axe finds nothing serious on it), and the service worker at the site's root
showing a push (delivered through the DevTools protocol, as a push service delivers it).
The accounts are signed in with a session cookie (tests/browser/test_accounts.py signs up
through the site's pages)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import violations
from tests.ratings.helpers import account, sign_in_browser

pytestmark = pytest.mark.browser


def test_the_settings_page_offers_push_and_the_service_worker_shows_a_push(
    live_server_url, new_page
):
    base = live_server_url
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=base)
    sign_in_browser(page, base, account("pusher"))
    page.goto(f"{base}/accounts/settings/")
    expect(
        page.get_by_role("button", name="Turn on push notifications on this device")
    ).to_be_visible()
    expect(page.get_by_text("Push notifications need JavaScript")).to_be_hidden()
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        assert violations(page) == [], theme
    # The service worker is registered with the whole site as its scope.
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)") == f"{base}/"
    # The choices are a plain form.
    page.get_by_label("Your turn: by push").check()
    page.get_by_role("button", name="Save notification choices").click()
    expect(page.get_by_role("main")).to_contain_text("Your notification choices are saved.")
    expect(page.get_by_label("Your turn: by push")).to_be_checked()

    # A push, as the push service delivers it: the worker shows it.
    cdp = page.context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    ours = []
    for _ in range(100):  # the registration, as DevTools reports it (within 10 s)
        ours = [r for r in registrations if r["scopeURL"] == f"{base}/" and not r["isDeleted"]]
        if ours:
            break
        page.wait_for_timeout(100)
    (registration,) = {r["registrationId"]: r for r in ours}.values()
    data = {
        "title": "Your turn",
        "body": "Your turn in Bit Flip against ada.",
        "url": "/challenges/",
        "tag": "turn:x",
    }
    shown = []
    # On busy cores Chromium may drop a push sent while it still starts the worker: sent
    # again (the same tag: one notice) until it shows, at most six times over 30 s.
    for _ in range(6):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": base,
                "registrationId": registration["registrationId"],
                "data": json.dumps(data),
            },
        )
        shown = page.evaluate(
            """() => navigator.serviceWorker.ready.then(async r => {
                 for (let i = 0; i < 50; i++) {
                   const found = await r.getNotifications();
                   if (found.length) return found.map(n => [n.title, n.body, n.tag, n.data.url]);
                   await new Promise(ok => setTimeout(ok, 100));
                 }
                 return [];
               })"""
        )
        if shown:
            break
    assert shown == [["Your turn", "Your turn in Bit Flip against ada.", "turn:x", "/challenges/"]]
    assert page.console_errors == []


def test_without_javascript_the_page_says_push_needs_it(live_server_url, new_page):
    quiet = new_page(java_script_enabled=False)
    sign_in_browser(quiet, live_server_url, account("nojs"))
    quiet.goto(f"{live_server_url}/accounts/settings/")
    expect(quiet.get_by_text("Push notifications need JavaScript")).to_be_visible()
    expect(
        quiet.get_by_role("button", name="Turn on push notifications on this device")
    ).to_be_hidden()
    quiet.get_by_label("A challenge: by push").check()
    quiet.get_by_role("button", name="Save notification choices").click()
    expect(quiet.get_by_role("main")).to_contain_text("Your notification choices are saved.")
    expect(quiet.get_by_label("A challenge: by push")).to_be_checked()
