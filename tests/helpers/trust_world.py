"""A temporary world for trust tests: HOME, the user-config locations and the Jupyter data
directory in a temporary folder, a repository to work in, and servers that say when they start.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path


def make_world(tmp_path: Path, monkeypatch):
    """home/ with a repository home/repo (holding .git); the kernel's cwd is home/repo/nb.
    Returns a function that writes a JSON file under home/ (``.home``, ``.data``: the folders)."""
    home = tmp_path / "home"
    notebook = home / "repo" / "nb"
    notebook.mkdir(parents=True)
    (home / "repo" / ".git").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NB_ELICIT_TRUST", raising=False)
    monkeypatch.chdir(notebook)

    def write(relative: str, document: dict) -> Path:
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document), encoding="utf-8")
        return path

    write.home, write.data = home, tmp_path / "data"
    return write


def attach(monkeypatch) -> None:
    """As if a widget frontend were attached (the card is shown, not displayed for real)."""
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)


def marker_config(marker: Path) -> dict:
    """A project .mcp.json whose server writes ``marker`` when it starts, then serves the demo."""
    code = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('started'); "
            "from nb_elicit.demo.__main__ import main; main([])")
    return {"mcpServers": {"seed": {"command": "${env:NB_ELICIT_PYTHON}",
                                    "args": ["-c", code, str(marker)],
                                    "env": {"SEED_TOKEN": "${env:SEED_TOKEN}"}}}}


def widget_html(widget) -> str:
    """Every value and description of ``widget`` and its children, as one text."""
    out = [str(getattr(widget, "value", ""))]
    out += [widget_html(child) for child in getattr(widget, "children", ())]
    out += [str(getattr(widget, "description", ""))]
    return "".join(out)


def card_says(card) -> str:
    """What a trust card's widgets show, as text: each fact row as ``label: value``, then all
    of its text."""
    shown_html = widget_html(card)
    rows = re.findall(r'<span class="nb-elicit-label"[^>]*>(.*?)</span><span[^>]*>(.*?)</span>',
                      shown_html, re.DOTALL)
    return "\n".join(html.unescape(f"{label}: {value}") for label, value in rows) + "\n" + (
        html.unescape(re.sub(r"<[^>]+>", " ", shown_html)))


async def wait_for_card(person, connecting):
    """The trust card once it shows (the connect must not have ended first)."""
    from nb_elicit._ui.trust_card import TrustCard

    card = await person.wait_for_form(1, unless=connecting)
    assert isinstance(card, TrustCard)
    return card
