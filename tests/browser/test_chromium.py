"""The browser the tests drive: Debian's Chromium as Playwright starts it, with the address
bar's popup turned off (tests/conftest.py). A second --disable-features replaces Playwright's,
so the tests' list repeats it: this fails when the pinned Playwright changes its list."""

from __future__ import annotations

import re

import pytest

from tests.conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PLAYWRIGHT_DISABLED_FEATURES,
    QUIETER_FEATURES,
)

pytestmark = pytest.mark.browser


def command_line(browser) -> str:
    page = browser.new_page()
    try:
        page.goto("chrome://version")
        return page.locator("#command_line").inner_text()
    finally:
        page.close()


def disabled_features(line: str) -> list[str]:
    """The features the last --disable-features of a command line turns off (the one
    Chromium takes)."""
    found = re.findall(r"--disable-features=(\S+)", line)
    assert found, line
    return found[-1].split(",")


def browser_ui(browser) -> list[str]:
    """The addresses of the browser's own pages (its address bar's popup, drawn with web
    pages) once a page has loaded, through the DevTools protocol."""
    page = browser.new_page()
    session = browser.new_browser_cdp_session()
    try:
        page.goto("data:text/html,<title>a page</title><p>A page.")
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        session.detach()
        page.close()
    return [t["url"] for t in targets if t["type"] == "browser_ui"]


def test_the_tests_keep_playwrights_disabled_features_and_add_the_popup(browser):
    # Playwright's own list, from a browser started with its arguments alone.
    plain = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS[:-1])
    try:
        theirs = disabled_features(command_line(plain))
        assert any("omnibox-popup" in url for url in browser_ui(plain)), "nothing to turn off"
    finally:
        plain.close()
    assert theirs == PLAYWRIGHT_DISABLED_FEATURES, (
        "Playwright now disables other features: copy its list into "
        "PLAYWRIGHT_DISABLED_FEATURES (tests/conftest.py)"
    )
    ours = disabled_features(command_line(browser))
    assert ours == PLAYWRIGHT_DISABLED_FEATURES + QUIETER_FEATURES
    assert not [url for url in browser_ui(browser) if "omnibox-popup" in url]
