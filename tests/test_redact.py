"""Where a server runs, without its credentials: :func:`redact_url` and :func:`redact_argv`
(``nb_elicit._core.secrets.names``), and the surfaces that show it (``where()``, a connect error)."""

import sys

import pytest

import nb_elicit
from nb_elicit._core.secrets.masking import MASK
from nb_elicit._core.secrets.names import looks_like_token, redact_argv, redact_url
from nb_elicit._core.types import HttpTarget, StdioTarget

M = MASK


@pytest.mark.parametrize(("url", "shown"), [
    ("https://mcp.example.com/s/8f3kJ2mQ9xLp4R7tZ1vB/mcp", "https://mcp.example.com/s/{M}/mcp"),
    ("https://h.example/mcp?api_key=abc123&mode=fast", "https://h.example/mcp?api_key={M}&mode=fast"),
    ("https://h.example/mcp?access_token=x&key=AIzaSyA-1", "https://h.example/mcp?access_token={M}&key={M}"),
    ("https://user:hunter2@h.example/mcp", "https://{M}@h.example/mcp"),
    ("https://ghp_abcdefghijklmnop1234@h.example/mcp", "https://{M}@h.example/mcp"),
    ("https://h.example/token/abcd/mcp", "https://h.example/token/{M}/mcp"),
    ("https://h.example/mcp#access_token=xyz&state=1", "https://h.example/mcp#access_token={M}&state=1"),
    ("https://h.example/hooks/123e4567-e89b-12d3-a456-426614174000", "https://h.example/hooks/{M}"),
    ("https://h.example/mcp?sig=Zm9vYmFyYmF6cXV4MTIz", "https://h.example/mcp?sig={M}"),
    # no credential: as written
    ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
    ("https://h.example/servers/my-server-v2/sse?mode=fast&page=2",
     "https://h.example/servers/my-server-v2/sse?mode=fast&page=2"),
    ("https://api.example.com/v1/mcp", "https://api.example.com/v1/mcp"),
])
def test_redact_url_masks_tokens_in_the_path_query_and_userinfo(url, shown):
    assert redact_url(url) == shown.format(M=M)


@pytest.mark.parametrize(("argv", "shown"), [
    (["npx", "-y", "@x/server", "--api-key", "sk-live-abcdef123456"],
     ["npx", "-y", "@x/server", "--api-key", M]),
    (["srv", "--token=abc", "--password", "hunter22"], ["srv", f"--token={M}", "--password", M]),
    (["srv", "-token", "abcd"], ["srv", "-token", M]),
    (["env", "OPENAI_API_KEY=sk-proj-xxxxxxxxxxxxxxxx", "python", "s.py"],
     ["env", f"OPENAI_API_KEY={M}", "python", "s.py"]),
    (["srv", "sk-ant-api03-abcdefghijkl"], ["srv", M]),
    (["srv", "--header", "Authorization: Bearer tok123"], ["srv", "--header", f"Authorization: {M}"]),
    (["mcp-remote", "https://h.example/s/8f3kJ2mQ9xLp4R7tZ1vB/mcp?api_key=z"],
     ["mcp-remote", f"https://h.example/s/{M}/mcp?api_key={M}"]),
    (["srv", "--url=https://u:p@h.example/mcp"], ["srv", f"--url=https://{M}@h.example/mcp"]),
    # no credential: as written (paths and hashes of files stay)
    (["python", "/tmp/pytest-of-root/pytest-12/test_detach_list0/server.py", "--port", "8000"],
     ["python", "/tmp/pytest-of-root/pytest-12/test_detach_list0/server.py", "--port", "8000"]),
    (["srv", "--token-file", "/run/secrets/t", "--max-tokens", "100", "a1b2c3d4e5f6a7b8c9d0"],
     ["srv", "--token-file", "/run/secrets/t", "--max-tokens", "100", "a1b2c3d4e5f6a7b8c9d0"]),
    (["srv", "--api-key", "--verbose"], ["srv", "--api-key", "--verbose"]),
])
def test_redact_argv_masks_flag_values_assignments_headers_and_known_keys(argv, shown):
    assert redact_argv(argv) == shown


@pytest.mark.parametrize(("value", "token"), [
    ("sk-live-abcdef123456", True), ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", True),
    ("AKIAIOSFODNN7EXAMPLE", True), ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", True),
    ("8f3kJ2mQ9xLp4R7tZ1vB", True), ("d41d8cd98f00b204e9800998ecf8427e", True),
    ("streamable-http-endpoint", False), ("v2024", False), ("python3.11", False), ("mcp", False),
    ("", False),
])
def test_looks_like_token(value, token):
    assert looks_like_token(value) is token


def test_where_shows_no_credential_of_a_url_or_a_command_line():
    http = HttpTarget("https://u:pw@h.example/s/8f3kJ2mQ9xLp4R7tZ1vB/mcp?api_key=sk-live-zz99")
    assert "pw" not in http.where() and "8f3kJ2" not in http.where()
    assert "sk-live" not in http.where() and "sk-live" not in repr(http)
    stdio = StdioTarget(("npx", "srv", "--api-key", "sk-live-abcdef123456", "--port", "1"))
    assert stdio.where() == f"npx srv --api-key {M} --port 1"
    assert "sk-live" not in repr(stdio)


def test_a_connect_error_does_not_show_a_key_given_on_the_command_line():
    key = "sk-live-9d8c7b6a5f4e3d2c"
    command = [sys.executable, "-c", "import sys; sys.exit(3)", "--api-key", key]
    with pytest.raises(nb_elicit.ConnectError) as failed:
        import asyncio

        asyncio.run(nb_elicit.connect("broken", command))
    assert key not in str(failed.value) and "--api-key" in str(failed.value)


@pytest.mark.parametrize(("url", "shown"), [
    ("https://h.example/s/${input:slug}/mcp?api_key=${env:KEY}",
     "https://h.example/s/${input:slug}/mcp?api_key=${env:KEY}"),
    ("https://h.example/token/${env:T}/mcp", "https://h.example/token/${env:T}/mcp"),
    ("https://h.example/mcp?api_key=abc${env:KEY}", "https://h.example/mcp?api_key={M}${env:KEY}"),
    ("https://h.example/s/8f3kJ2mQ9xLp4R7tZ1vB/mcp", "https://h.example/s/{M}/mcp"),
    ("https://h.example/ghp_abcdefghijkl${env:X}/", "https://h.example/{M}${env:X}/"),
    ("https://${env:USER}@h.example/mcp?key=${K:-AIzaSyA-1}", "https://${env:USER}@h.example/mcp?key=${K:-{M}}"),
    ("https://u:hunter2@h.example/mcp", "https://{M}@h.example/mcp"),
    ("https://h.example/a\tb?mode=fast", "https://h.example/a\tb?mode=fast"),
])
def test_redact_url_as_written_keeps_references_and_masks_literal_credentials(url, shown):
    assert redact_url(url, written=True) == shown.replace("{M}", M)


@pytest.mark.parametrize(("argv", "shown"), [
    (["srv", "--api-key", "${env:KEY}", "--api-key", "sk-live-abcdef123456"],
     ["srv", "--api-key", "${env:KEY}", "--api-key", M]),
    (["srv", "--token=${input:t}", "OPENAI_API_KEY=${env:K}", "Authorization: Bearer ${env:T}"],
     ["srv", "--token=${input:t}", "OPENAI_API_KEY=${env:K}", "Authorization: Bearer ${env:T}"]),
    (["srv", "Authorization: Bearer ghp_abcdefghijklmnop", "--password", "x${env:P}"],
     ["srv", f"Authorization: Bearer {M}", "--password", f"{M}${{env:P}}"]),
    (["srv", "--level", "${LOG_LEVEL:-debug}", "server.py"],
     ["srv", "--level", f"${{LOG_LEVEL:-{M}}}", "server.py"]),
    (["srv", "--url=https://h.example/a\tb?key=abc"], ["srv", f"--url=https://h.example/a\tb?key={M}"]),
])
def test_redact_argv_as_written_keeps_references_and_masks_literal_credentials(argv, shown):
    assert redact_argv(argv, written=True) == shown
