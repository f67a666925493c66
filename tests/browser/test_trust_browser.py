"""The trust card in a real JupyterLab in Chromium: a project's ``.mcp.json`` names a server whose
command writes a marker file when it starts. While the card shows, the marker does not exist;
it appears only after **Start**. The card shows the env key's name, never its value.
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
    expect(card).to_contain_text("mcpServers.seed")
    expect(card).to_contain_text(str(marker))
    expect(card).to_contain_text("SEED_TOKEN")
    assert TOKEN not in card.inner_text()
    lab.page.wait_for_timeout(1500)  # (were anything started, it would have been by now)
    assert not marker.exists()
    lab.screenshot("trust-card", of=card)

    card.locator(".nb-elicit-start").click()
    expect(lab.cell(3)).to_contain_text("Connected 'seed': nb-elicit-demo")
    assert marker.read_text(encoding="utf-8") == "started"
    expect(lab.cell(3)).to_contain_text("seed: trusted .mcp.json (mcpServers.seed)")
    assert lab.cell(3).locator(".nb-elicit-trust-card").count() == 0  # replaced by one line
    assert TOKEN not in lab.cell(3).inner_text()
