"""The kernel's status in JupyterLab while a form waits in a running cell (issue: the status bar
said "Idle" while the cell ran, and the toolbar's circle disagreed).

JupyterLab shows the last status the kernel published, whatever its parent; the idle that keeps
keystrokes flowing (docs/kernels.md) must be followed by busy again while the cell runs.
"""

from __future__ import annotations

import secrets

import nbformat
import pytest
from helpers.lab import REPO

from .conftest import TIMEOUT
from .test_browser import ADA, CONTACT_MESSAGE, SUBSHELLS, expect, fill_contact, submit

pytestmark = pytest.mark.once


def kernel_status(nb) -> str:
    """What the status bar says of the kernel: "Busy", "Idle", ..."""
    return nb.page.locator("#jp-main-statusbar").inner_text().split("|")[-1].split()[0]


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_the_status_bar_reads_busy_while_a_form_waits_and_every_keystroke_arrives(lab):
    lab.open("result = await nb_elicit.connections['demo'].call_tool('contact_info')\n"
             "print(result.text)")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    fill_contact(form)  # one key at a time: each keystroke is a widget message
    lab.settle()  # ... and each one got its idle, or the next would not have been sent
    lab.page.wait_for_timeout(300)  # (a late idle would show by now)
    while_waiting = kernel_status(lab), lab.page.locator(
        ".jp-Notebook-ExecutionIndicator").get_attribute("data-status")
    lab.screenshot("typed-while-the-cell-waits")
    submit(lab, form, 2)
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    lab.wait_done(2)
    expect(lab.page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=TIMEOUT)
    assert while_waiting == ("Busy", "busy")


def status_while(nb, cell: int) -> tuple[str, str]:
    """The status bar's word and the toolbar circle's state, once the page's widget messages
    were answered, with cell ``cell`` still running."""
    nb.settle()  # (each widget message the page sent got its idle)
    expect(nb.cell(cell).locator(".jp-InputArea-prompt")).to_have_text("[*]:")
    return kernel_status(nb), nb.page.locator(
        ".jp-Notebook-ExecutionIndicator").get_attribute("data-status")


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_the_status_bar_reads_busy_while_a_task_card_waits_in_its_cell(lab):
    lab.open('%mcp call demo research {"topic": "python", "ambiguous": true}')
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-task-card")
    card.wait_for(timeout=TIMEOUT)
    form = card.locator(".nb-elicit-task-forms .nb-elicit-form")
    form.wait_for(timeout=TIMEOUT)
    before = status_while(lab, 2)
    form.locator(".nb-elicit-field-interpretation select").select_option(index=2)
    answering = status_while(lab, 2)
    lab.screenshot("task-card-waits")
    form.get_by_role("button", name="Submit").click()
    lab.wait_done(2)
    expect(lab.page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=TIMEOUT)
    assert (before, answering) == (("Busy", "busy"), ("Busy", "busy"))


#: Cell 1 of the free kernel: the hook's call on the kernel's own loop (an agent's ``await``).
FREE = "print(await call_here('contact_info'))"
CALL_HERE = '''

async def call_here(tool):
    """The same call, on the kernel's own event loop."""
    server = stdio_client(
        StdioServerParameters(command=sys.executable, args={args!r}, cwd={cwd!r}),
        errlog=open({log!r}, "a"))
    async with Client(server, elicitation_callback=nb_elicit.elicitation_callback) as client:
        return (await client.call_tool(tool)).content[0].text
'''


def open_hook(nb, held: bool) -> None:
    """A notebook whose cell 1 calls the demo's contact_info with the SDK's Client and
    nb_elicit's hook: on a thread the cell joins (held) or on the kernel's loop (free)."""
    from .test_held_kernel_browser import DEFINE, HELD

    values = {"args": ["-m", "nb_elicit.demo", "--journal", str(nb.journal_path)],
              "cwd": str(REPO), "log": str(nb.artifacts / "demo-server.log")}
    define = DEFINE.format(**values) + CALL_HERE.format(**values)
    call = HELD.format(tool="contact_info") if held else FREE
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in (define, call, "1+1")]
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                       "display_name": "Python 3 (ipykernel)"}
    nbformat.write(notebook, nb.server.root / nb.name)
    workspace = f"{nb.stem.replace('.', '-')}-{secrets.token_hex(4)}"
    nb.page.goto(nb.server.url(f"/lab/workspaces/{workspace}/tree/{nb.name}"))
    nb.page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=TIMEOUT)
    nb.wait_kernel_ready()
    nb.run(0)


@pytest.mark.parametrize("held", [True, False], ids=["held", "free"])
@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_the_status_bar_reads_busy_while_a_hooks_form_waits(lab, held):
    open_hook(lab, held)
    lab.run(1, wait=False)
    form = lab.cell(1).locator(".nb-elicit-form:not(.nb-elicit-locked)")
    form.wait_for(timeout=TIMEOUT)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    shown = status_while(lab, 1)
    fill_contact(form)  # one key at a time: each keystroke is a widget message
    typed = status_while(lab, 1)
    lab.screenshot("a-hooks-form-waits")
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    lab.wait_done(1)
    expect(lab.page.locator("#jp-main-statusbar")).to_contain_text("| Idle", timeout=TIMEOUT)
    assert (shown, typed) == (("Busy", "busy"), ("Busy", "busy"))
