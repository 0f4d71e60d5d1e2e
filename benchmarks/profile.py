"""Read a py-spy raw profile (collapsed stacks): where the server's time went.

    python -m benchmarks.profile benchmarks/results/raw/profile-n100-moves.txt [--top 25]

py-spy is attached by ``python -m benchmarks.run --profile`` to the daphne
process during the N = 100 runs (``--threads --nonblocking``, 200 samples/s), one
recording for each row: our move POSTed (``*-moves``), the bare insert (``*-baseline``),
our move sent on the socket (``*-socket``) and the bare ws move (``*-bare_socket``).
This prints, per thread, its share of the samples, then the functions with the
largest inclusive share (the time spent in them and what they call) and the
largest self share; ``--grep`` keeps only frames whose text contains a word
(``--grep games/``: our code).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout the server ran from
FRAME_RE = re.compile(r"^(?P<func>.*?) \((?P<file>.*?)(?::(?P<line>\d+))?\)$")


def short(frame: str) -> str:
    """``func (path/to/site-packages/pkg/mod.py:12)`` -> ``func (pkg/mod.py)``."""
    match = FRAME_RE.match(frame)
    if not match:
        return frame
    path = match["file"]
    for marker in ("site-packages/", f"{ROOT}/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{match['func']} ({path})"


def load(path: Path):
    stacks: list[tuple[list[str], int]] = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        stacks.append((stack.split(";"), int(count)))
    return stacks


IDLE_LEAVES = (
    "EpollSelector.select",
    "Condition.wait",
    "Event.wait",
    "Thread._wait_for_tstate_lock",
    "_worker (concurrent",
    "SimpleQueue.get",
)
# Who: the first of these found anywhere in a sample's stack says whose work it is.
WHO = (
    # The SQLite writer's thread (the move's transaction: a POSTed move's ``_on_writer``, a
    # socket action's ``_handed``, games/play.py ``from_loop``), then the pusher's (the
    # push's read and renders, in the order of the commits). First: a socket action's job
    # on the writer is a lambda of the consumer's, and is the write path's time all the same.
    ("_on_writer (", "our write path (the SQLite writer thread)"),
    ("_handed (", "our write path (the SQLite writer thread)"),
    ("_on_pusher (", "our push (the pusher thread)"),
    ("MatchConsumer", "our websocket consumer (forwarding, snapshots, presence, move frames)"),
    ("(games/views.py", "our move view"),
    ("(games/", "our other code"),
    ("(benchmarks/baseline.py", "the bare baseline"),
    ("(django/", "Django's request handling (middleware, sessions, CSRF)"),
    ("(whitenoise/", "Django's request handling (middleware, sessions, CSRF)"),
    ("(channels/", "Channels and the channel layer"),
    ("(channels_redis/", "Channels and the channel layer"),
    ("(daphne/", "daphne, Twisted, autobahn and asyncio (the server)"),
)
# What: the innermost frame that says what kind of work it is.
WHAT = (
    ("get_new_connection", "opening and closing DB connections"),
    ("init_connection_state", "opening and closing DB connections"),
    ("sqlite3/_functions.py", "opening and closing DB connections"),
    ("BaseDatabaseWrapper._close", "opening and closing DB connections"),
    ("BaseDatabaseWrapper.close ", "opening and closing DB connections"),
    ("SQLiteCursorWrapper.execute", "running SQL"),
    ("BaseDatabaseWrapper._commit", "running SQL"),
    ("(psycopg/", "running SQL"),
    ("(django/template/", "template rendering"),
    ("(template_partials/", "template rendering"),
    ("(django/db/", "the ORM (building queries, models)"),
    ("(asgiref/", "thread hops (asgiref sync/async)"),
    ("Thread.start", "thread hops (asgiref sync/async)"),
    ("ThreadPoolExecutor", "thread hops (asgiref sync/async)"),
    ("(concurrent/futures", "thread hops (asgiref sync/async)"),
    ("(threading.py", "thread hops (asgiref sync/async)"),
    ("(games/rules/", "the rules"),
)


def categories(stacks) -> tuple[dict[str, float], dict[str, float], int]:
    """Shares of the busy samples by whose work (outermost match) and by kind (innermost)."""
    who: Counter[str] = Counter()
    what: Counter[str] = Counter()
    busy = 0
    for frames, count in stacks:
        names = [short(f) for f in frames[1:]]
        if not names or names[-1].startswith(IDLE_LEAVES):
            continue
        busy += count
        owner = next(
            (label for key, label in WHO if any(key in name for name in names)),
            "daphne, Twisted, autobahn and asyncio (the server)",
        )
        if owner.startswith("daphne") and any("(asgiref/" in n for n in names):
            owner = "Django's request handling (middleware, sessions, CSRF)"
        kind = next(
            (label for name in reversed(names) for key, label in WHAT if key in name), "other"
        )
        who[owner] += count
        what[kind] += count
    busy = busy or 1
    return (
        {k: v / busy for k, v in who.most_common()},
        {k: v / busy for k, v in what.most_common()},
        busy,
    )


def summary(path: Path, top: int = 25, grep: str = "") -> str:
    stacks = load(path)
    total = sum(c for _, c in stacks) or 1
    threads: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    for frames, count in stacks:
        threads[frames[0]] += count
        seen = set()
        for frame in frames[1:]:
            name = short(frame)
            if name not in seen:
                inclusive[name] += count
                seen.add(name)
        self_time[short(frames[-1])] += count
    out = [f"{path.name}: {total} samples"]
    who, what, busy = categories(stacks)
    out.append(f"busy samples: {busy} ({100 * busy / total:.0f}%), by whose work:")
    out += [f"  {100 * share:5.1f}%  {name}" for name, share in who.items()]
    out.append("busy samples by kind of work:")
    out += [f"  {100 * share:5.1f}%  {name}" for name, share in what.items()]
    out.append("threads (top 5):")
    for name, count in threads.most_common(5):
        out.append(f"  {100 * count / total:5.1f}%  {name}")

    def keep(name: str) -> bool:
        return grep in name if grep else True

    out.append(f"inclusive (top {top}):")
    for name, count in [x for x in inclusive.most_common() if keep(x[0])][:top]:
        out.append(f"  {100 * count / total:5.1f}%  {name}")
    out.append(f"self (top {top}):")
    for name, count in [x for x in self_time.most_common() if keep(x[0])][:top]:
        out.append(f"  {100 * count / total:5.1f}%  {name}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--grep", default="")
    args = parser.parse_args(argv)
    for path in args.paths:
        print(summary(path, args.top, args.grep))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
