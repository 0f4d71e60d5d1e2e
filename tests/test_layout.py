"""The apps' layout, read from the source with ``ast``: every app sits on top of games.

The apps come from Django's app registry (tests/layout.py), so an app added to
INSTALLED_APPS is guarded the day it is added:

- Nothing under games/ imports an app built on it: games tells them what happened through
  its signals, and links to their pages by URL name.
- Nothing under learn/ but its practice view imports ``games.play``: learn reads the rules,
  the presenters and finished matches, and writes only a practice match.
- No served module (the project's package and its apps) imports the benchmark.
- No module of the site imports another module's underscore-prefixed name.

(The libraries' private names live only in bitsite/runtime/: tests/test_runtime.py.)
Each guard is shown failing once, on a probe module of a probe app.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.layout import (
    PRACTICE,
    ROOT,
    apps_above_games,
    games_imports_an_app_above_it,
    imports,
    imports_a_private_name,
    imports_the_benchmarks,
    learn_reaches_the_write_path,
    module_name,
    project_apps,
    served_packages,
    sources,
    within,
)


def ids(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_apps_come_from_the_registry():
    from django.conf import settings

    apps = project_apps()
    # Every app of the checkout that INSTALLED_APPS names, and nothing of a library.
    assert apps == [a for a in settings.INSTALLED_APPS if (ROOT / a / "apps.py").exists()]
    assert {"games", "learn", "accounts", "ratings", "lobby", "tournaments", "people"} <= set(apps)
    assert {"chat", "api"} <= set(apps_above_games())
    assert "games" not in apps_above_games()
    assert "daphne" not in apps and "ninja" not in apps


def test_the_checks_see_every_kind_of_import():
    learn = ROOT / "learn" / "views" / "analysis.py"
    source = (
        "import games.play\n"
        "from games import play\n"
        "from games.play import settle_time\n"
        "from ..theory import theory_for\n"
        "from games.review import _closed\n"
    )
    found = imports(learn, source)
    assert [within(m, n, "games.play") for _, m, n in found] == [True, True, True, False, False]
    assert found[3][1:] == ("learn.theory", "theory_for")
    assert within(*found[3][1:], "learn")
    assert found[4][2].startswith("_")


def test_the_apps_have_their_modules():
    names = {module_name(p) for p in sources("learn")}
    assert {"learn.analysis_board", "learn.puzzles", "learn.theory", "learn.urls"} <= names
    assert {"games.rules", "games.play", "games.verdicts", "games.rights"} <= {
        module_name(p) for p in sources("games")
    }


@pytest.mark.parametrize("path", sources("games"), ids=ids)
def test_games_never_imports_the_apps_built_on_it(path):
    bad = games_imports_an_app_above_it(path)
    assert not bad, f"games imports an app built on it at {bad}"


@pytest.mark.parametrize("path", sources("learn"), ids=ids)
def test_learn_never_imports_the_write_path(path):
    """Learn reads; its one write, a practice match, goes through the write path from
    its own module (learn/views/practice.py), and nothing else of learn may reach it."""
    bad = learn_reaches_the_write_path(path)
    if path.relative_to(ROOT) == PRACTICE:
        assert bad, "the practice view starts its match through games.play"
    else:
        assert not bad, f"learn imports games.play at {bad}"


@pytest.mark.parametrize(
    "path", [p for package in served_packages() for p in sources(package)], ids=ids
)
def test_no_served_module_imports_the_benchmark(path):
    bad = imports_the_benchmarks(path)
    assert not bad, f"served code imports the benchmark at {bad}"


@pytest.mark.parametrize(
    "path", [p for package in served_packages() for p in sources(package)], ids=ids
)
def test_no_module_imports_another_modules_private_name(path):
    bad = imports_a_private_name(path)
    assert not bad, f"private names imported: {bad}"


# ---- each guard fails on a probe ----------------------------------------------------------


@pytest.fixture
def probe_checkout(tmp_path):
    """A checkout with games, learn and a new app ``probe``, as the registry would list
    them once ``probe`` is in INSTALLED_APPS: the guards see it without being told."""
    for package in ("games", "learn", "learn/views", "probe"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    configs = [
        SimpleNamespace(name=name, path=str(path))
        for name, path in (
            ("django.contrib.admin", ROOT / ".venv" / "django" / "contrib" / "admin"),
            ("games", tmp_path / "games"),
            ("learn", tmp_path / "learn"),
            ("probe", tmp_path / "probe"),
        )
    ]
    return tmp_path, SimpleNamespace(get_app_configs=lambda: configs)


def test_a_new_app_is_guarded_without_being_named(probe_checkout):
    root, registry = probe_checkout
    assert apps_above_games(registry, root) == ["learn", "probe"]
    assert served_packages(registry, root) == ["bitsite", "games", "learn", "probe"]


def test_the_games_guard_fails_on_games_importing_a_new_app(probe_checkout):
    root, registry = probe_checkout
    probe = root / "games" / "notify.py"
    for source in ("import probe.models\n", "from probe import signals\n"):
        probe.write_text(source)
        assert games_imports_an_app_above_it(probe, registry=registry, root=root) == [
            "games/notify.py:1 " + source.split()[1]
        ]
    probe.write_text("from games import play\n")
    assert games_imports_an_app_above_it(probe, registry=registry, root=root) == []


def test_the_learn_guard_fails_on_learn_reaching_the_write_path(probe_checkout):
    root, _ = probe_checkout
    probe = root / "learn" / "views" / "board.py"
    probe.write_text("import os\nfrom games.play import make_move\n")
    assert learn_reaches_the_write_path(probe, root=root) == ["learn/views/board.py:2"]
    probe.write_text("from games import rules\n")
    assert learn_reaches_the_write_path(probe, root=root) == []


def test_the_benchmark_guard_fails_on_a_new_app_importing_it(probe_checkout):
    root, registry = probe_checkout
    assert "probe" in served_packages(registry, root)
    probe = root / "probe" / "views.py"
    probe.write_text("from benchmarks import baseline\nimport benchmarks.load\n")
    assert imports_the_benchmarks(probe, root=root) == [
        "probe/views.py:1 benchmarks",
        "probe/views.py:2 benchmarks.load",
    ]


def test_the_private_name_guard_fails_on_a_new_app_importing_one(probe_checkout):
    root, _ = probe_checkout
    probe = root / "probe" / "views.py"
    probe.write_text("from games.review import _closed, __all__\n")
    assert imports_a_private_name(probe, root=root) == ["probe/views.py:1 games.review._closed"]
