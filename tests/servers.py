"""Server processes for tests and benchmarks: daphne on a free port, stopped reliably.

A daphne started here serves the test database (file SQLite or PostgreSQL), so a
browser sees what the test wrote, and the test sees what the browser did.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def database_url(settings_dict: dict) -> str:
    """A DATABASE_URL for the database Django is connected to (the test database in tests)."""
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    if "postgresql" in engine:
        user = settings_dict.get("USER") or ""
        password = settings_dict.get("PASSWORD") or ""
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = settings_dict.get("PORT") or 5432
        return f"postgres://{auth}{host}:{port}/{settings_dict['NAME']}"
    raise ValueError(f"no DATABASE_URL for engine {engine}")


def stop_process(proc: subprocess.Popen, timeout: float = 5.0) -> None:
    """TERM, wait, then KILL: a daphne stuck on shutdown never hangs a test run."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


class DaphneServer:
    """One daphne process serving bitsite on 127.0.0.1."""

    daphne_args: tuple[str, ...] = ()  # e.g. ("-v", "0"): no access log
    application = "bitsite.asgi:application"

    def __init__(self, env: dict[str, str], port: int | None = None, name: str = "daphne"):
        self.env = env
        self.port = port or free_port()
        self.name = name
        self.proc: subprocess.Popen | None = None
        self.log_path = ARTIFACTS / "logs" / f"{name}-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> DaphneServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child process writes to it)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                *self.daphne_args,
                "-e",
                f"bitsite:port={self.port}:interface=127.0.0.1",
                self.application,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        wait_for_port(self.port, proc=self.proc)
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up (a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()


def server_env(db_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": db_url,
            "DJANGO_DEBUG": "0",
            "DJANGO_SECURE_SSL": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SECRET_KEY": env.get("DJANGO_SECRET_KEY") or "test-only-not-secret",
            "PYTHONUNBUFFERED": "1",
            # No tournaments' scheduler: a shared server lives for the whole run, and its
            # thread would start, pair and end the events other tests make in the same
            # database behind their backs. A test that needs it runs a server of its own
            # with BITSITE_TOURNAMENT_SCHEDULER=1 (tests/browser/test_tournaments.py).
            "BITSITE_TOURNAMENT_SCHEDULER": env.get("BITSITE_TOURNAMENT_SCHEDULER") or "0",
            "BITSITE_TOURNAMENT_SCHEDULE": env.get("BITSITE_TOURNAMENT_SCHEDULE") or "off",
        }
    )
    env.update(extra)
    return env


# nginx in front of daphne, with deploy/nginx.conf as shipped (tests/test_proxy.py, and the
# storms benchmark behind a proxy): on 127.0.0.1, a free port, plain HTTP.
NGINX_CONF = ROOT / "deploy" / "nginx.conf"

NGINX_MAIN = """
daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/bitsite.conf;
}}
"""


def site_config(port: int, upstream: int) -> str:
    """deploy/nginx.conf on 127.0.0.1:``port`` with plain HTTP, and one daphne upstream."""
    text = NGINX_CONF.read_text()
    assert text.count("listen 443 ssl;") == 1
    text = text.replace("listen 443 ssl;", f"listen 127.0.0.1:{port};")
    text, certificates = re.subn(r"^\s*ssl_certificate(_key)?\s.*\n", "", text, flags=re.M)
    assert certificates == 2
    block = re.search(r"upstream bitsite \{[^}]*\}", text).group(0)
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+;\n", block, re.MULTILINE)
    assert servers
    one = block.replace(servers[0], f"    server 127.0.0.1:{upstream};\n", 1)
    for other in servers[1:]:
        one = one.replace(other, "", 1)
    return text.replace(block, one)


def prepared(site: str, prefix: str) -> Path:
    """A temporary prefix holding a main configuration that includes ``site``."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)  # readable by the workers (nginx's own user when run as root)
    (root / "bitsite.conf").write_text(site)
    (root / "nginx.conf").write_text(NGINX_MAIN.format(prefix=root))
    return root


def command(binary: str, root: Path, *extra: str) -> list[str]:
    """nginx with everything under ``root``: the configuration, the pid, the logs."""
    files = ("-c", str(root / "nginx.conf"), "-e", str(root / "error.log"))
    return [binary, *extra, "-p", str(root), *files]


class Nginx:
    def __init__(self, binary: str, upstream: int):
        self.port = free_port()
        self.prefix = prepared(site_config(self.port, upstream), "bitsite-nginx-")
        self.proc = subprocess.Popen(
            command(binary, self.prefix), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        try:
            wait_for_port(self.port, proc=self.proc)
        except RuntimeError:
            raise AssertionError(self.error_log()) from None

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        stop_process(self.proc)
        shutil.rmtree(self.prefix, ignore_errors=True)
