import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SPEC_EXAMPLES = sorted((FIXTURES / "spec_examples").glob("*.json"))
REJECTED = json.loads((FIXTURES / "rejected_schemas.json").read_text(encoding="utf-8"))


def load_example(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


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


# -- MCP servers and a scripted person, for tests of the runtime ------------------------------

import asyncio  # noqa: E402
import json as _json  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

SERVERS = Path(__file__).parent / "servers"
REPO = Path(__file__).parent.parent


def drive(scenario, timeout: float = 60):
    """Run ``scenario(person)`` on a fresh event loop with a scripted person answering forms."""
    from person import Person

    import nb_elicit

    async def main():
        person = Person()
        robot = asyncio.create_task(person.run())
        try:
            return await asyncio.wait_for(scenario(person), timeout)
        finally:
            robot.cancel()
            for connection in list(nb_elicit.connections.values()):
                await connection.close()

    return asyncio.run(main())


class Record:
    """The demo server's record of every answer it received (one JSON object per line)."""

    def __init__(self, path: Path):
        self.path = path

    def entries(self) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [{k: v for k, v in _json.loads(line).items() if k != "at"} for line in lines]


@pytest.fixture
def record(tmp_path) -> Record:
    return Record(tmp_path / "record.jsonl")


def demo_command(record: Record) -> list[str]:
    return [sys.executable, "-m", "nb_elicit.demo", "--record", str(record.path)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http_server(args: list[str], port: int, log: Path) -> subprocess.Popen:
    out = open(log, "w")  # noqa: SIM115 - closed with the process by the caller
    process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not listen on {port}: {log.read_text()}")


@pytest.fixture
def http_demo(tmp_path, record):
    """The demo server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    process = start_http_server([*demo_command(record), "--http", str(port)], port,
                                tmp_path / "http-demo.log")
    yield f"http://127.0.0.1:{port}/mcp"
    process.kill()
    process.wait(10)


@pytest.fixture
def http_sdk2(tmp_path):
    port = free_port()
    process = start_http_server([sys.executable, str(SERVERS / "sdk2_server.py"), "http",
                                 str(port)], port, tmp_path / "http-sdk2.log")
    yield f"http://127.0.0.1:{port}/mcp"
    process.kill()
    process.wait(10)


def cached_venv(name: str, *installs: list[str]) -> str:
    """A virtualenv in .cache/NAME, made once: each of ``installs`` is one ``pip install``."""
    venv = REPO / ".cache" / name
    python = venv / "bin" / "python"
    marker = venv / "ready"
    wanted = repr(installs)
    if not marker.exists() or marker.read_text() != wanted:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        for args in installs:
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args],
                           check=True, timeout=600)
        marker.write_text(wanted)
    return str(python)


@pytest.fixture(scope="session")
def sdk1_python() -> str:
    """A Python with the MCP SDK 1.x installed."""
    return cached_venv("sdk1-venv", ["mcp>=1.20,<2"])


def hostile_command() -> list[str]:
    """The deliberately hostile test server (tests/servers/hostile_server.py) over stdio."""
    return [sys.executable, str(SERVERS / "hostile_server.py")]


@pytest.fixture
def views(monkeypatch):
    """Every CallView a call displays, in order (nothing is really displayed)."""
    from nb_elicit._ui.call_view import CallView

    shown = []
    monkeypatch.setattr("nb_elicit._ui.call_view.display",
                        lambda view, **kw: shown.append(view) if isinstance(view, CallView)
                        else None)
    return shown


def sdk2_command() -> list[str]:
    return [sys.executable, str(SERVERS / "sdk2_server.py")]


os.environ.setdefault("PYTHONUNBUFFERED", "1")
