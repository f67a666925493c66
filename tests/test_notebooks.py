from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def run(name: str) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return nb


def outputs(nb, cell_index: int) -> list:
    return nb.cells[cell_index].get("outputs", [])


@pytest.mark.timeout(180)
def test_the_form_gallery_runs_top_to_bottom_and_shows_forms():
    nb = run("form-gallery.ipynb")
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    for i in code:
        assert not [o for o in outputs(nb, i) if o.output_type == "error"], i
    forms = [i for i in code if any(WIDGET_VIEW in o.get("data", {}) for o in outputs(nb, i))]
    assert len(forms) == 5
    refused = "".join(o.get("text", "") for o in outputs(nb, code[-1]))
    assert "properties.address: nested objects are not supported" in refused
    assert "properties.age.minimum" in refused


def test_notebooks_are_saved_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name
