import pytest

pytestmark = pytest.mark.browser


def test_home_page_loads_with_htmx_and_no_console_errors(live_server_url, new_page, artifacts):
    page = new_page()
    page.goto(live_server_url + "/")
    assert page.title().endswith("bitsite")
    assert page.get_by_role("heading", name="bitsite", exact=True).is_visible()
    assert page.evaluate("typeof window.htmx") == "object"
    assert page.evaluate("typeof window.htmx.version") == "string"
    page.screenshot(path=str(artifacts / "home.png"), full_page=True)
    assert page.console_errors == []
