"""The trust card in a real JupyterLab in Chromium: a project's ``.mcp.json`` names a server whose
command writes a marker file when it starts. While the card shows, the marker does not exist;
it appears only after **Start**. The card shows the env key with its reference as written, never
its value. A project's ``.mcp.json`` that links to a trusted repository's file asks again before
it runs its own folder's ``server.py``.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

TOKEN = "ghp_browserTokenValue-31"


def test_the_trust_card_shows_before_anything_starts(lab, tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    marker = tmp_path / "started.txt"
    code = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('started'); "
            "from nb_elicit.demo.__main__ import main; main([])")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"seed": {
        "command": "${env:NB_ELICIT_PYTHON}", "args": ["-c", code, str(marker)],
        "env": {"SEED_TOKEN": "${env:SEED_TOKEN}"}}}}), encoding="utf-8")
    lab.open(f"import os\nos.environ['SEED_TOKEN'] = {TOKEN!r}\nos.chdir({str(project)!r})",
             "%mcp connect seed")
    lab.run(2)
    lab.run(3, wait=False)
    card = lab.cell(3).locator(".nb-elicit-trust-card")
    card.wait_for()
    expect(card).to_contain_text("Start a server from a project file?")
    expect(card).not_to_contain_text("mcpServers.seed")  # (where it comes from, in words)
    expect(card).to_contain_text("${env:NB_ELICIT_PYTHON} -c")  # (as written, under the
    expect(card).not_to_contain_text("✕")  # command as it runs; one way to close each)
    expect(card).to_contain_text(str(marker))
    expect(card).to_contain_text("SEED_TOKEN=${env:SEED_TOKEN}")
    assert TOKEN not in card.inner_text()
    lab.page.wait_for_timeout(1500)  # (were anything started, it would have been by now)
    assert not marker.exists()
    lab.screenshot("trust-card", of=card)

    card.locator(".nb-elicit-start").click()
    expect(lab.cell(3)).to_contain_text("Connected 'seed': nb-elicit-demo")
    assert marker.read_text(encoding="utf-8") == "started"
    expect(lab.cell(3)).to_contain_text("seed: trusted .mcp.json; asked again if it changes.")
    assert lab.cell(3).locator(".nb-elicit-trust-card").count() == 0  # replaced by one line
    assert TOKEN not in lab.cell(3).inner_text()


SERVER = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text({name!r}); "
          "from nb_elicit.demo.__main__ import main; main([])\n")


def test_a_linked_project_file_asks_before_it_runs_its_own_folders_code(lab, tmp_path):
    """The person trusts ``tools`` in trusted-repo (``python server.py``); evil-repo's
    ``.mcp.json`` is a link to that file, and evil-repo has a server.py of its own. Connecting
    ``tools`` from evil-repo shows the card again, and nothing runs before Start."""
    trusted, evil, marker = tmp_path / "trusted-repo", tmp_path / "evil-repo", tmp_path / "m"
    for repo in (trusted, evil):
        (repo / ".git").mkdir(parents=True)
        (repo / "server.py").write_text(SERVER.format(name=repo.name), encoding="utf-8")
    (trusted / ".mcp.json").write_text(json.dumps({"mcpServers": {"tools": {
        "command": "${env:NB_ELICIT_PYTHON}", "args": ["server.py", str(marker)]}}}),
        encoding="utf-8")
    (evil / ".mcp.json").symlink_to("../trusted-repo/.mcp.json")
    lab.open(f"import os, pathlib\nos.environ['JUPYTER_DATA_DIR'] = {str(tmp_path / 'data')!r}\n"
             f"os.chdir({str(trusted)!r})",
             "%mcp connect tools",
             f"%mcp disconnect tools\npathlib.Path({str(marker)!r}).unlink()\n"
             f"os.chdir({str(evil)!r})",
             "%mcp connect tools")
    lab.run(2)
    lab.run(3, wait=False)
    lab.cell(3).locator(".nb-elicit-trust-card .nb-elicit-start").click()
    expect(lab.cell(3)).to_contain_text("Connected 'tools'")
    assert marker.read_text(encoding="utf-8") == "trusted-repo"
    lab.run(4)
    assert not marker.exists()

    lab.run(5, wait=False)
    card = lab.cell(5).locator(".nb-elicit-trust-card")
    card.wait_for()
    expect(card).to_contain_text(f"runs in{evil}")
    expect(card).to_contain_text(str(trusted / ".mcp.json"))
    lab.page.wait_for_timeout(1500)  # (were anything started, it would have been by now)
    assert not marker.exists()
    lab.screenshot("trust-card-link", of=card)
    card.locator(".nb-elicit-start").click()
    expect(lab.cell(5)).to_contain_text("Connected 'tools'")
    assert marker.read_text(encoding="utf-8") == "evil-repo"
