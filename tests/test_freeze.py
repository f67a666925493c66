"""A finished call's view: the transcript takes its place at once, and its widget models are
closed a few per turn of the event loop, every one of them in the end."""

from __future__ import annotations

import asyncio
import contextvars
import re

import ipywidgets as widgets
import pytest

from nb_elicit._core.outcome import AnsweredBy
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._core.types import ToolResult
from nb_elicit._ui import cell_outputs, closing, draw_soon
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.closing import close_soon, tree_models
from nb_elicit._ui.form import ElicitationForm

pytestmark = pytest.mark.timeout(60)

CLICK = {"type": "object", "properties": {"ok": {"type": "boolean", "title": "OK"}}}
RESULT = ToolResult([{"type": "text", "text": f"answer {i}"} for i in range(20)])


class Handle:
    """A display handle that keeps every bundle its output was updated to."""

    def __init__(self):
        self.bundles: list[dict] = []

    def update(self, obj) -> None:
        self.bundles.append(obj._repr_mimebundle_())


def answered_view(forms: int, render: bool = True) -> tuple[CallView, list[ElicitationForm]]:
    view = CallView("bench", "ask_many", show_waiting=False)
    view.display_handle = Handle()
    made = []
    for i in range(forms):
        form = ElicitationForm(f"Question {i}", CLICK, server="bench")
        view.add_form(form)
        assert form.submit()
        view.notice(f"bench asked: Question {i} Submitted.", "info")
        made.append(form)
    view.show_result(RESULT, render=render)
    return view, made


def is_open(model: widgets.Widget) -> bool:
    return model.comm is not None  # (Widget.close() drops the comm and the model's registration)


def test_a_frozen_view_closes_a_few_models_per_turn_and_in_the_end_all_of_them(monkeypatch):
    monkeypatch.setattr(closing, "CLOSE_BUDGET", 0.0)  # one model per turn,
    monkeypatch.setattr(closing, "CLOSE_PAUSE", 0.0)  # in every turn

    async def scenario():
        view, forms = answered_view(12)
        models = tree_models(view)
        expected = transcript_bundle(view.transcript())
        already = sum(not is_open(m) for m in models)
        assert view.can_freeze() and view.freeze()
        # The transcript took the view's place at once, as it was before the freeze.
        assert view.display_handle.bundles == [expected]
        first = sum(not is_open(m) for m in models) - already
        turns = 0
        while any(is_open(m) for m in models):
            await asyncio.sleep(0)
            turns += 1
            assert turns < 10_000, "the view's models were never all closed"
        return view, forms, models, first, turns

    view, forms, models, first, turns = asyncio.run(scenario())
    assert len(models) > 100  # (so that the closing takes several turns)
    assert first == 1
    assert turns == len(models) - 1
    # Every model of every form (controls, buttons, layouts, styles) was closed.
    for form in forms:
        assert not any(is_open(m) for m in tree_models(form))
    assert not is_open(view) and not is_open(view.status.layout)


def test_a_frozen_view_is_walked_as_it_closes_not_all_at_once_first(monkeypatch):
    """The turn that freezes a flood's view reads no more of its tree than it closes."""
    monkeypatch.setattr(closing, "CLOSE_BUDGET", 0.0)  # one model per turn
    monkeypatch.setattr(closing, "CLOSE_PAUSE", 0.0)
    looked_at = []
    shared = closing.is_shared
    monkeypatch.setattr(closing, "is_shared", lambda m: looked_at.append(m) or shared(m))

    async def scenario():
        view, _ = answered_view(12)
        models = tree_models(view)
        looked_at.clear()
        close_soon(view)
        first = len(looked_at)
        while any(is_open(m) for m in models):
            await asyncio.sleep(0)
        return models, first

    models, first = asyncio.run(scenario())
    assert len(models) > 100
    assert first < 10  # (a walk over the whole view first: every one of its models)
    assert len(looked_at) >= len(models)


def test_a_model_that_fails_to_close_stops_no_other(monkeypatch):
    monkeypatch.setattr(closing, "CLOSE_BUDGET", 0.0)
    monkeypatch.setattr(closing, "CLOSE_PAUSE", 0.0)
    failures = []

    async def scenario():
        asyncio.get_running_loop().set_exception_handler(
            lambda _loop, context: failures.append(context["exception"]))
        view, _forms = answered_view(2)
        view.waiting_line.ticker.stop()
        models = tree_models(view)
        broken = models[len(models) // 2]

        def fail():
            raise RuntimeError("the comm is gone")

        monkeypatch.setattr(broken, "close", fail)
        close_soon(view)
        for _ in range(len(models) + 5):
            await asyncio.sleep(0)
        return [m for m in models if is_open(m)], broken

    still_open, broken = asyncio.run(scenario())
    assert still_open == [broken]
    assert [str(e) for e in failures] == ["the comm is gone"]
    # (closed for real: left open, it would point at closed models in every later test that
    # reads the live widgets' state)
    monkeypatch.undo()
    broken.close()


def test_with_the_pause_between_batches_every_model_is_closed_too(monkeypatch):
    monkeypatch.setattr(closing, "CLOSE_BUDGET", 0.0)  # (one model per batch)

    async def scenario():
        view, _forms = answered_view(2)
        view.waiting_line.ticker.stop()
        models = tree_models(view)
        close_soon(view)
        first = sum(not is_open(m) for m in models)
        await asyncio.sleep(0)  # (a turn of the loop closes nothing: the pause is not over)
        second = sum(not is_open(m) for m in models)
        for _ in range(6000):  # (30 s at most)
            if not any(is_open(m) for m in models):
                break
            await asyncio.sleep(0.005)
        return first, second, [m for m in models if is_open(m)]

    first, second, still_open = asyncio.run(scenario())
    assert first == second == 1 and still_open == []


def view_made_on_a_loop_now_gone(forms: int) -> CallView:
    async def made():
        view, _forms = answered_view(forms)
        view.waiting_line.ticker.stop()
        return view

    return asyncio.run(made())


def test_close_soon_without_a_running_loop_closes_everything_at_once():
    view = view_made_on_a_loop_now_gone(3)
    models = tree_models(view)
    assert len(models) > 100
    close_soon(view)
    assert not any(is_open(m) for m in models)


def test_close_soon_without_a_running_loop_closes_the_rest_after_a_failed_close(monkeypatch):
    view = view_made_on_a_loop_now_gone(1)
    models = tree_models(view)
    broken = models[len(models) // 2]

    def fail():
        raise RuntimeError("the comm is gone")

    monkeypatch.setattr(broken, "close", fail)
    with pytest.raises(RuntimeError, match="the comm is gone"):
        close_soon(view)
    assert [m for m in models if is_open(m)] == [broken]


def test_close_soon_without_a_running_loop_tries_every_close_when_all_of_them_fail(monkeypatch):
    view = view_made_on_a_loop_now_gone(70)  # (more models than Python's recursion limit)
    models = tree_models(view)
    tried = []
    for number, model in enumerate(models):
        monkeypatch.setattr(model, "close", lambda n=number: tried.append(n) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        close_soon(view)
    assert len(models) > 1000 and tried == list(range(len(models)))


def test_tree_models_lists_each_shared_layout_once_and_the_widget_last():
    a, b = widgets.HTML(), widgets.HTML()
    shared = widgets.Layout()
    a.layout = b.layout = shared
    box = widgets.VBox([a, b])
    models = tree_models(box)
    assert models[-1] is box
    assert models.count(shared) == 1
    assert {id(m) for m in models} == {id(m) for m in (a, b, shared, a.style, b.style, box,
                                                        box.layout)}


def test_a_result_kept_for_the_transcript_alone_makes_no_widgets_and_reads_the_same():
    async def scenario():
        shown, _ = answered_view(2, render=True)
        kept, _ = answered_view(2, render=False)
        return shown, kept

    shown, kept = asyncio.run(scenario())
    assert kept.result.children == () and len(shown.result.children) == 1
    assert transcript_bundle(kept.transcript()) == transcript_bundle(shown.transcript())
    assert kept.lines == shown.lines


def test_a_view_with_a_request_still_open_cannot_freeze_and_so_shows_its_result():
    async def scenario():
        view = CallView("bench", "ask", show_waiting=False)
        unshown = not view.can_freeze()  # (not displayed: nothing to put the transcript in)
        view.display_handle = Handle()
        form = ElicitationForm("Still open", CLICK, server="bench")
        view.add_form(form)
        blocked = not view.can_freeze() and not view.freeze()
        form.decline()
        return unshown, blocked, view.can_freeze()

    unshown, blocked, after = asyncio.run(scenario())
    assert unshown and blocked and after


# -- counts that change in bursts are drawn once ------------------------------------------------

def test_a_burst_of_count_changes_is_drawn_once_and_the_text_is_right_at_once(monkeypatch):
    monkeypatch.setattr(draw_soon, "DRAW_EVERY", 0.05)
    from nb_elicit._runtime.guard import Guard

    async def scenario():
        view = CallView("bench", "ask_many", show_waiting=False)
        guard = Guard()
        for count in range(1, 101):  # a hundred requests wait, a hundred more are cancelled
            view.show_backlog("bench", count, lambda: None)
            guard.count_notice(AnsweredBy.BACKLOG_FULL, view, lambda n: f"cancelled {n} requests")
        line, (notice,) = view.backlog.widget.children[0], view.asked
        values = {"line": [], "notice": []}
        line.observe(lambda change: values["line"].append(change["new"]), "value")
        notice.observe(lambda change: values["notice"].append(change["new"]), "value")
        said = (view.backlog.text, list(view.lines), view.transcript().items)
        await asyncio.sleep(0.2)
        return view, values, said

    view, values, (backlog, lines, items) = asyncio.run(scenario())
    # What the view says changed at once ...
    assert backlog == "100 more requests from bench are waiting."
    assert lines == ["cancelled 100 requests"]
    assert [item.text for item in items] == ["cancelled 100 requests"]
    # ... and each widget was drawn once, with the last count.
    assert len(values["line"]) == 1 and "100 more requests" in values["line"][0]
    assert len(values["notice"]) == 1 and "cancelled 100 requests" in values["notice"][0]


def test_a_view_frozen_before_its_counts_were_drawn_draws_them_first(monkeypatch):
    monkeypatch.setattr(draw_soon, "DRAW_EVERY", 60.0)  # (never, within the test)
    from nb_elicit._runtime.guard import Guard

    async def scenario():
        view = CallView("bench", "ask_many", show_waiting=False)
        view.display_handle = Handle()
        guard = Guard()
        for _ in range(3):
            guard.count_notice(AnsweredBy.BACKLOG_FULL, view, lambda n: f"cancelled {n} requests")
        (notice,) = view.asked
        before = notice.value
        view.freeze()
        return before, notice.value, view.display_handle.bundles

    before, after, bundles = asyncio.run(scenario())
    assert "cancelled 1 request" in before
    assert "cancelled 3 requests" in after
    assert "cancelled 3 requests" in bundles[-1]["text/plain"]


# -- apps ------------------------------------------------------------------------------------------

WIDGET = "application/vnd.jupyter.widget-view+json"


def test_a_calls_app_has_an_output_of_its_own_that_the_freeze_leaves_alone():
    """JupyterLab draws a widget output updated to another widget in the old one's place, and
    hides both once the old one is closed: the app must not be in the view's own output."""

    async def scenario():
        view = CallView("apps", "get-time", show_waiting=False)
        view.display_handle, view.outputs.script_handle = Handle(), Handle()  # (as show() leaves them)
        frame = widgets.HTML("<p>the app</p>")
        box = widgets.VBox([frame])
        view.show_app(box)
        # The app is shown in the view's second output (where the keyboard script was).
        assert view.outputs.script_handle.bundles == [{WIDGET: {
            "version_major": 2, "version_minor": 0, "model_id": view.apps.model_id},
            "text/plain": ""}]
        assert box not in tree_models(view) and view.apps not in tree_models(view)
        view.show_result(ToolResult([{"type": "text", "text": "12:00"}]))
        models = tree_models(view)
        assert view.freeze()
        for _ in range(10_000):
            if not any(is_open(m) for m in models):
                break
            await asyncio.sleep(0)
        return view, box, frame, models

    view, box, frame, models = asyncio.run(scenario())
    # The view's output is the transcript (no widget), and it says an app was shown.
    (bundle,) = view.display_handle.bundles
    assert WIDGET not in bundle
    assert "An app of apps · get-time is shown here" in bundle["text/plain"]
    assert "12:00" in bundle["text/plain"]
    # The app's output was not touched, and the app is still live.
    assert len(view.outputs.script_handle.bundles) == 1
    assert not any(is_open(m) for m in models)
    assert all(is_open(m) for m in (view.apps, box, frame))
    # What the app does later goes into the transcript, which is drawn again in its place.
    view.notice("The app called get-time.", "info")
    latest = view.display_handle.bundles[-1]
    assert WIDGET not in latest and "The app called get-time." in latest["text/plain"]
    # (after the result, where it came)
    text = latest["text/plain"]
    assert text.index("12:00") < text.index("The app called get-time.")
    assert len(view.outputs.script_handle.bundles) == 1

    # Its connection closes: the app's widgets close, and its output is emptied.
    view.app_ended(box)
    assert view.outputs.script_handle.bundles[-1] == {"text/plain": ""}
    assert not any(is_open(m) for m in (view.apps, box, frame, frame.layout))


def test_a_reloaded_page_that_kept_the_line_saying_the_app_is_shown_has_it_hidden_once_it_ends():
    """A reloaded page keeps the transcript it had (the kernel's updates of it do not reach
    it): the line "An app … is shown here" would stay after the app ended. That line is named
    by a class in the transcript; the app's own output, a widget every page hears, says why
    the app ended, and hides that line."""

    async def scenario():
        view = CallView("apps", "get-time", show_waiting=False)
        view.display_handle, view.outputs.script_handle = Handle(), Handle()
        box = widgets.VBox([widgets.HTML("<p>the app</p>")])
        shown = view.show_app(box)
        box_two = widgets.VBox([widgets.HTML("<p>another app</p>")])
        view.show_app(box_two)  # (a second app keeps the output, and the line, shown)
        view.show_result(ToolResult([{"type": "text", "text": "12:00"}]))
        assert view.freeze()
        kept = view.display_handle.bundles[-1]["text/html"]  # (what a reloaded page has)
        view.app_ended(box, "The app ended: it asked to close.", shown)
        await asyncio.sleep(0.05)
        return shown, kept, view

    shown, kept, view = asyncio.run(scenario())
    assert re.fullmatch(r"nb-elicit-app-line-[0-9a-f]{12}", shown.tag)
    line = re.search(r'<div class="([^"]*)"[^>]*>.{0,400}?is shown here', kept)
    assert line and shown.tag in line.group(1).split(), kept
    (ended, _live) = view.apps.children
    assert f"<style>.{shown.tag} {{ display: none; }}</style>" in ended.value
    assert "The app ended: it asked to close." in ended.value
    # (a page that hears the updates: the line itself says why, in its place, once)
    latest = view.display_handle.bundles[-1]["text/plain"]
    assert "The app ended: it asked to close." in latest
    assert latest.count("is shown here") == 1  # (the second app's, which lives on)


def test_a_frozen_call_without_apps_empties_its_script_output_and_never_made_an_apps_box():
    async def scenario():
        view, _forms = answered_view(1)
        view.outputs.script_handle = Handle()
        assert view.freeze()
        await asyncio.sleep(0.05)
        return view

    view = asyncio.run(scenario())
    assert view.outputs.script_handle.bundles == [{"text/plain": ""}]
    assert view.call_apps.box is None  # (made when an app is first shown)


# -- the layout and style models every prompt shares ------------------------------------------

def _parts(form: ElicitationForm) -> list[widgets.Widget]:
    """Every layout and style model a form's widgets use."""
    seen: list[widgets.Widget] = []

    def visit(node):
        for child in getattr(node, "children", ()):
            visit(child)
        for part in (getattr(node, "layout", None), getattr(node, "style", None)):
            if isinstance(part, widgets.Widget) and part not in seen:
                seen.append(part)

    visit(form)
    return seen


def test_forms_share_their_plain_layout_and_styles_and_closing_one_leaves_them_open():
    from nb_elicit._ui.kit import is_shared

    name = {"type": "object", "properties": {"name": {"type": "string"}}}
    first, second = ElicitationForm("One", name, server="s"), ElicitationForm("Two", name, server="s")
    shared = [m for m in _parts(first) if is_shared(m)]
    kinds = {type(m).__name__ for m in shared}
    assert {"Layout", "ButtonStyle", "HTMLStyle", "TextStyle"} <= kinds
    assert shared == [m for m in _parts(second) if is_shared(m)]
    own = tree_models(first)
    assert not any(is_shared(m) for m in own)
    closing.close_tree(first)
    assert not any(is_open(m) for m in own)
    assert all(is_open(m) for m in shared)
    assert all(is_open(m) for m in tree_models(second))
    # A layout a widget changes is its own, never the shared one (it would change every form).
    changeable = [m for m in _parts(second) if not is_shared(m)]
    assert all(isinstance(m, widgets.Layout) for m in changeable)


def test_a_shared_model_that_was_closed_is_made_anew_for_the_next_form():
    from nb_elicit._ui.kit import Kit, is_shared

    # (the kit is this test's own, as each test's kernel state is: the one it closes is not
    # the one that live widgets of earlier tests of this process still show)
    plain = Kit().plain
    assert is_shared(plain) and is_open(plain)
    plain.close()  # (as Widget.close_all() would)
    form = ElicitationForm("Again", CLICK, server="s")
    assert form.layout is not plain and is_open(form.layout) and is_shared(form.layout)
    assert Kit().plain is form.layout


# -- the models a call's view makes ------------------------------------------------------------

def test_a_call_that_shows_only_its_waiting_line_makes_three_models_and_the_rest_on_first_use():
    async def scenario():
        view = CallView("demo", "pause")
        made = tree_models(view)  # (the models every prompt shares left out)
        await asyncio.sleep(0)
        view.notice("a line", "info")
        with_notice = tree_models(view)
        view.show_result(ToolResult([{"type": "text", "text": "done"}], None, False))
        view.finish()
        return view, made, with_notice

    view, made, with_notice = asyncio.run(scenario())
    assert sorted(type(m).__name__ for m in made) == ["CallView", "HTML", "Layout"]
    assert {id(view), id(view.status), id(view.status.layout)} == {id(m) for m in made}
    (line,) = view.asked  # (the notice sits in the view itself: no box is made for it)
    assert line in with_notice and line not in made
    assert view.result in tree_models(view) and view.result.children


# -- a view that shows only once something shows in it ----------------------------------------

class Displays:
    """``display`` for cell_outputs: every object displayed, and a :class:`Handle` for each."""

    def __init__(self):
        self.shown: list[tuple[object, Handle]] = []

    def __call__(self, obj, **kwargs):
        handle = Handle()
        self.shown.append((obj, handle))
        return handle


def test_a_quiet_view_that_showed_nothing_leaves_no_output_at_all(monkeypatch):
    # A listing (%mcp tools) used to display its view and keyboard script, then replace both by
    # empty outputs a moment later: two empty outputs saved with the notebook, and a view the
    # page was still drawing when it was taken away ("Could not add child view to box").
    displays = Displays()
    monkeypatch.setattr(cell_outputs, "display", displays)

    async def scenario():
        view = CallView("demo", "list_tools", show_waiting=False)
        view.show_when_needed(keyboard=True)
        view.finish()
        assert view.freeze()
        await asyncio.sleep(0.05)
        return view

    view = asyncio.run(scenario())
    assert displays.shown == []
    assert view.display_handle is None and view.script_handle is None
    assert not any(is_open(m) for m in (view, view.status))


def test_a_quiet_view_shows_once_something_shows_in_it_in_the_cell_it_was_made_in(monkeypatch):
    displays = Displays()
    monkeypatch.setattr(cell_outputs, "display", displays)
    cell = contextvars.ContextVar("cell", default="none")
    where = []

    def display(obj, **kwargs):
        where.append(cell.get())
        return displays(obj, **kwargs)

    monkeypatch.setattr(cell_outputs, "display", display)
    cell.set("the calling cell")
    view = CallView("demo", "list_tools", show_waiting=False)
    view.show_when_needed(keyboard=True)
    assert displays.shown == []

    def later():  # (a form comes from another task, in another context)
        cell.set("somewhere else")
        form = ElicitationForm("Who?", CLICK, server="demo")
        view.add_form(form)
        view.notice("demo asked: Who?", "info")
        return form

    contextvars.Context().run(later)
    assert [obj for obj, _ in displays.shown][0] is view
    assert len(displays.shown) == 2  # the view and its keyboard script, once
    assert where == ["the calling cell"] * 2
    assert view.display_handle is displays.shown[0][1]


def test_a_quiet_view_that_failed_shows_its_failure_line(monkeypatch):
    displays = Displays()
    monkeypatch.setattr(cell_outputs, "display", displays)
    view = CallView("demo", "list_tools", show_waiting=False)
    view.show_when_needed(keyboard=False)
    view.show_failure("✖ demo · list_tools: the server is gone")
    assert [obj for obj, _ in displays.shown] == [view]


def test_a_connections_quiet_request_displays_nothing_until_something_shows(monkeypatch):
    # Where a widget frontend is there (JupyterLab): the view of %mcp tools's list_tools.
    from nb_elicit._runtime import runner
    from nb_elicit._runtime.sessions import State

    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    displays = Displays()
    monkeypatch.setattr(cell_outputs, "display", displays)
    sessions = type("Sessions", (), {"state": State.READY})()
    calls = runner.CallRunner("demo", sessions, guard=None)
    quiet = calls.view("list_tools", show_waiting=False)
    assert displays.shown == []
    quiet.notice("demo asked something", "info")
    assert [obj for obj, _ in displays.shown] == [quiet]
    waiting = calls.view("hello", show_waiting=True)  # (a tool call shows its clock at once)
    assert [obj for obj, _ in displays.shown][1] is waiting


def test_the_keyboard_script_comes_with_the_first_form_and_a_call_without_one_leaves_none(
        monkeypatch):
    # Every call used to display its keyboard script at once, and empty it when frozen: a
    # call that showed no form (a task's card, an app's clock) left an empty output saved.
    displays = Displays()
    monkeypatch.setattr(cell_outputs, "display", displays)

    async def scenario():
        plain = CallView("demo", "research", show_waiting=True)
        plain.show(keyboard=True)
        plain.show_result(RESULT, render=False)
        assert plain.freeze()
        asked = CallView("demo", "contact_info", show_waiting=True)
        asked.show(keyboard=True)
        script_before = len(displays.shown)
        form = ElicitationForm("Who?", CLICK, server="demo")
        asked.add_form(form)
        asked.add_form(ElicitationForm("And?", CLICK, server="demo"))
        return plain, asked, script_before, form

    plain, asked, script_before, form = asyncio.run(scenario())
    assert plain.script_handle is None
    assert plain.display_handle.bundles[-1]["text/plain"].startswith("[demo · research]")
    assert script_before == 2  # (the two views; no script yet)
    scripts = [obj for obj, _ in displays.shown if not isinstance(obj, CallView)]
    assert len(scripts) == 1 and "nb-elicit-view-" in scripts[0].data
    assert asked.script_handle is displays.shown[-1][1]
