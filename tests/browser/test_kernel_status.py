"""The kernel's status in JupyterLab while a form waits in a running cell (issue: the status bar
said "Idle" while the cell ran, and the toolbar's circle disagreed).

JupyterLab shows the last status the kernel published, whatever its parent; the idle that keeps
keystrokes flowing (docs/kernels.md) must be followed by busy again while the cell runs.
"""

from __future__ import annotations

import pytest

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
