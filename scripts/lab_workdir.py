"""Make the folder that ``scripts/lab.sh`` opens JupyterLab in: copies of the example notebooks,
so that running the demos (outputs, autosave, edits) never changes the checkout.

    python scripts/lab_workdir.py DIR           # copy notebooks/*.ipynb into DIR/notebooks/
    python scripts/lab_workdir.py DIR --fresh   # replace copies that are already there

``DIR`` gets ``notebooks/`` (the copies, with the files they read: the server config
``notebooks/.vscode/mcp.json`` of configs.ipynb, in :data:`READ_BY_NOTEBOOKS`) and ``docs`` (a
link to the repository's docs, which the notebooks link to as ``../docs/...``), so paths are the
same as on Binder:
``lab/tree/notebooks/quickstart.ipynb``. A copy is made once and then left alone: what you
change in it stays. A copy older than its notebook in the checkout is named, and ``--fresh``
replaces it.

Each copy gets this Python's version in ``language_info``, as the kernel reports it (the
kernel is this Python: lab.sh runs the venv's JupyterLab and its ``python3`` kernel), so
JupyterLab has nothing to change when it opens the notebook and does not mark it modified.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks"
#: The files in notebooks/ that the notebooks read, copied with them (paths in notebooks/).
READ_BY_NOTEBOOKS = (".vscode/mcp.json",)


def python_version() -> str:
    """The version ipykernel reports in ``language_info`` (``sys.version``'s first word)."""
    return sys.version.split()[0]


def stamped(text: str, version: str) -> str:
    """The notebook ``text`` with ``version`` as its ``language_info.version``, written as
    JupyterLab writes it (one-space indent, keys sorted, a final newline)."""
    notebook = json.loads(text)
    notebook.setdefault("metadata", {}).setdefault("language_info", {})["version"] = version
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def make(target: Path, fresh: bool = False, version: str | None = None) -> list[str]:
    """Fill ``target`` (see the module's help); returns the lines to print."""
    version = version or python_version()
    notebooks = target / "notebooks"
    notebooks.mkdir(parents=True, exist_ok=True)
    docs = target / "docs"
    if not docs.exists() and not docs.is_symlink():
        docs.symlink_to(os.path.relpath(REPO / "docs", target), target_is_directory=True)
    said, stale = [], []
    for source in sorted(SOURCE.glob("*.ipynb")):
        copy = notebooks / source.name
        if copy.exists() and not fresh:
            if source.stat().st_mtime > copy.stat().st_mtime:
                stale.append(source.name)
            continue
        copy.write_text(stamped(source.read_text(encoding="utf-8"), version), encoding="utf-8")
        said.append(f"copied notebooks/{source.name} to {copy}")
    for name in READ_BY_NOTEBOOKS:
        source, copy = SOURCE / name, notebooks / name
        if copy.exists() and not fresh:
            if source.stat().st_mtime > copy.stat().st_mtime:
                stale.append(name)
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(source.read_bytes())
        said.append(f"copied notebooks/{name} to {copy}")
    if stale:
        said.append(f"older than the checkout's notebooks (run with --fresh to replace them, "
                    f"losing what you changed in them): {', '.join(stale)}")
    return said


def main(argv: list[str]) -> int:
    paths = [arg for arg in argv if not arg.startswith("--")]
    if len(paths) != 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    for line in make(Path(paths[0]), fresh="--fresh" in argv):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
