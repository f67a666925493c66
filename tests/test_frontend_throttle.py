"""The scripted frontend (tests/frontend.py) is faithful to JupyterLab's widget throttle.

Plain ipywidgets in real kernels, no nb_elicit code. What these pin down (ipykernel 7.4.0, see
docs/kernels.md):

1. While an async cell awaits, a widget comm message is handled on the kernel's concurrent path
   and no ``status: idle`` is published for it, so a throttled frontend never sends the next
   update: typing "Ada Lovelace" delivers only "A".
2. Once the cell has finished, the kernel publishes busy/idle for each comm message and every
   keystroke arrives: the throttle does not break the normal path.
3. Publishing ``idle`` ourselves for messages handled on the concurrent path (and only those)
   makes typing into an awaiting cell work, without ever doubling an idle.
"""

import sys
import time

import pytest
from helpers.frontend import Frontend

pytestmark = [pytest.mark.timeout(120), pytest.mark.blocking_kernel]

NAME = "Ada Lovelace"
KEYSTROKES = [NAME[:i] for i in range(1, len(NAME) + 1)]  # "A", "Ad", ..., "Ada Lovelace"
STALL_WAIT = 1.5  # s; a handled comm message is answered by idle within a few ms otherwise

# The cell waits (top-level await) until Go is clicked, then prints what the Text holds.
CELL_A = (
    "import asyncio, ipywidgets as w; "
    't = w.Text(); t.add_class("probe-text"); '
    'b = w.Button(description="Go"); b.add_class("probe-go"); '
    "fut = asyncio.get_running_loop().create_future(); "
    "b.on_click(lambda _: fut.get_loop().call_soon_threadsafe("
    "lambda: fut.done() or fut.set_result(t.value))); "
    "display(t, b); "
    'print("GOT", repr(await fut))'
)

# The same widgets in a cell that finishes at once; clicks are recorded instead of awaited.
CELL_B = (
    "import ipywidgets as w; "
    't = w.Text(); t.add_class("probe-text"); '
    'b = w.Button(description="Go"); b.add_class("probe-go"); '
    "clicks = []; b.on_click(lambda _: clicks.append(t.value)); "
    "display(t, b)"
)

# The workaround, as kernel code: after a widget handled a comm message that ipykernel dispatched
# on its concurrent path (which publishes no status), publish idle with that message as parent.
IDLE_FIX = '''
import sys as _sys

def publish_if_concurrent(msg):
    frame = _sys._getframe()
    while frame is not None:
        if (frame.f_code.co_name == "dispatch_shell"
                and frame.f_locals.get("concurrent") is True):
            kernel = get_ipython().kernel
            kernel.session.send(kernel.iopub_socket, "status", {"execution_state": "idle"},
                                parent=msg, ident=kernel._topic("status"))
            return
        frame = frame.f_back

def install_idle_fix(widget):
    orig = widget._handle_msg
    widget.comm.on_msg(lambda m: (orig(m), publish_if_concurrent(m)))
'''
CELL_A_FIXED = CELL_A.replace(
    "display(t, b);", "install_idle_fix(t); install_idle_fix(b); display(t, b);"
)
assert CELL_A_FIXED != CELL_A


@pytest.fixture(params=[False, True], ids=["no-subshells", "subshells"])
def fe(request):
    """One fresh kernel per test, with or without widget messages routed to a subshell."""
    with Frontend.start(subshells=request.param) as frontend:
        yield frontend


def probes(fe: Frontend) -> tuple[str, str]:
    """Wait for the cell's Text and Go button models; their ids."""
    fe.wait_for(lambda: fe.find("probe-text") and fe.find("probe-go"), timeout=10,
                what="the probe widgets")
    (text,) = fe.find("probe-text")
    (go,) = fe.find("probe-go")
    assert fe.find_by(model_name="ButtonModel", description="Go") == [go]
    assert fe.models[text].model_name == "TextModel"
    return text, go


def ok(fe: Frontend, code: str) -> str:
    """Run code that must succeed; its stdout."""
    reply, outputs = fe.run(code, timeout=30)
    assert reply["status"] == "ok", outputs
    return "".join(o["text"] for o in outputs if o["output_type"] == "stream")


def finish(fe: Frontend, cell: str, go: str) -> str:
    """End the awaiting cell: click Go if the button can send, else interrupt. How it ended."""
    how = "interrupt"
    if fe.in_flight(go) is None and not fe.pending(go):
        fe.click(go)
        how = "click"
        try:
            fe.wait_reply(cell, timeout=10)
            return how
        except TimeoutError:
            how = "click, then interrupt"
    fe.interrupt()
    fe.wait_reply(cell, timeout=10)
    return how


def kernel_ipykernel_version(fe: Frontend) -> str:
    return ok(fe, "import ipykernel; print(ipykernel.__version__)").strip()


def test_awaiting_cell_gets_only_the_first_keystroke(fe):
    version = kernel_ipykernel_version(fe)
    cell = fe.execute(CELL_A)
    text, go = probes(fe)

    t0 = time.monotonic()
    fe.type_text(text, NAME)
    assert not fe.flush(timeout=STALL_WAIT), (
        f"ipykernel {version} answered every keystroke: the KERNEL.md trap is gone, re-check it"
    )
    stalled = fe.stalled()
    assert list(stalled) == [text]
    first, *waiting = stalled[text]
    assert first.value == "A" and fe.statuses(first.msg_id) == []  # no busy, no idle, ever
    assert [m.value for m in waiting] == KEYSTROKES[1:]
    assert all(m.msg_id is None for m in waiting)  # never sent

    how = finish(fe, cell, go)
    reply = fe.wait_reply(cell, timeout=10)
    elapsed = time.monotonic() - t0
    printed = fe.stdout(cell)
    assert how == "click"
    assert reply["status"] == "ok"
    assert printed == "GOT 'A'\n"

    # The click was handled on the concurrent path too: no status, so Go is now stalled as well.
    (click,) = [m for m in fe.messages if m.kind == "custom"]
    assert fe.statuses(click.msg_id) == []
    assert set(fe.stalled()) == {text, go}
    # The cell is over, yet no idle ever comes for "A": the rest of the name is never sent.
    assert not fe.flush(timeout=0.5)
    assert fe.pending(text) == waiting
    assert ok(fe, "print(repr(t.value))") == "'A'\n"
    print(f"[{'subshells' if fe.subshell_id else 'no subshells'}] ipykernel {version}: "
          f"printed {printed!r}; stalled {first!r} + {len(waiting)} queued; "
          f"ended by {how}; {elapsed:.2f}s incl. {STALL_WAIT}s stall wait")


@pytest.mark.parametrize("coalesce", [False, True], ids=["queue", "coalesce"])
@pytest.mark.parametrize("subshells", [False, True], ids=["no-subshells", "subshells"])
def test_finished_cell_gets_every_keystroke(subshells, coalesce):
    with Frontend.start(subshells=subshells, coalesce=coalesce) as fe:
        assert ok(fe, "import sys; print(sys.executable)").strip() == sys.executable
        ok(fe, CELL_B)
        text, go = probes(fe)

        t0 = time.monotonic()
        fe.type_text(text, NAME)
        assert fe.flush(timeout=10), fe.stalled()
        typed = time.monotonic() - t0
        fe.click(go)
        assert fe.flush(timeout=10), fe.stalled()

        assert ok(fe, "print(repr(t.value), clicks)") == "'Ada Lovelace' ['Ada Lovelace']\n"
        assert fe.value(text) == NAME
        updates = [m.value for m in fe.messages if m.kind == "update"]
        # The queue sends every keystroke; coalescing sends "A", then the rest merged in one.
        assert updates == (["A", NAME] if coalesce else KEYSTROKES)
        for m in fe.messages:  # the kernel itself published busy then idle for each message
            assert fe.statuses(m.msg_id) == ["busy", "idle"], m
        round_trips = [1000 * (m.idle_at - m.sent_at) for m in fe.messages]
        print(f"[{'subshells' if subshells else 'no subshells'}, "
              f"{'coalesce' if coalesce else 'queue'}] {len(updates)} updates in "
              f"{1000 * typed:.1f} ms; round trips {min(round_trips):.1f}-"
              f"{max(round_trips):.1f} ms")


def test_idle_fix_delivers_every_keystroke_to_an_awaiting_cell(fe):
    ok(fe, IDLE_FIX)
    cell = fe.execute(CELL_A_FIXED)
    text, go = probes(fe)

    t0 = time.monotonic()
    fe.type_text(text, NAME)
    assert fe.flush(timeout=10), fe.stalled()
    typed = time.monotonic() - t0
    assert fe.value(text) == NAME  # the kernel's echo_update agrees

    assert finish(fe, cell, go) == "click"
    assert fe.wait_reply(cell, timeout=10)["status"] == "ok"
    assert fe.stdout(cell) == "GOT 'Ada Lovelace'\n"
    assert fe.flush(timeout=2), fe.stalled()
    fe.pump_for(0.3)  # a doubled idle would arrive within a few ms; give it time to show up

    assert [m.value for m in fe.messages if m.kind == "update"] == KEYSTROKES
    for m in fe.messages:  # exactly one idle per message: never none, never doubled
        assert fe.idle_count(m.msg_id) == 1, (m, fe.statuses(m.msg_id))
    # Where the idle came from: ["idle"] alone is the fix, ["busy", "idle"] is the kernel.
    sources = [
        "fix" if fe.statuses(m.msg_id) == ["idle"] else "kernel" for m in fe.messages
    ]
    print(f"[{'subshells' if fe.subshell_id else 'no subshells'}] printed "
          f"{fe.stdout(cell)!r}; {len(fe.messages)} messages in {1000 * typed:.1f} ms "
          f"(typing); idle from: {sources}")


def test_interrupt_ends_an_awaiting_cell_only_once_woken():
    """KERNEL.md: Interrupt alone does not end a cell that awaits; the next shell message does."""
    with Frontend.start() as fe:
        cell = fe.execute(CELL_A)
        probes(fe)
        # An interrupt that lands before the cell reaches its await does end it at once (also
        # with CancelledError): wait for both widget views, then let it settle into the await.
        fe.wait_for(
            lambda: [o["output_type"] for o in fe.outputs(cell)] == ["display_data"] * 2,
            timeout=10, what="the two widget views",
        )
        fe.pump_for(0.3)
        fe.interrupt(wake=False)
        with pytest.raises(TimeoutError):
            fe.wait_reply(cell, timeout=1.0)
        fe.kc.kernel_info()  # any shell message wakes the loop (Frontend.interrupt() sends it)
        reply = fe.wait_reply(cell, timeout=10)
        assert (reply["status"], reply["ename"]) == ("error", "CancelledError")
