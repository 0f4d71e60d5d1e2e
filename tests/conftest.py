"""Shared fixtures: services markers, a daphne server, Chromium through Playwright, and
nginx."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from tests.hooks import covered_modules
from tests.servers import ARTIFACTS, ROOT, DaphneServer, database_url, server_env

HOOKED_MODULES = covered_modules()

CHROMIUM = "/usr/bin/chromium"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Playwright gives Chromium a --disable-features list of its own, and a second
# --disable-features replaces the first: ours repeats Playwright's (as the pinned Playwright
# sends it; tests/browser/test_chromium.py fails when that list changes) and adds the address
# bar's popup, which a headless window of the full browser draws in a renderer of its own at
# every navigation of every page (about a quarter of Chromium's CPU in a page load, with no
# page of the site affected).
PLAYWRIGHT_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
]
QUIETER_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]
CHROMIUM_ARGS.append(
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + QUIETER_FEATURES)
)
IN_CI = bool(os.environ.get("CI"))


def services_configured() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith("postgres") and bool(
        os.environ.get("REDIS_URL")
    )


def pytest_itemcollected(item):
    """The tests of what the private hooks touch (tests/hooks.py) are marked ``hooks``: CI
    runs them again with every hook off (``-m hooks``)."""
    if item.path.relative_to(ROOT).as_posix() in HOOKED_MODULES:
        item.add_marker(pytest.mark.hooks)


def pytest_collection_modifyitems(config, items):
    """Browser tests run last; tests marked ``services`` need PostgreSQL and Redis.

    Playwright's sync API keeps an event loop in the main thread for the rest of
    the session, so the asyncio tests (consumers) must run before the first
    browser test.

    Without DATABASE_URL/REDIS_URL they skip with a reason on a laptop; under CI
    they are deselected from the plain run (CI runs them in its services run),
    so nothing is ever skipped in CI.
    """
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
    if services_configured():
        return
    services = [item for item in items if item.get_closest_marker("services")]
    if not services:
        return
    if IN_CI:
        items[:] = [item for item in items if not item.get_closest_marker("services")]
        config.hook.pytest_deselected(items=services)
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and REDIS_URL=redis://..."
    )
    for item in services:
        item.add_marker(skip)


@pytest.fixture(autouse=True)
def redis_answers_again():
    """A test that made Redis unreachable leaves no back-off to the next one."""
    from bitsite import redis_guard

    redis_guard.reset()
    yield
    redis_guard.reset()


@pytest.fixture(autouse=True)
def a_channel_layer_per_test():
    """Each async test runs its sockets on an event loop of its own, and channels-redis's
    layer keeps asyncio locks bound to the loop that first used them: one receive cut off
    when a test's loop closed left its lock held, and every socket of every later test in
    that worker was closed with 4503 ("bound to a different event loop"). A layer per test:
    Channels builds its layers again whenever CHANNEL_LAYERS changes (Django's
    ``setting_changed``), on entering and on leaving."""
    from django.conf import settings
    from django.test import override_settings

    with override_settings(CHANNEL_LAYERS=settings.CHANNEL_LAYERS):
        yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """On SQLite, a file-backed test database, so that a live server in another process
    sees it; one per test run, so that two runs at once don't share it."""
    from django.db import connections

    database = connections["default"].settings_dict
    if database["ENGINE"].endswith("sqlite3"):
        database.setdefault("TEST", {})["NAME"] = str(ROOT / f"test-db-{os.getpid()}.sqlite3")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """After each transactional test the database is flushed, and Django's flush sends
    ``post_migrate``, whose receivers (contenttypes' and auth's) make every content type and
    permission again, a query or two per app: most of a flush's cost, paid by every
    transactional and browser test. Here they are put back as they were after the
    migrations instead, in two inserts, with the same ids (so that a daphne process's cache
    of content types stays right across tests, which new ids would not)."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.management import create_contenttypes
    from django.contrib.contenttypes.models import ContentType
    from django.db.models.signals import post_migrate

    with django_db_blocker.unblock():
        kinds = list(ContentType.objects.all())
        permissions = list(Permission.objects.all())
    assert kinds and permissions, "the migrations made no content types or permissions"

    def put_back(using, **kwargs):
        if not ContentType.objects.using(using).exists():
            ContentType.objects.using(using).bulk_create(kinds)
            Permission.objects.using(using).bulk_create(permissions)
        ContentType.objects.clear_cache()

    contenttypes = apps.get_app_config("contenttypes")
    post_migrate.disconnect(create_contenttypes)
    post_migrate.disconnect(dispatch_uid="django.contrib.auth.management.create_permissions")
    post_migrate.connect(put_back, sender=contenttypes, dispatch_uid="tests.put_back")
    yield
    post_migrate.disconnect(dispatch_uid="tests.put_back")
    post_migrate.connect(create_contenttypes)
    post_migrate.connect(
        create_permissions, dispatch_uid="django.contrib.auth.management.create_permissions"
    )


@pytest.fixture(scope="session")
def artifacts() -> Path:
    path = ARTIFACTS / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, driven by Playwright (whose own browser download is not used)."""
    if not os.path.exists(CHROMIUM):
        message = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if IN_CI:
            pytest.fail(message + ": CI must run the browser tests.")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the ORM calls
    # tests make between browser steps are safe (no loop is running during them).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def servers(django_db_setup, django_db_blocker):
    """Daphne processes serving the test database, started once for the whole run and
    shared by the tests that ask for the same settings: ``servers()`` is the server as
    `make run` starts it, ``servers(BITSITE_ABANDON_SECONDS="2")`` one with that setting.
    Each test still has fresh browser contexts (fresh sessions) and a flushed database; a
    server a test stopped is started again for the next one. A test that kills its server
    or must own its process takes ``daphne`` instead."""
    from django.db import connection

    with django_db_blocker.unblock():
        url = database_url(connection.settings_dict)
    started: dict[tuple, DaphneServer] = {}

    def server(**extra: str) -> DaphneServer:
        key = tuple(sorted(extra.items()))
        found = started.get(key)
        if found is None:
            name = "shared" + "".join(f"-{k.lower()}" for k, _ in key)
            found = started[key] = DaphneServer(server_env(url, **extra), name=name[:60])
        if not found.running:
            found.start()
        return found

    yield server
    for found in started.values():
        found.stop()


@pytest.fixture
def live_server_url(transactional_db, servers) -> str:
    """The address of the shared daphne, as `make run` starts it."""
    return servers().url


@pytest.fixture
def daphne(transactional_db, request) -> DaphneServer:
    """A daphne process of the test's own, for tests that kill and restart it (or need
    settings of their own: ``request.param`` is extra environment); stopped afterwards."""
    from django.db import connection

    extra = getattr(request, "param", None) or {}
    env = server_env(database_url(connection.settings_dict), **extra)
    server = DaphneServer(env, name=request.node.name[:40]).start()
    yield server
    server.stop()


@pytest.fixture
def resolver(monkeypatch):
    """Names resolved as the test says (the machine has no DNS of the Internet), every
    other lookup as usual; ``asked`` records the names looked up."""
    real = socket.getaddrinfo
    answers: dict[str, list[str]] = {}
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host in answers:
            asked.append(host)
            return [
                (
                    socket.AF_INET6 if ":" in a else socket.AF_INET,
                    socket.SOCK_STREAM,
                    6,
                    "",
                    (a, port, 0, 0) if ":" in a else (a, port),
                )
                for a in answers[host]
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers, asked


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    """Debian's nginx, for the proxy tests (tests/test_proxy.py)."""
    if not os.path.exists(NGINX):
        message = f"nginx is not installed at {NGINX} (apt-get install nginx)"
        if IN_CI:
            pytest.fail(message + ": CI must run the proxy tests.")
        pytest.skip(message)
    return NGINX


@pytest.fixture
def new_page(browser, artifacts):
    """Open a page in a fresh browser context (its own cookies: another person)."""
    contexts = []

    def make(viewport=None, java_script_enabled=True):
        context = browser.new_context(
            viewport=viewport or {"width": 1100, "height": 900},
            java_script_enabled=java_script_enabled,
        )
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on(
            "console",
            lambda msg: page.console_errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
        page.set_default_timeout(10_000)
        return page

    yield make
    for context in contexts:
        context.close()


def pytest_unconfigure(config):
    """Django deletes the SQLite test database at the end; a connection closed after that
    leaves its WAL side files behind. Remove this run's."""
    from django.conf import settings

    if not settings.configured:
        return
    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name and str(name).endswith(f"-{os.getpid()}.sqlite3"):
        for suffix in ("-wal", "-shm"):
            Path(f"{name}{suffix}").unlink(missing_ok=True)
