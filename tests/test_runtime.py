"""The private hooks of bitsite/runtime/: their switches, their canaries, and the served
process's start-up.

Each canary checks that the pinned library still has exactly what its hook relies on,
and says which hook to look at when it no longer does (after an upgrade of Django,
daphne, Channels or autobahn). The hooks' effects are tested where they show: the one-hop
handler in test_handler.py, the clean-up scan in test_layers.py, deflate on the wire in
browser/test_weight.py.
"""

from __future__ import annotations

import ast
import functools
import gc
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bitsite import runtime
from tests.layout import RUNTIME, served_packages

ROOT = Path(__file__).resolve().parent.parent
PRIVATE_OF = ("django", "daphne", "channels", "channels_redis", "asgiref", "autobahn", "twisted")


def canary(hook: str, condition: bool, what: str) -> None:
    assert condition, (
        f"The {hook} hook (bitsite/runtime/) relies on {what}, which the installed version "
        f"no longer has: update the hook, or turn it off with BITSITE_HOOKS."
    )


# ---- the switch ----------------------------------------------------------------------


def test_the_switch_names_the_hooks_on():
    assert runtime.parse(None) == runtime.parse("all") == frozenset(runtime.HOOKS)
    assert runtime.parse("none") == runtime.parse("off") == frozenset()
    assert runtime.parse(" deflate, tuning ") == {"deflate", "tuning"}
    with pytest.raises(ValueError, match="no hook gzip"):
        runtime.parse("deflate,gzip")


def test_a_bad_switch_stops_the_start_with_its_reason():
    env = {**os.environ, "BITSITE_HOOKS": "turbo"}
    code = "import django; django.setup()"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "BITSITE_HOOKS names no hook turbo" in done.stderr


# ---- the canaries --------------------------------------------------------------------


def test_canary_sync_chain():
    from django.core.handlers.asgi import ASGIHandler
    from django.core.handlers.base import BaseHandler

    canary(
        "sync_chain",
        "is_async" in inspect.signature(BaseHandler.load_middleware).parameters,
        "BaseHandler.load_middleware(is_async=...)",
    )
    canary(
        "sync_chain",
        inspect.iscoroutinefunction(getattr(ASGIHandler, "get_response_async", None)),
        "ASGIHandler.get_response_async, a coroutine the handler awaits for each request",
    )
    canary(
        "sync_chain",
        "self.get_response_async(" in inspect.getsource(ASGIHandler),
        "ASGIHandler's request handling awaiting self.get_response_async",
    )
    call = inspect.getsource(ASGIHandler.__call__)  # what SyncChainASGIHandler.__call__ keeps
    canary(
        "sync_chain",
        "ThreadSensitiveContext()" in call
        and "await self.handle(scope, receive, send)" in call
        and call.count("await ") == 1,
        "ASGIHandler.__call__: only the HTTP check, ThreadSensitiveContext and self.handle",
    )
    handler = BaseHandler()
    handler.load_middleware(is_async=False)
    canary(
        "sync_chain",
        not inspect.iscoroutinefunction(handler._middleware_chain),
        "a middleware chain built for the sync mode when is_async=False",
    )


def test_canary_deflate():
    import daphne.server
    import daphne.ws_protocol
    from autobahn.websocket.compress import PerMessageDeflateOffer, PerMessageDeflateOfferAccept
    from autobahn.websocket.protocol import WebSocketServerFactory

    canary(
        "deflate",
        issubclass(daphne.server.WebSocketFactory, daphne.ws_protocol.WebSocketFactory),
        "daphne.server.WebSocketFactory, the factory class daphne's server instantiates",
    )
    canary(
        "deflate",
        "WebSocketFactory(" in inspect.getsource(daphne.server.Server),
        "daphne's Server building its factory from the module's WebSocketFactory name",
    )
    canary(
        "deflate",
        "perMessageCompressionAccept"
        in inspect.signature(WebSocketServerFactory.setProtocolOptions).parameters,
        "autobahn's setProtocolOptions(perMessageCompressionAccept=...)",
    )
    accept = inspect.signature(PerMessageDeflateOfferAccept).parameters
    canary(
        "deflate",
        {"request_max_window_bits", "window_bits", "mem_level"} <= set(accept),
        "PerMessageDeflateOfferAccept(request_max_window_bits=, window_bits=, mem_level=)",
    )
    offer = PerMessageDeflateOffer(accept_max_window_bits=True, request_max_window_bits=10)
    canary(
        "deflate",
        offer.accept_max_window_bits and offer.request_max_window_bits == 10,
        "PerMessageDeflateOffer's accept_max_window_bits and request_max_window_bits",
    )


def test_canary_layer_cleanup():
    from channels.layers import InMemoryChannelLayer

    canary(
        "layer_cleanup",
        callable(getattr(InMemoryChannelLayer, "_clean_expired", None)),
        "InMemoryChannelLayer._clean_expired",
    )
    for method in ("receive", "group_send"):
        source = inspect.getsource(getattr(InMemoryChannelLayer, method))
        canary(
            "layer_cleanup",
            "self._clean_expired()" in source,
            f"InMemoryChannelLayer.{method} running the clean-up scan each time",
        )


def test_canary_redis_batch():
    from channels_redis.core import ChannelLock, RedisChannelLayer

    layer = RedisChannelLayer(hosts=["redis://127.0.0.1:1"])  # never connected
    for name in ("receive_single", "connection", "consistent_hash", "deserialize"):
        canary("redis_batch", callable(getattr(layer, name, None)), f"RedisChannelLayer.{name}")
    canary("redis_batch", isinstance(layer.prefix, str), "RedisChannelLayer.prefix")
    canary(
        "redis_batch",
        isinstance(layer.receive_clean_locks, ChannelLock)
        and callable(getattr(ChannelLock, "acquire", None))
        and callable(getattr(ChannelLock, "release", None)),
        "RedisChannelLayer.receive_clean_locks (a ChannelLock: acquire, release)",
    )
    canary(
        "redis_batch",
        hasattr(layer.receive_buffer["specific.x!y"], "put_nowait"),
        "RedisChannelLayer.receive_buffer (a queue per channel)",
    )
    source = inspect.getsource(RedisChannelLayer.receive)
    canary(
        "redis_batch",
        "await self.receive_single(" in source
        and "isinstance(message_channel, list)" in source
        and "for chan in message_channel:" in source,
        "RedisChannelLayer.receive buffering what receive_single hands it, for each of a "
        "list of channels",
    )
    canary(
        "redis_batch",
        '"__asgi_channel__"' in inspect.getsource(RedisChannelLayer.receive_single),
        "a queued message naming its channels in __asgi_channel__",
    )


def test_canary_dispatch():
    import channels.consumer
    from channels.consumer import AsyncConsumer

    canary(
        "dispatch",
        callable(getattr(channels.consumer, "get_handler_name", None)),
        "channels.consumer.get_handler_name",
    )
    canary(
        "dispatch",
        channels.consumer.get_handler_name({"type": "tournament.changed"}) == "tournament_changed",
        "get_handler_name turning a message's type into its handler's name",
    )
    source = inspect.getsource(AsyncConsumer.dispatch)
    canary(
        "dispatch",
        "get_handler_name(message)" in source and "await handler(message)" in source,
        "AsyncConsumer.dispatch finding the handler by get_handler_name and awaiting it",
    )


def test_the_sockets_take_the_hook_that_is_on(settings):
    from channels.generic.websocket import AsyncWebsocketConsumer

    from bitsite.runtime.dispatch import ForwardingWebsocketConsumer

    settings.RUNTIME_HOOKS = frozenset({"dispatch"})
    assert runtime.websocket_consumer() is ForwardingWebsocketConsumer
    settings.RUNTIME_HOOKS = frozenset()
    assert runtime.websocket_consumer() is AsyncWebsocketConsumer


# ---- the served process ----------------------------------------------------------------

SERVED = """
import gc, json, sys
{daphne}
import bitsite.asgi
from bitsite import runtime
import daphne.server
print(json.dumps({{
    "threshold": gc.get_threshold()[0],
    "switch": sys.getswitchinterval(),
    "frozen": gc.get_freeze_count(),
    "factory": daphne.server.WebSocketFactory.__name__,
    "handler": type(bitsite.asgi.django_asgi_app).__name__,
}}))
"""


def served(hooks: str, *, by_daphne: bool) -> dict:
    code = SERVED.format(daphne="import daphne.cli" if by_daphne else "")
    env = {**os.environ, "BITSITE_HOOKS": hooks}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_served_process_applies_the_server_hooks_that_are_on():
    from bitsite.runtime import tuning

    on = served("all", by_daphne=True)
    assert on["threshold"] == tuning.GC_GEN0
    assert on["switch"] == pytest.approx(tuning.SWITCH_INTERVAL)
    assert on["frozen"] > 0
    assert on["factory"] == "DeflateWebSocketFactory"
    assert on["handler"] == "SyncChainASGIHandler"
    off = served("none", by_daphne=True)
    assert off["threshold"] == 700 and off["switch"] == pytest.approx(0.005)
    assert off["frozen"] == 0
    assert off["factory"] == "WebSocketFactory"
    assert off["handler"] == "ASGIHandler"
    some = served("deflate", by_daphne=True)
    assert some["factory"] == "DeflateWebSocketFactory" and some["threshold"] == 700


def test_importing_the_application_elsewhere_tunes_nothing():
    """Not served by daphne (a test, a management command): the interpreter is left as it
    is, whatever the switch says."""
    elsewhere = served("all", by_daphne=False)
    assert elsewhere["threshold"] == 700 and elsewhere["frozen"] == 0
    assert elsewhere["factory"] == "WebSocketFactory"
    import bitsite.asgi  # noqa: F401  (this test session too)

    assert gc.get_threshold()[0] == 700 and gc.get_freeze_count() == 0
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_tuning_compiles_every_template_of_the_site():
    from django.conf import settings

    from bitsite.runtime import tuning

    ours = list(Path(settings.BASE_DIR, "templates").rglob("*.html"))
    ours += list(Path(settings.BASE_DIR).glob("*/templates/**/*.html"))
    assert ours and tuning.compile_templates() >= len(ours)


# ---- one home for private names ----------------------------------------------------------


def _library(module_name: str) -> bool:
    return module_name.split(".")[0] in PRIVATE_OF


def _private_uses(path: Path) -> list[str]:
    """The underscore names of the libraries this module uses: imported from them, read
    from a name that came from them, or (in a class built on one of theirs) a private
    method overridden or a private attribute of theirs read through ``self``."""
    import importlib

    tree = ast.parse(path.read_text())
    names = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _library(node.module or ""):
            for alias in node.names:
                names.add(alias.asname or alias.name)
                if alias.name.startswith("_"):
                    found.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            names.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if _library(alias.name)
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in names:
                found.append(ast.unparse(node))
    module = importlib.import_module(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    )
    for cls in vars(module).values():
        if not inspect.isclass(cls) or cls.__module__ != module.__name__:
            continue
        theirs = [base for base in cls.__mro__[1:] if _library(base.__module__)]
        if not theirs:
            continue
        source = "\n".join(_source(base) for base in theirs)
        own = inspect.getsource(cls)
        # What the class's own body defines (a metaclass, an enum's, adds private names of
        # its own that no one wrote).
        for name in _defined_in(own):
            if _private(name) and any(name in vars(base) for base in theirs):
                found.append(f"{cls.__name__}.{name} overrides a private method")
        for attr in set(_self_attributes(own)):
            if f"self.{attr}" in source:
                found.append(f"{cls.__name__} uses self.{attr}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_meta"


@functools.cache
def _source(cls) -> str:
    """A library class's source, read once: the project's classes share a few bases (a
    model's, a consumer's), and inspect parses the base's whole module at every call."""
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        return ""


def _defined_in(source: str) -> list[str]:
    import textwrap

    (cls,) = ast.parse(textwrap.dedent(source)).body
    names = []
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [target.id for target in targets if isinstance(target, ast.Name)]
    return names


def _self_attributes(source: str) -> list[str]:
    import textwrap

    tree = ast.parse(textwrap.dedent(source))
    return [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and _private(node.attr)
    ]


def test_private_names_of_the_libraries_are_used_only_in_bitsite_runtime():
    # The project's own package and every app of the project, from the app registry
    # (tests/layout.py).
    apps = served_packages()
    assert {"games", "tournaments", "people", "chat", "api"} <= set(apps), apps
    runtime_folder = RUNTIME
    outside = {}
    for app in apps:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts or runtime_folder in path.parents:
                continue
            uses = _private_uses(path)
            if uses:
                outside[str(path.relative_to(ROOT))] = uses
    assert outside == {}
    inside = {path.name: _private_uses(path) for path in runtime_folder.glob("*.py")}
    # The checker sees them where they are.
    assert any("_clean_expired" in use for use in inside["layers.py"]), inside


# ---- the hooks-off run covers every hook ----------------------------------------------------


def _marked(module: str, marker: str) -> bool:
    """Whether a test module carries ``pytest.mark.<marker>`` at its top (its pytestmark)."""
    tree = ast.parse((ROOT / module).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return f"pytest.mark.{marker}" in ast.unparse(node.value)
    return False


def test_every_hook_is_run_off_by_tests_that_reach_it():
    """tests/hooks.py names, for each hook, the tests that run what it touches; CI runs them
    again with every hook off. A new hook must be added there, with tests of the kind that
    reach it: real pages against a daphne for every hook (each acts in the served process),
    and tests on Redis for a hook of the Redis layer."""
    from tests.hooks import COVERAGE

    assert set(COVERAGE) == set(runtime.HOOKS), (
        "tests/hooks.py must name the tests of each hook of bitsite/runtime/ "
        f"(missing: {sorted(set(runtime.HOOKS) - set(COVERAGE))})"
    )
    for hook, modules in COVERAGE.items():
        assert modules, hook
        for module in modules:
            assert (ROOT / module).is_file(), f"{hook}: no test module {module}"
        assert any(_marked(m, "browser") for m in modules), (
            f"{hook}: no browser test (pages against a daphne) runs it with the hooks off"
        )
        if hook in runtime.REDIS_ONLY:
            assert any(_marked(m, "services") for m in modules), (
                f"{hook} acts only on Redis: a test marked services must run it"
            )


def test_the_marker_and_ci_run_the_hooks_tests_with_the_hooks_off(request):
    """The ``hooks`` marker is on the tests tests/hooks.py names (this test is one of them),
    and .ci/run runs those with every hook off, on the embedded default and on the services."""
    assert request.node.get_closest_marker("hooks") is not None
    assert _marked("tests/browser/test_live_matches.py", "browser")
    assert not _marked("tests/test_views.py", "browser")
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'BITSITE_HOOKS=none make test ARGS="-m hooks"' in ci
    assert "on_services env BITSITE_HOOKS=none make test ARGS=\"-m 'hooks and services'\"" in ci
