"""MCP servers for tests: the demo server and its journal, the test servers, HTTP start-up,
cached virtualenvs, and ``drive``, which runs a scenario with a scripted person answering forms."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SERVERS = Path(__file__).parent.parent / "servers"
REPO = Path(__file__).parent.parent.parent


def drive(scenario, timeout: float = 180):
    """Run ``scenario(person)`` on a fresh event loop with a scripted person answering forms.
    ``timeout`` is a hang guard: a flood of 200 forms took over 60 s on the niced range run."""
    import nb_elicit

    from .person import Person

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


class Journal:
    """The demo server's journal: every answer it received, one JSON object per line."""

    def __init__(self, path: Path):
        self.path = path

    def entries(self) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "at"} for line in lines]


def demo_command(journal: Journal) -> list[str]:
    """The demo server over stdio, writing its journal."""
    return [sys.executable, "-m", "nb_elicit.demo", "--journal", str(journal.path)]


def stdio_params(command: list[str], **env: str):
    """The SDK's parameters to start ``command`` over stdio, with ``env`` added to this
    process's environment."""
    from mcp import StdioServerParameters

    first, *args = command
    return StdioServerParameters(command=first, args=args,
                                 env={**os.environ, **env} if env else None)


def hostile_command() -> list[str]:
    """The deliberately hostile test server (tests/servers/hostile_server.py) over stdio."""
    return [sys.executable, str(SERVERS / "hostile_server.py")]


def hostile_tasks_command(shape: str, log: Path) -> list[str]:
    """The hostile tasks server (tests/servers/hostile_tasks_server.py) over stdio, in one
    shape of tasks ("extension" or "2025"), logging its tasks/get and tasks/update to ``log``."""
    return [sys.executable, str(SERVERS / "hostile_tasks_server.py"), "--shape", shape,
            "--log", str(log)]


class TasksServer:
    """The hostile tasks server in one shape (:func:`hostile_tasks_command`), and what it
    logged: each ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` it answered."""

    def __init__(self, shape: str, log: Path):
        self.shape, self.log = shape, log
        self.command = hostile_tasks_command(shape, log)

    def lines(self, method: str | None = None) -> list[dict]:
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [line for line in lines if method in (None, line["method"])]

    def polls(self, task_id: str) -> int:
        return len([line for line in self.lines("tasks/get") if line["task"] == task_id])


def sdk2_command() -> list[str]:
    return [sys.executable, str(SERVERS / "sdk2_server.py")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(RuntimeError):
    """Another process listens on the port the server was given (taken between free_port()
    and the server's start: the test streams and their kernels pick ports at the same time)."""


def start_http_server(args: list[str], port: int, log: Path) -> subprocess.Popen:
    """Start the server; return once it (not another process) listens on ``port``."""
    out = open(log, "w")  # noqa: SIM115 - closed with the process by the caller
    process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        owners = _listening(port)
        if any(_descends(owner, process.pid) for owner in owners):
            return process
        if owners:  # (not ours: ours will fail to bind, or has already)
            process.kill()
            process.wait(10)
            raise PortTaken(f"port {port} is taken by another process")
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()}")
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not listen on {port}: {log.read_text()}")


def _listening(port: int) -> set[int]:
    """The processes that listen on TCP ``port`` of this machine (Linux: /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    owners = set()
    if not inodes:
        return owners
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in fd_dir.iterdir()):
                owners.add(int(fd_dir.parent.name))
    return owners


def _descends(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` is ``ancestor`` or one of its children, grandchildren, ..."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # (the field after the state: ppid)
    return False


@contextlib.contextmanager
def served(args: list[str], log: Path, path: str = "/mcp"):
    """A server process listening on 127.0.0.1 (``args`` end with its port option, taken from
    :func:`free_port`, another one if that is taken meanwhile); yields its URL, then stops it."""
    for tries_left in reversed(range(3)):
        port = free_port()
        try:
            process = start_http_server([*args, str(port)], port, log)
            break
        except PortTaken:
            if not tries_left:
                raise
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.kill()
        process.wait(10)


def cached_venv(name: str, *installs: list[str]) -> str:
    """A virtualenv in .cache/NAME, made once: each of ``installs`` is one ``pip install``.

    A lock file (.cache/NAME.lock) makes test runs that share the checkout (the Python range
    runs beside the main one) wait for each other instead of building the same venv at once.
    """
    venv = REPO / ".cache" / name
    python = venv / "bin" / "python"
    marker = venv / "ready"
    wanted = repr(installs)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists() or marker.read_text() != wanted or not python.exists():
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
            for args in installs:
                subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args],
                               check=True, timeout=600)
            marker.write_text(wanted)
    return str(python)


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (http.server logs each request to stderr)."""

    def log_message(self, *args):
        pass


class LocalHttp:
    """An ``http.server`` of ``handler`` on 127.0.0.1 (a free port, ``base``), served on a
    thread while inside ``with``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
