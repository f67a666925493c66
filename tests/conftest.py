"""Fixtures shared by the test modules. Helpers that tests call live in ``tests/helpers``."""

import os
import sys

import pytest
from helpers.servers import SERVERS, Journal, cached_venv, demo_command, served
from helpers.tiers import TIERS, tier

os.environ.setdefault("PYTHONUNBUFFERED", "1")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "blocking_kernel: waits in a cell, so it needs ipykernel >= 7.4 (Python >= 3.11)")
    config.addinivalue_line(
        "markers", "once: independent of the Python version; the version matrix leaves it out")
    for name, what in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {what}")


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(getattr(pytest.mark, tier(item)))
    if sys.version_info >= (3, 11):
        return
    skip = pytest.mark.skip(reason="ipykernel 7.4, which serves a cell that waits, needs "
                                   "Python >= 3.11")
    for item in items:
        if "blocking_kernel" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def fresh_kernel_state():
    """Each test starts with a kernel state of its own (the connections, history, policies,
    waiting forms, tasks... of nb_elicit._runtime.state), which is closed after it. Only the
    pure model's slot is touched here: a pure test loads no widgets."""
    from nb_elicit._core import kernel

    before = kernel.install(None)
    if before is not None:
        before.close()
    yield
    after = kernel.install(None)
    if after is not None:
        after.close()


@pytest.fixture
def ip():
    """IPython's test shell with nb_elicit loaded (unloaded after the test)."""
    from IPython.testing import globalipapp

    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "nb_elicit")
    yield shell
    shell.run_line_magic("unload_ext", "nb_elicit")


@pytest.fixture
def contact_schema() -> dict:
    """The seed's structured request: name and email required, age >= 18."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "你的全名"},
            "email": {"type": "string", "format": "email", "description": "你的电子邮件地址"},
            "age": {"type": "number", "minimum": 18, "description": "你的年龄"},
        },
        "required": ["name", "email"],
    }


@pytest.fixture
def journal(tmp_path) -> Journal:
    """A fresh journal file for the demo server."""
    return Journal(tmp_path / "journal.jsonl")


@pytest.fixture
def http_demo(tmp_path, journal):
    """The demo server over streamable HTTP on 127.0.0.1; yields its URL."""
    with served([*demo_command(journal), "--http"], tmp_path / "http-demo.log") as url:
        yield url


@pytest.fixture
def sse_demo(tmp_path, journal):
    """The demo server over the older HTTP+SSE transport; yields its URL."""
    with served([*demo_command(journal), "--sse"], tmp_path / "sse-demo.log", "/sse") as url:
        yield url


@pytest.fixture
def demo_with_sign_in(tmp_path):
    """The demo server behind its local authorization server (``--auth``); yields its URL."""
    with served([sys.executable, "-m", "nb_elicit.demo", "--auth", "--http"],
                tmp_path / "demo-auth.log") as url:
        yield url


@pytest.fixture
def http_sdk2(tmp_path):
    with served([sys.executable, str(SERVERS / "sdk2_server.py"), "http"],
                tmp_path / "http-sdk2.log") as url:
        yield url


@pytest.fixture
def http_hostile(tmp_path):
    """The hostile test server over streamable HTTP on 127.0.0.1; yields its URL."""
    with served([sys.executable, str(SERVERS / "hostile_server.py"), "http"],
                tmp_path / "http-hostile.log") as url:
        yield url


@pytest.fixture(scope="session")
def sdk1_python() -> str:
    """A Python with the MCP SDK 1.x installed."""
    return cached_venv("sdk1-venv", ["mcp>=1.20,<2"])


@pytest.fixture
def views(monkeypatch):
    """Every CallView a call displays, in order (nothing is really displayed)."""
    from nb_elicit._ui.call_view import CallView

    shown = []
    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display",
                        lambda view, **kw: shown.append(view) if isinstance(view, CallView)
                        else None)
    return shown
