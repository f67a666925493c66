"""The tests' own HTTP server helper: a port another process took meanwhile is told apart
from the server's own, and served() starts the server on another port."""

from __future__ import annotations

import socket
import sys
import urllib.request

import pytest
from helpers import servers

pytestmark = pytest.mark.timeout(60)


def test_a_port_another_process_took_is_not_mistaken_for_the_server(tmp_path, monkeypatch):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        free = servers.free_port
        given = iter([taken])
        monkeypatch.setattr(servers, "free_port", lambda: next(given, None) or free())
        args = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1"]
        with pytest.raises(servers.PortTaken):
            servers.start_http_server([*args, str(taken)], taken, tmp_path / "first.log")
        given = iter([taken])
        with servers.served(args, tmp_path / "server.log", path="/") as url:
            assert f":{taken}/" not in url
            with urllib.request.urlopen(url, timeout=10) as reply:
                assert reply.status == 200
