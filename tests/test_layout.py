"""The apps' layout, read from the source with ``ast``: every app sits on top of games.

- Nothing under games/ imports an app built on it (accounts, ratings, lobby, learn): games
  tells them what happened through its signals, and links to their pages by URL name.
- Nothing under learn/ imports ``games.play``: learn reads the rules, the presenters and
  finished matches, and never writes a match.
- No module of the site imports another module's underscore-prefixed name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS_ABOVE_GAMES = ("accounts", "ratings", "lobby", "learn")
SITE = ("bitsite", "games", *APPS_ABOVE_GAMES)


def sources(app: str) -> list[Path]:
    return sorted((ROOT / app).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, source: str | None = None) -> list[tuple[int, str, str]]:
    """Every import in the file: (line, module, name), with relative imports made
    absolute. ``import a.b`` gives ("a.b", ""); ``from a import b`` gives ("a", "b")."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    package = module_name(path)
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


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


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


@pytest.mark.parametrize("path", sources("games"), ids=lambda p: str(p.relative_to(ROOT)))
def test_games_never_imports_the_apps_built_on_it(path):
    bad = [
        f"{where(path, line)} {m}"
        for line, m, n in imports(path)
        for app in APPS_ABOVE_GAMES
        if within(m, n, app)
    ]
    assert not bad, f"games imports an app built on it at {bad}"


@pytest.mark.parametrize("path", sources("learn"), ids=lambda p: str(p.relative_to(ROOT)))
def test_learn_never_imports_the_write_path(path):
    """Learn reads; its one write, a practice match, goes through the write path from
    its own module (learn/views/practice.py), and nothing else of learn may reach it."""
    bad = [where(path, line) for line, m, n in imports(path) if within(m, n, "games.play")]
    if path.relative_to(ROOT) == Path("learn/views/practice.py"):
        assert bad, "the practice view starts its match through games.play"
    else:
        assert not bad, f"learn imports games.play at {bad}"


@pytest.mark.parametrize(
    "path", [p for app in SITE for p in sources(app)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_imports_another_modules_private_name(path):
    bad = [
        f"{where(path, line)} {m}.{n}"
        for line, m, n in imports(path)
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not bad, f"private names imported: {bad}"
