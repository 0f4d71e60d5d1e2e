"""What the docs say that can drift from the code, checked against the code.

- The configuration table of docs/operations.md: every environment variable the site
  reads is in it, it names none that the site does not read, and each default is the
  code's. The variables are found by parsing the apps' modules (``ast``), not by a list
  kept here: ``os.environ.get(NAME, DEFAULT)``, ``os.environ[NAME]``, ``os.getenv``,
  ``NAME in os.environ``, the settings' helpers ``env_bool``, ``env_list`` and
  ``env_rates``, and ``dj_database_url.config`` (which reads ``DATABASE_URL``). Any other
  use of ``os.environ`` fails, so that a new way of reading it is taught here first.
- The README: at most 200 lines, the two commands first, and a layout that names every
  top-level folder, and only folders that exist.
- The docs' relative links and anchors resolve, and every repository path they quote in
  ``code`` exists.
- ``make bench`` writes its figures into benchmarks/README.md, between its markers.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.layout import ROOT, served_packages

README = ROOT / "README.md"
OPERATIONS = ROOT / "docs" / "operations.md"
BENCH_README = ROOT / "benchmarks" / "README.md"
DOCS = [README, BENCH_README, *sorted((ROOT / "docs").rglob("*.md"))]

# Set by the entry points (manage.py, asgi, wsgi) for Django itself: not configuration.
NOT_CONFIGURATION = {"DJANGO_SETTINGS_MODULE"}
# The settings' helpers: (the variable's name, its default) are their first two arguments.
HELPERS = ("env_bool", "env_list", "env_rates")
# A default the code computes: the words its cell must show.
COMPUTED = {
    "DATABASE_URL": "`db.sqlite3`",
    "DJANGO_SECURE_SSL": "on when debug is off",
    "DJANGO_STATIC_ROOT": "`staticfiles/`",
    "BITSITE_HOOKS": "`all`",
    "EMAIL_HOST": "none",
}
UNSET = object()  # read with no default: what it means is computed by the code around it


@dataclass(frozen=True)
class Read:
    name: str
    default: object  # a literal, an ast node (computed), or UNSET
    where: str


def _is_os_environ(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _is_os_getenv(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "getenv"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _literal(node):
    """A default as the table shows it: a literal, or the node itself when computed."""
    if node is None:
        return UNSET
    try:
        return ast.literal_eval(node)
    except ValueError:
        return node


def _modules():
    # The project's package and every app the registry lists (tests/layout.py). A module
    # whose text never says "environ" nor "getenv" reads no variable and cannot hide a read
    # (os.environ, os.getenv, ``from os import environ`` and an alias's ``.environ`` all
    # spell it): only the others are parsed, which keeps this module's collection cheap.
    for app in served_packages():
        for path in sorted((ROOT / app).rglob("*.py")):
            text = path.read_text()
            if "environ" in text or "getenv" in text:
                yield path, ast.parse(text, filename=str(path))


def _helper_defaults(tree) -> dict[str, object]:
    """The settings' helpers' own defaults (``env_list(name, default="")``)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in HELPERS:
            names = [a.arg for a in node.args.args]
            given = node.args.defaults  # the defaults of the last len(given) arguments
            defaults = dict(zip(names[len(names) - len(given) :], given, strict=True))
            found[node.name] = _literal(defaults["default"]) if "default" in defaults else UNSET
    return found


class _Module:
    """The environment reads of one module (``reads``), and what it does with
    ``os.environ`` that this test cannot tell (``unexplained``)."""

    def __init__(self, path: Path, tree: ast.Module, helper_defaults: dict[str, object]):
        self.where = str(path.relative_to(ROOT))
        self.helper_defaults = helper_defaults
        self.reads: list[Read] = []
        self.unexplained: list[str] = []
        self.explained: set[int] = set()  # the os.environ nodes read in a known way
        # Inside the settings' helpers, ``os.environ.get(name, default)`` reads a parameter:
        # their calls are what names the variables.
        self.helper_nodes = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name in HELPERS
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            self.visit(node)
        for node in ast.walk(tree):
            if _is_os_environ(node) and id(node) not in self.explained:
                self.unexplained.append(f"{self.where}:{node.lineno}: os.environ used so")

    def name_of(self, node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if id(node) not in self.helper_nodes:
            self.unexplained.append(f"{self.where}:{node.lineno}: a name that is not a literal")
        return None

    def read(self, name_node, default) -> None:
        name = self.name_of(name_node)
        if name:
            self.reads.append(Read(name, default, self.where))

    def visit(self, node) -> None:
        if isinstance(node, ast.Import) and any(
            a.name == "os" and a.asname not in (None, "os") for a in node.names
        ):
            self.unexplained.append(f"{self.where}:{node.lineno}: os imported as another name")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            names = {alias.name for alias in node.names}
            if names & {"environ", "getenv", "environb", "getenvb"}:
                self.unexplained.append(f"{self.where}:{node.lineno}: from os import {names}")
        elif isinstance(node, ast.Call):
            self.visit_call(node, node.func, node.args)
        elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
            self.explained.add(id(node.value))
            if isinstance(node.ctx, ast.Load):
                self.read(node.slice, UNSET)
            else:
                self.unexplained.append(f"{self.where}:{node.lineno}: os.environ[...] written")
        elif isinstance(node, ast.Compare) and any(_is_os_environ(c) for c in node.comparators):
            self.explained.update(id(c) for c in node.comparators if _is_os_environ(c))
            self.read(node.left, UNSET)

    def visit_call(self, node: ast.Call, func, args) -> None:
        def default(index: int):
            return _literal(args[index]) if len(args) > index else UNSET

        if isinstance(func, ast.Attribute) and _is_os_environ(func.value):
            self.explained.add(id(func.value))
            if func.attr == "get" and args:
                self.read(args[0], default(1))
            elif func.attr == "setdefault" and args and _literal(args[0]) in NOT_CONFIGURATION:
                pass  # the entry points' DJANGO_SETTINGS_MODULE
            else:
                self.unexplained.append(f"{self.where}:{node.lineno}: os.environ.{func.attr}")
        elif _is_os_getenv(func) and args:
            self.read(args[0], default(1))
        elif isinstance(func, ast.Name) and func.id in HELPERS and args:
            self.read(args[0], default(1) if len(args) > 1 else self.helper_defaults[func.id])
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "config"
            and isinstance(func.value, ast.Name)
            and func.value.id == "dj_database_url"
        ):
            keywords = {k.arg: k.value for k in node.keywords}
            name = keywords.get("env", ast.Constant("DATABASE_URL", lineno=node.lineno))
            self.read(name, _literal(keywords.get("default")))


def environment_reads() -> list[Read]:
    """Every environment variable the apps' modules read, with its default."""
    settings_tree = ast.parse((ROOT / "bitsite" / "settings.py").read_text())
    helper_defaults = _helper_defaults(settings_tree)
    reads: list[Read] = []
    unexplained: list[str] = []
    for path, tree in _modules():
        module = _Module(path, tree, helper_defaults)
        reads += module.reads
        unexplained += module.unexplained
    assert not unexplained, (
        "os.environ is read in a way tests/test_docs.py does not know: teach it "
        "(environment_reads), so that the configuration table stays checked: "
        + "; ".join(unexplained)
    )
    return [read for read in reads if read.name not in NOT_CONFIGURATION]


def _cells(line: str) -> list[str]:
    """A markdown table row's cells (a ``|`` inside backticks is text)."""
    cells, cell, code = [], "", False
    for char in line.strip().strip("|"):
        if char == "`":
            code = not code
        if char == "|" and not code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    cells.append(cell.strip())
    return cells


def _section(text: str, heading: str) -> str:
    """The text under a ``## heading``, up to the next heading of that level or above."""
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^#{{1,2}} |\Z)", text, re.M | re.S)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def configuration_table() -> dict[str, dict[str, str]]:
    """docs/operations.md's configuration table: variable -> {meaning, default}."""
    section = _section(OPERATIONS.read_text(), "Configuration")
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows, "docs/operations.md: no table under '## Configuration'"
    assert _cells(rows[0]) == ["variable", "meaning", "default"], rows[0]
    assert set(rows[1].replace("|", "").strip()) <= set("-: "), rows[1]
    table: dict[str, dict[str, str]] = {}
    for row in rows[2:]:
        cells = _cells(row)
        assert len(cells) == 3, f"docs/operations.md: a row without three cells: {row}"
        found = re.fullmatch(r"`([A-Z][A-Z0-9_]*)`", cells[0])
        assert found, f"docs/operations.md: a row whose first cell is not `NAME`: {row}"
        name = found.group(1)
        assert name not in table, f"docs/operations.md: {name} has two rows"
        table[name] = {"meaning": cells[1], "default": cells[2]}
    return table


def _shown(value) -> str:
    """How a literal default must appear in its cell."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value == "" or value is None:
        return "none"
    return f"`{value}`"


def expected_in_cell(read: Read) -> list[str]:
    """What the default cell of ``read`` must show; [] when only a computed default."""
    default = read.default
    if isinstance(default, ast.IfExp):  # "a if condition else b": both, as literals
        branches = [_literal(default.body), _literal(default.orelse)]
        if all(not isinstance(b, ast.AST) and b is not UNSET for b in branches):
            return [_shown(b) for b in branches]
        return []
    if default is UNSET or isinstance(default, ast.AST):
        return []
    return [_shown(default)]


def _contains(cell: str, text: str) -> bool:
    if text.startswith("`"):
        return text in cell
    return re.search(rf"(?<![\w`]){re.escape(text)}(?![\w`])", cell) is not None


# ---- the configuration table ---------------------------------------------------------------


def test_the_parser_finds_the_ways_the_settings_read_the_environment():
    """If this fails, the parser has lost a kind of read (and the table checks with it)."""
    reads = {read.name: read for read in environment_reads()}
    assert reads["BITSITE_RATE_CREATE"].default == "60/m,300/m"  # env_rates
    assert reads["DJANGO_DEBUG"].default is False  # env_bool
    assert reads["DJANGO_CSRF_TRUSTED_ORIGINS"].default == ""  # env_list's own default
    assert reads["EMAIL_PORT"].default == "587"  # os.environ.get
    assert isinstance(reads["DJANGO_SECURE_SSL"].default, ast.UnaryOp)  # not DEBUG
    assert reads["BITSITE_HOOKS"].default is UNSET  # runtime.parse(os.environ.get(...))
    assert "DATABASE_URL" in reads  # dj_database_url.config
    assert "DJANGO_SETTINGS_MODULE" not in reads


def test_every_variable_the_site_reads_is_in_the_configuration_table():
    missing = sorted({read.name for read in environment_reads()} - set(configuration_table()))
    assert not missing, f"docs/operations.md's configuration table lacks {missing}"


def test_the_configuration_table_names_only_variables_the_site_reads():
    unread = sorted(set(configuration_table()) - {read.name for read in environment_reads()})
    assert not unread, f"docs/operations.md names variables the site never reads: {unread}"


@pytest.mark.parametrize("read", environment_reads(), ids=lambda read: read.name)
def test_each_default_in_the_configuration_table_is_the_codes(read):
    row = configuration_table().get(read.name)
    if row is None:
        pytest.skip("not in the table (another test says so)")
    cell = row["default"]
    assert row["meaning"], f"{read.name}: no meaning"
    assert cell, f"{read.name}: no default"
    for text in expected_in_cell(read):
        assert _contains(cell, text), (
            f"{read.name}: {read.where} defaults to {text}, docs/operations.md says {cell!r}"
        )
    if not expected_in_cell(read) and read.name in COMPUTED:
        assert _contains(cell, COMPUTED[read.name]), (
            f"{read.name}: its computed default should read {COMPUTED[read.name]!r}: {cell!r}"
        )


# ---- the README ----------------------------------------------------------------------------


def test_the_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: at most 200"


def test_the_readme_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    assert lines[0] == "# bitsite"
    assert lines[1:3] == ["", "```sh"], lines[:4]
    assert lines[3].startswith("make run "), lines[3]
    assert lines[4].startswith("make test "), lines[4]
    assert lines[5:7] == ["```", ""], lines[5:7]
    assert lines[7].startswith("Both need only Python 3.11, `make`"), lines[7]


def _ignored(name: str) -> bool:
    """A top-level name the repository ignores (.gitignore) or hides."""
    if name.startswith("."):
        return True
    for line in (ROOT / ".gitignore").read_text().splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith(("#", "!")):
            continue
        pattern = pattern.lstrip("/").rstrip("/")
        if "/" not in pattern and fnmatch.fnmatch(name, pattern):
            return True
    return False


def readme_layout() -> list[str]:
    """The names the README's layout starts its lines with (``games/``, ``manage.py``)."""
    section = _section(README.read_text(), "Layout")
    block = re.search(r"^```\n(.*?)^```", section, re.M | re.S)
    assert block, "README.md: the layout is not in a code block"
    return [line.split()[0] for line in block.group(1).splitlines() if line[:1].strip()]


def test_the_readme_layout_names_every_top_level_folder():
    named = {name.rstrip("/") for name in readme_layout() if name.endswith("/")}
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and not _ignored(p.name)}
    assert folders <= named, f"README.md's layout lacks {sorted(folders - named)}"


def test_everything_the_readme_layout_names_exists():
    for name in readme_layout():
        if name.endswith("/"):
            assert (ROOT / name).is_dir(), f"README.md's layout names {name}: no such folder"
        else:
            assert list(ROOT.glob(name)), f"README.md's layout names {name}: no such file"


# ---- links and paths in every doc -------------------------------------------------------


def _slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def _prose(path: Path) -> str:
    """A doc without its fenced code blocks."""
    return re.sub(r"^```.*?^```", "", path.read_text(), flags=re.M | re.S)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_links_resolve(doc):
    for target in re.findall(r"\]\(([^)\s]+)\)", _prose(doc)):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        assert resolved.exists(), f"{doc.relative_to(ROOT)} links to {target}: no such file"
        if anchor:
            assert anchor in _anchors(resolved), (
                f"{doc.relative_to(ROOT)} links to {target}: no such heading"
            )


TOP = "|".join(re.escape(p.name) for p in ROOT.iterdir() if p.is_dir() and p.name != ".git")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_paths_the_docs_quote_exist(doc):
    """A path in `code` that starts with a top-level folder must exist (placeholders such as
    `<slug>` and wildcards are left alone)."""
    for code in re.findall(r"`([^`\s]+)`", _prose(doc)):
        if not re.match(rf"(?:{TOP})/", code) or re.search(r"[<>*{}]", code):
            continue
        assert (ROOT / code).exists(), f"{doc.relative_to(ROOT)} names {code}: no such path"


# ---- the benchmark's figures ------------------------------------------------------------


def test_make_bench_writes_its_figures_into_benchmarks_readme(monkeypatch, tmp_path):
    from benchmarks import report, run

    text = BENCH_README.read_text()
    assert text.count(report.README_START) == 1
    assert text.count(report.README_END) == 1
    assert report.README_START not in README.read_text()

    written = []
    monkeypatch.setattr(report, "write", lambda *args: None)
    monkeypatch.setattr(report, "update_readme", lambda results, path: written.append(path))
    monkeypatch.setattr(run, "progress", lambda *args: None)
    run.publish({})
    assert written == [BENCH_README]

    copy = tmp_path / "README.md"
    copy.write_text(text)
    monkeypatch.undo()
    monkeypatch.setattr(report, "readme_figures", lambda results: "new figures")
    assert report.update_readme({}, copy)
    head, _, rest = text.partition(report.README_START)
    _, _, tail = rest.partition(report.README_END)
    assert (
        copy.read_text() == f"{head}{report.README_START}\nnew figures\n{report.README_END}{tail}"
    )
