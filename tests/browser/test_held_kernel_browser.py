"""A form in a cell whose kernel thread is held, in a real JupyterLab and Notebook 7 in Chromium.

The notebook is what a person writes around a synchronous framework: its first cell defines a
function that runs the SDK's ``Client`` with ``nb_elicit.elicitation_callback`` on a thread of
its own (its own event loop, the demo server over stdio), and its second cell starts that thread
and ``join()``s it, so the kernel's main thread is held until the call ends. The form must still
show in that cell and take every keystroke (nb_elicit answers on a subshell of its own, see
docs/kernels.md); a person types into it in Chromium, and the demo server's journal shows what
arrived. No ``%load_ext``: a framework's user imports nb_elicit and passes its hook.
"""

from __future__ import annotations

import secrets

import nbformat
import pytest
from helpers.lab import REPO, TIMEOUT

pytestmark = [pytest.mark.once, pytest.mark.blocking_kernel]

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

SUBSHELLS = ["perCommTarget", "disabled"]
CONTACT_MESSAGE = "Please provide your contact information"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}
#: Milliseconds between two keys: a person typing briskly (about 100 words a minute)...
PERSON = 120
#: ... and as fast as keys come (a fast typist's burst, a barcode scanner).
FAST = 3

#: What a cell printed.
STDOUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]'

#: Cell 0: the function the held cell runs on a thread of its own.
DEFINE = '''import asyncio, sys, threading
import nb_elicit
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

def call_on_a_thread(tool, results):
    """Call a tool of the demo server with the SDK's Client, in this thread's own event loop."""
    async def call():
        server = stdio_client(
            StdioServerParameters(command=sys.executable, args={args!r}, cwd={cwd!r}),
            errlog=open({log!r}, "a"))
        async with Client(server, elicitation_callback=nb_elicit.elicitation_callback) as client:
            return (await client.call_tool(tool)).content[0].text
    try:
        results.append(asyncio.run(call()))
    except BaseException as error:
        results.append(error)
'''

#: Cell 1: the kernel's thread waits in join() until the call on the thread has ended.
HELD = '''results = []
thread = threading.Thread(target=call_on_a_thread, args=({tool!r}, results))
thread.start()
thread.join()
print(results[0])
'''


def open_held(nb, tool: str) -> None:
    """Write and open the notebook (define, held call of ``tool``, ``1+1``), wait for its
    kernel, run the first cell."""
    define = DEFINE.format(args=["-m", "nb_elicit.demo", "--journal", str(nb.journal_path)],
                           cwd=str(REPO), log=str(nb.artifacts / "demo-server.log"))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source)
                      for source in (define, HELD.format(tool=tool), "1+1")]
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                       "display_name": "Python 3 (ipykernel)"}
    nbformat.write(notebook, nb.server.root / nb.name)
    if nb.server.app == "lab":
        workspace = f"{nb.stem.replace('.', '-')}-{secrets.token_hex(4)}"
        nb.page.goto(nb.server.url(f"/lab/workspaces/{workspace}/tree/{nb.name}"))
    else:
        nb.page.goto(nb.server.url(f"/notebooks/{nb.name}"))
    nb.page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=TIMEOUT)
    nb.wait_kernel_ready()
    nb.run(0)


def held_form(nb, message: str):
    """Run the held cell; its form, once shown, with the cell still running."""
    nb.run(1, wait=False)
    expect(nb.cell(1).locator(".jp-InputArea-prompt")).to_have_text("[*]:")
    form = nb.cell(1).locator(".nb-elicit-form:not(.nb-elicit-locked)")
    form.wait_for(timeout=TIMEOUT)
    expect(form).to_contain_text(message)
    expect(nb.cell(1).locator(".jp-InputArea-prompt")).to_have_text("[*]:")  # still held
    return form


def field(form, name: str):
    return form.locator(f".nb-elicit-field-{name} input")


def printed(nb, *texts: str) -> None:
    """The held cell ended and printed ``texts`` (the tool's result)."""
    nb.wait_done(1)
    output = nb.cell(1).locator(STDOUT)
    for text in texts:
        expect(output).to_contain_text(text, timeout=TIMEOUT)


def every_message_answered(nb) -> None:
    """Each widget message the page sent got its idle (or its widget was closed): none of the
    form's fields stopped sending (the lost-keystrokes trap); and the page sent them the way
    JupyterLab's ``commsOverSubshells`` says."""
    nb.settle()
    subshells = {subshell for _, subshell in nb.wire.sent}
    if nb.server.app == "lab" and nb.server.subshells == "disabled":
        assert subshells == {None}, subshells
    elif nb.server.app == "lab":
        assert subshells - {None}, "no widget message was sent on a subshell"


def the_kernel_is_free(nb) -> None:
    nb.run(2)
    expect(nb.cell(2).locator(".jp-OutputArea-output")).to_have_text("2", timeout=TIMEOUT)


def a_person_fills_the_contact_form(nb) -> None:
    open_held(nb, "contact_info")
    form = held_form(nb, CONTACT_MESSAGE)
    expect(field(form, "name")).to_be_focused()  # nobody clicked into the form
    nb.page.keyboard.type("Ada Lovelace", delay=PERSON)
    nb.page.keyboard.press("Tab")
    expect(field(form, "email")).to_be_focused()
    nb.page.keyboard.type("ada@example.com", delay=PERSON)
    nb.page.keyboard.press("Tab")
    expect(field(form, "age")).to_be_focused()
    nb.page.keyboard.type("36", delay=PERSON)
    nb.screenshot("typed-while-the-kernel-is-held")
    form.locator(".nb-elicit-submit").click()  # at once: a person does not wait for the kernel
    assert nb.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    printed(nb, '"name": "Ada Lovelace"', '"email": "ada@example.com"', '"age": 36')
    every_message_answered(nb)
    the_kernel_is_free(nb)


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_a_person_types_into_a_held_cells_form_in_jupyterlab(lab):
    a_person_fills_the_contact_form(lab)


def test_a_person_types_into_a_held_cells_form_in_notebook_7(notebook7):
    a_person_fills_the_contact_form(notebook7)


#: What is typed fast, one value each time the held cell runs: the race below is lost or won
#: by milliseconds, so it is run more than once.
USERNAMES = ["ada-lovelace-1815", "augusta-ada-king", "countess-of-lovelace"]


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_keys_typed_fast_then_enter_all_reach_the_server(lab):
    """Keys a few milliseconds apart, then Enter at once. JupyterLab sends a field's next
    change only once the kernel took the one before, and the Enter at once: what it still held
    back must reach the server too (before 3375e16 "ad" of "ada-lovelace-1815" did)."""
    open_held(lab, "github_username")
    for count, name in enumerate(USERNAMES, start=1):
        held_form(lab, "Please provide your GitHub username")
        lab.page.keyboard.type(name, delay=FAST)  # (the first field has the focus)
        lab.page.keyboard.press("Enter")
        assert lab.wait_journal(count)[-1] == {
            "tool": "github_username", "message": "Please provide your GitHub username",
            "action": "accept", "content": {"name": name}}
        printed(lab, f"Hello, @{name}!")
    every_message_answered(lab)
    the_kernel_is_free(lab)
