"""An older ipykernel (6.x): the non-blocking style works; the blocking style says what it needs.

The kernel runs in its own virtualenv (made once, kept in .cache/) with ipykernel 6.31 and
nb_elicit installed from this checkout.
"""

import hashlib

import pytest
from helpers.frontend import Frontend
from helpers.project import project_table
from helpers.servers import REPO, Journal, cached_venv

pytestmark = [pytest.mark.timeout(900), pytest.mark.once]

#: nb_elicit's own dependencies, as pyproject.toml lists them, but its ipykernel.
RUNTIME_DEPS = [d for d in project_table()["dependencies"] if not d.startswith("ipykernel")]
#: The virtualenv is made again when those change.
VENV = "ipykernel6-venv-" + hashlib.sha256("\n".join(RUNTIME_DEPS).encode()).hexdigest()[:10]


@pytest.fixture(scope="module")
def old_python() -> str:
    return cached_venv(VENV, ["ipykernel==6.31.0", *RUNTIME_DEPS],
                       ["--no-deps", "-e", str(REPO)])


@pytest.fixture
def fe(old_python):
    with Frontend.start(python=old_python) as frontend:
        reply, outputs = frontend.run("import ipykernel; print(ipykernel.__version__)", 60)
        assert "".join(o.get("text", "") for o in outputs).strip() == "6.31.0"
        yield frontend


def test_the_non_blocking_style_works_on_ipykernel_6(fe, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    reply, _ = fe.run("%load_ext nb_elicit", 60)
    assert reply["status"] == "ok"
    reply, outputs = fe.run(f"import sys\n%mcp connect demo -- {{sys.executable}} -m "
                            f"nb_elicit.demo --journal {journal.path}", 60)
    assert reply["status"] == "ok", outputs
    reply, _ = fe.run("%mcp call demo contact_info", 60)  # returns at once on this kernel
    assert reply["status"] == "ok"
    fe.wait_for(lambda: fe.find("nb-elicit-form"), 30, "the form")  # made after its fields
    fe.type_text(fe.find("nb-elicit-field-name")[-1], "Ada Lovelace")
    fe.type_text(fe.find("nb-elicit-field-email")[-1], "ada@example.com")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(fe.find("nb-elicit-submit")[-1])
    fe.wait_for(lambda: journal.entries(), 30, "the server's journal")
    assert [(e["action"], e["content"]) for e in journal.entries()] == [
        ("accept", {"name": "Ada Lovelace", "email": "ada@example.com"})]


def test_the_blocking_style_fails_with_one_line_naming_the_version(fe):
    reply, outputs = fe.run("import sys, nb_elicit\nconn = await nb_elicit.connect('demo', "
                            "[sys.executable, '-m', 'nb_elicit.demo'])\n"
                            "await conn.call_tool('hello')", 60)
    assert reply["status"] == "error"
    assert reply["ename"] == "BlockingNotSupported"
    assert "needs ipykernel >= 7.4 (this kernel has 6.31)" in reply["evalue"]
    assert "conn.start_tool" in reply["evalue"] and "\n" not in reply["evalue"]
