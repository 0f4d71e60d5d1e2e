"""The tournaments' core imports nothing from Django or Channels, as games/rules does not."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CORE = [ROOT / "tournaments" / name for name in ("__init__.py", "swiss.py", "arena.py")]


def test_importing_the_core_imports_neither_django_nor_channels():
    code = (
        "import sys, tournaments.swiss, tournaments.arena; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'channels')); "
        "print(bad); assert not bad, bad"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]"


def test_no_core_source_imports_django_or_channels():
    pattern = re.compile(r"^\s*(from|import)\s+(django|channels)\b", re.MULTILINE)
    for path in CORE:
        assert not pattern.search(path.read_text()), path
