"""The ``tuning`` hook: a server process readies itself before it serves.

Its templates compiled, its URLs resolved, and what it loaded kept out of the garbage
collector's way.

Python's cyclic garbage collector stops the whole process while it walks every object it
tracks. A started server holds some 100,000 such objects (Django, the apps, the compiled
templates), none of which will ever be garbage, and on these machines a full collection
of them alone takes about 40 ms; under load (every request leaves cyclic garbage behind:
the framework's tasks and tracebacks) full collections came every few seconds and took
about 100 ms each, and every move in flight waited for them. So, once at start-up:

- every template is compiled (the cached loader keeps it) and the URL patterns resolved,
  which the first requests would otherwise do, each in the middle of someone's move;
- ``gc.freeze()`` moves all of it to the permanent generation, never walked again;
- the youngest generation is collected every ``GC_GEN0`` allocations rather than 700, so
  that a request's short-lived cycles die young instead of being promoted to the old
  generations, whose collections are the long ones.

The collector still runs: nothing allocated after start-up is exempt from it.

And one more setting of the interpreter: a thread holding the GIL hands it over after
``SWITCH_INTERVAL`` rather than Python's 5 ms. A move crosses threads several times (the
request's, the SQLite writer, the event loop), and each time it may find another
request's Python running; with 5 ms slices, 20 challenges a second beside the moves made
their median 1.7x slower, with 1 ms slices 1.45x (benchmarks/lobby.py, same run).

All of it is the interpreter's and Django's public API; it is a switch of its own so that
the benchmark can say what it buys, and it runs in the served process only
(``bitsite.runtime.serving``): never at import, never in a test session.
"""

from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path

from django.template import TemplateDoesNotExist, TemplateSyntaxError, engines
from django.template.utils import get_app_template_dirs
from django.urls import get_resolver

log = logging.getLogger(__name__)

GC_GEN0 = 10_000  # Python's default: 700
GC_GEN1 = 10  # its default
GC_GEN2 = 10  # its default
SWITCH_INTERVAL = 0.001  # seconds; Python's default: 0.005


def compile_templates() -> int:
    """Compile every template the site can render (the cached loader keeps them)."""
    count = 0
    for backend in engines.all():
        engine = getattr(backend, "engine", None)
        if engine is None:
            continue
        # The apps' folders too (APP_DIRS: the loaders that django-template-partials wraps).
        dirs = [Path(d) for d in engine.dirs] + [
            Path(d) for d in get_app_template_dirs("templates")
        ]
        for root in dirs:
            for path in sorted(root.rglob("*.html")):
                try:
                    backend.get_template(path.relative_to(root).as_posix())
                except (TemplateSyntaxError, TemplateDoesNotExist) as error:  # not ours to use
                    log.debug("warm-up: %s not compiled (%s)", path, error)
                else:
                    count += 1
    return count


def warm_up() -> None:
    get_resolver().url_patterns  # noqa: B018  (imports every view module)
    compile_templates()
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0, GC_GEN1, GC_GEN2)
    sys.setswitchinterval(SWITCH_INTERVAL)
