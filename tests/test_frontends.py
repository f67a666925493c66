"""Knowing that a person can see a form, in every widget manager (docs/frontends.md).

A kernel learns it from ipywidgets' control channel, a notebook server's session, a frontend known
by what it sets (VS Code's local kernel, Voilà, Colab), or a displayed view counted by the
frontend; executors that show no widgets (nbclient, papermill) still get a bounded wait and a
one-line cancel. Voilà, which applies no display update, keeps an ended view in place.
"""

from __future__ import annotations

import asyncio
import sys
import time
import types

import pytest
from helpers.frontend import Frontend
from helpers.servers import Journal

from nb_elicit._core.errors import BlockingNotSupported
from nb_elicit._core.types import ToolResult
from nb_elicit._runtime import kernel_compat
from nb_elicit._runtime.backlog import Backlog, Turn
from nb_elicit._runtime.kernel_compat import Frontend as Known
from nb_elicit._ui.call_view import CallView

CELL_TIMEOUT = 60
JS = "application/javascript"


# -- which frontend, in a kernel of our making -------------------------------------------------


class Kernel:
    def __init__(self, namespace: dict | None = None):
        self.shell = types.SimpleNamespace(user_ns=namespace or {})


@pytest.fixture
def kernel(monkeypatch):
    """A kernel with nothing that tells a frontend: no session, no control channel."""
    made = Kernel()
    monkeypatch.setattr(kernel_compat, "_kernel", lambda: made)
    for name in ("JPY_SESSION_NAME", "VOILA_KERNEL_ID", "COLAB_RELEASE_TAG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    import ipywidgets

    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", None, raising=False)
    return made


def test_a_kernel_no_frontend_tells_of_has_no_person(kernel):
    assert kernel_compat.frontend() is None
    assert not kernel_compat.widget_frontend_attached()
    assert kernel_compat.shows_display_updates()


def test_vs_code_s_local_kernel_is_known_by_the_file_name_its_start_up_code_sets(kernel):
    kernel.shell.user_ns["__vsc_ipynb_file__"] = "/home/ada/analysis.ipynb"
    assert kernel_compat.frontend() is Known.VSCODE
    assert kernel_compat.widget_frontend_attached()
    assert kernel_compat.shows_display_updates()


def test_voila_is_known_by_its_kernel_id_and_applies_no_display_update(kernel, monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "3f0c")
    assert kernel_compat.frontend() is Known.VOILA
    assert kernel_compat.widget_frontend_attached()
    assert not kernel_compat.shows_display_updates()
    with pytest.raises(BlockingNotSupported, match=r"Voilà.*start_tool"):
        kernel_compat.check_blocking_supported()


def test_voila_s_refusal_is_also_printed_since_voila_hides_a_cell_s_error(kernel, monkeypatch,
                                                                        capsys):
    monkeypatch.setenv("VOILA_KERNEL_ID", "3f0c")
    with pytest.raises(BlockingNotSupported) as refused:
        kernel_compat.check_blocking_supported()
    assert capsys.readouterr() == (f"BlockingNotSupported: {refused.value}\n", "")
    assert "\n" not in str(refused.value)
    with pytest.raises(BlockingNotSupported):  # (%mcp call, which then does not block)
        kernel_compat.check_blocking_supported(tell=False)
    assert capsys.readouterr() == ("", "")


def test_colab_is_known_and_load_ext_enables_its_widget_manager(kernel, monkeypatch):
    enabled = []
    output = types.SimpleNamespace(enable_custom_widget_manager=lambda: enabled.append(1))
    colab = types.ModuleType("google.colab")
    colab.output = output
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    assert kernel_compat.frontend() is Known.COLAB
    assert kernel_compat.widget_frontend_attached()
    kernel_compat.enable_frontend()
    assert enabled == [1]


def test_enabling_is_for_colab_only_and_a_changed_colab_is_no_failure(kernel, monkeypatch):
    kernel_compat.enable_frontend()  # (nothing to enable, nothing imported)
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab_20261201")
    kernel_compat.enable_frontend()  # google.colab has no output module here: left as it is


def test_a_counted_view_tells_that_a_person_sees_widgets(kernel):
    import ipywidgets

    form = ipywidgets.VBox()
    kernel_compat.count_views(form)
    assert form._view_count == 0
    assert not kernel_compat.widget_frontend_attached()
    form._view_count = 1  # (what the frontend sends once it displayed a view)
    assert kernel_compat.widget_frontend_attached()


def test_a_server_s_session_still_tells(kernel, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "analysis.ipynb")
    assert kernel_compat.widget_frontend_attached()


# -- the wait for a turn looks again ------------------------------------------------------------


class View:
    def show_backlog(self, server, count, cancel_all):
        return None


def test_a_waiting_request_waits_on_once_a_person_is_seen_when_its_bounded_wait_ends():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        looked = []

        def seen() -> bool:
            looked.append(1)
            return True

        waiting = asyncio.ensure_future(backlog.turn(View(), timeout=0.05, seen=seen))
        await asyncio.sleep(0.3)  # (well past the bounded wait)
        assert not waiting.done() and looked == [1]
        backlog.done()
        return await waiting

    assert asyncio.run(asyncio.wait_for(scenario(), 10)) is Turn.SHOWN


def test_a_waiting_request_nobody_is_seen_for_still_ends_after_the_bounded_wait():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        return await backlog.turn(View(), timeout=0.05, seen=lambda: False), backlog.waiting

    assert asyncio.run(asyncio.wait_for(scenario(), 10)) == (Turn.TIMED_OUT, 0)


# -- a view kept in place (Voilà) ---------------------------------------------------------------


class Handle:
    def __init__(self):
        self.bundles: list[dict] = []

    def update(self, obj) -> None:
        self.bundles.append(obj._repr_mimebundle_())


def test_a_view_in_place_ends_with_its_result_shown_in_it_and_is_never_replaced():
    async def scenario():
        view = CallView("demo", "contact_info", show_waiting=False)
        view.in_place = True
        view.display_handle = Handle()
        assert not view.can_freeze()  # (so the result is drawn in the live view)
        view.show_result(ToolResult([{"type": "text", "text": "Hello, Ada"}]),
                         render=not view.can_freeze())
        assert view.freeze()
        await asyncio.sleep(0.05)
        return view

    view = asyncio.run(scenario())
    assert view.display_handle.bundles == []  # no transcript in its place: it would vanish
    assert view.comm is not None  # its models stay open: the page still shows them
    assert "Hello, Ada" in repr(view.children)


def test_a_view_in_place_brings_its_keyboard_script_at_once(monkeypatch):
    # (Voilà draws only what a cell displayed while it ran: a start_tool form comes later)
    shown = []
    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display",
                        lambda obj, **kw: shown.append(obj) or Handle())
    CallView("demo", "contact_info", show_waiting=False).show(keyboard=True)
    assert [type(obj).__name__ for obj in shown] == ["CallView"]  # (the script: with a form)
    shown.clear()
    view = CallView("demo", "contact_info", show_waiting=False)
    view.show(keyboard=True, in_place=True)
    assert [type(obj).__name__ for obj in shown] == ["CallView", "Javascript"]
    assert view.css_class in shown[1].data


# -- real kernels, driven by the scripted frontend ----------------------------------------------


def connect_demo(fe, journal: Journal) -> None:
    reply, outputs = fe.run("%load_ext nb_elicit\nimport sys\n"
                            f"%mcp connect demo -- {{sys.executable}} -m nb_elicit.demo "
                            f"--journal {journal.path}", timeout=CELL_TIMEOUT)
    assert reply["status"] == "ok", outputs


def answers(journal: Journal) -> list:
    return [(e["action"], e["content"]) for e in journal.entries() if "action" in e]


def answer_name(fe) -> None:
    (name,) = fe.wait_for(lambda: fe.find("nb-elicit-field-name"), 20, "the form")[-1:]
    fe.type_text(name, "Ada")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(fe.find("nb-elicit-submit")[-1])


@pytest.mark.timeout(180)
@pytest.mark.blocking_kernel
def test_a_form_that_a_frontend_displays_is_not_cancelled_for_want_of_a_frontend(tmp_path):
    """No session, no control channel, no known frontend: the frontend counts the form's view,
    and the form waits for its person past the no-frontend wait."""
    journal = Journal(tmp_path / "journal.jsonl")
    env = {"JPY_SESSION_NAME": "", "NB_ELICIT_HEADLESS_WAIT": "1"}
    with Frontend.start(env=env) as fe:
        connect_demo(fe, journal)
        cell = fe.execute("%mcp call demo github_username")
        fe.wait_for(lambda: fe.find("nb-elicit-field-name"), 20, "the form")
        fe.pump_for(3)  # (three times the no-frontend wait)
        assert answers(journal) == []
        answer_name(fe)
        assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok"
        fe.wait_for(lambda: answers(journal), 30, "the answer")
    assert answers(journal) == [("accept", {"name": "Ada"})]


@pytest.mark.timeout(180)
@pytest.mark.blocking_kernel
def test_vs_code_s_local_kernel_gets_the_keyboard_script_and_its_form_waits(tmp_path):
    """VS Code starts its local kernel with no session, its widget manager opens no control
    channel, and its start-up code sets __vsc_ipynb_file__ (this frontend counts no view, so
    the name alone must tell)."""
    journal = Journal(tmp_path / "journal.jsonl")
    env = {"JPY_SESSION_NAME": "", "NB_ELICIT_HEADLESS_WAIT": "1"}
    with Frontend.start(env=env, renders=False) as fe:
        fe.run("__vsc_ipynb_file__ = '/home/ada/analysis.ipynb'", timeout=CELL_TIMEOUT)
        connect_demo(fe, journal)
        cell = fe.execute("%mcp call demo github_username")
        fe.wait_for(lambda: fe.find("nb-elicit-field-name"), 20, "the form")
        fe.pump_for(3)
        assert answers(journal) == []
        assert any(JS in o.get("data", {}) for o in fe.outputs(cell))  # the keyboard script
        answer_name(fe)
        assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok"
        fe.wait_for(lambda: answers(journal), 30, "the answer")
    assert answers(journal) == [("accept", {"name": "Ada"})]


@pytest.mark.timeout(180)
@pytest.mark.blocking_kernel
def test_voila_refuses_a_blocking_call_in_one_line_and_keeps_a_started_call_s_view(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    env = {"JPY_SESSION_NAME": "", "VOILA_KERNEL_ID": "3f0c", "NB_ELICIT_HEADLESS_WAIT": "1"}
    with Frontend.start(env=env, renders=False) as fe:
        connect_demo(fe, journal)
        started = time.monotonic()
        reply, outputs = fe.run("import nb_elicit\nconn = nb_elicit.connections['demo']\n"
                                "await conn.call_tool('github_username')", timeout=CELL_TIMEOUT)
        assert time.monotonic() - started < CELL_TIMEOUT
        (error,) = [o for o in outputs if o["output_type"] == "error"]
        assert reply["status"] == "error" and error["ename"] == "BlockingNotSupported"
        assert "Voilà" in error["evalue"] and "start_tool" in error["evalue"]
        cell = fe.execute("call = conn.start_tool('github_username')")
        fe.wait_for(lambda: fe.find("nb-elicit-field-name"), 20, "the form")
        fe.pump_for(3)  # (past the no-frontend wait: Voilà shows forms)
        answer_name(fe)
        fe.wait_for(lambda: answers(journal), 30, "the answer")
        fe.run("await call", timeout=CELL_TIMEOUT)
        fe.pump_for(1)
        updates = [o for o in fe.outputs(cell) if o["output_type"] == "update_display_data"]
        # An app's frame never starts in Voilà: the clock's result shows as text, and no frame
        # (nor a line that says one is shown) is made.
        reply, _ = fe.run("clock = await conn.start_tool('clock')", timeout=CELL_TIMEOUT)
        fe.run("print((await clock).text)", timeout=CELL_TIMEOUT)
        frames = fe.find_by(_model_name="AnyModel")
    assert answers(journal) == [("accept", {"name": "Ada"})]
    assert updates == []  # the view was not replaced: Voilà would show nothing in its place
    assert frames == []
