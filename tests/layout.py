"""The project's layout as the guards read it: its apps from Django's app registry, their
modules, and each module's imports (``ast``).

Every guard of the layering takes its apps from here, so an app added to INSTALLED_APPS is
guarded the day it is added: nothing lists the apps by hand. The guards themselves are
functions of one module's path and source, so a test can show each one failing on a probe
module (tests/test_layout.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "bitsite"  # the Django project's own package (settings, ASGI, runtime hooks)
RUNTIME = ROOT / PROJECT / "runtime"  # the one home of the libraries' private names


def project_apps(registry=None, root: Path = ROOT) -> list[str]:
    """The installed apps that are this project's own: each a package at the top of the
    checkout (games, learn, accounts...), in INSTALLED_APPS order."""
    if registry is None:
        from django.apps import apps as registry
    return [
        config.name
        for config in registry.get_app_configs()
        if Path(config.path).parent == root and "." not in config.name
    ]


def apps_above_games(registry=None, root: Path = ROOT) -> list[str]:
    """Every app of the project but games: each is built on games."""
    apps = project_apps(registry, root)
    assert "games" in apps, apps
    return [app for app in apps if app != "games"]


def served_packages(registry=None, root: Path = ROOT) -> list[str]:
    """What daphne serves: the project's package and every app of the project."""
    return [PROJECT, *project_apps(registry, root)]


def sources(package: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / package).rglob("*.py"))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, source: str | None = None, root: Path = ROOT) -> list[tuple[int, str, str]]:
    """Every import in the file: (line, module, name), with relative imports made
    absolute. ``import a.b`` gives ("a.b", ""); ``from a import b`` gives ("a", "b")."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    package = module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            found += [(node.lineno, module, alias.name) for alias in node.names]
    return found


def within(module: str, name: str, target: str) -> bool:
    """Whether importing ``name`` from ``module`` (or ``module`` itself) reaches ``target``."""
    for full in (module, f"{module}.{name}" if name else module):
        if full == target or full.startswith(target + "."):
            return True
    return False


def where(path: Path, line: int, root: Path = ROOT) -> str:
    return f"{path.relative_to(root)}:{line}"


# ---- the guards: what one module does wrong, as lines of a failure message ----------------


def games_imports_an_app_above_it(
    path: Path, source: str | None = None, registry=None, root: Path = ROOT
) -> list[str]:
    """games tells the apps built on it what happened through its signals, and links to
    their pages by URL name: it imports none of them."""
    above = apps_above_games(registry, root)
    return [
        f"{where(path, line, root)} {m}"
        for line, m, n in imports(path, source, root)
        for app in above
        if within(m, n, app)
    ]


PRACTICE = Path("learn/views/practice.py")  # learn's one write: a practice match


def learn_reaches_the_write_path(
    path: Path, source: str | None = None, root: Path = ROOT
) -> list[str]:
    """Learn reads; its one write, a practice match, goes through the write path from its
    own module, and nothing else of learn may reach ``games.play``."""
    return [
        where(path, line, root)
        for line, m, n in imports(path, source, root)
        if within(m, n, "games.play")
    ]


def imports_the_benchmarks(path: Path, source: str | None = None, root: Path = ROOT) -> list[str]:
    """Served code never imports the benchmark (its bare baseline is mounted only by the
    benchmark's own server)."""
    return [
        f"{where(path, line, root)} {m or n}"
        for line, m, n in imports(path, source, root)
        if within(m, n, "benchmarks")
    ]


def imports_a_private_name(path: Path, source: str | None = None, root: Path = ROOT) -> list[str]:
    """No module of the site imports another module's underscore-prefixed name."""
    return [
        f"{where(path, line, root)} {m}.{n}"
        for line, m, n in imports(path, source, root)
        if n.startswith("_") and not n.startswith("__")
    ]
