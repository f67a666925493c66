"""AppFrame without a kernel: its traits, and the way an app's requests reach the handler and
its answers go back (custom messages fed to ``_handle_custom_msg``, replies caught from
``send``)."""

from __future__ import annotations

import asyncio
import hashlib
import threading

import pytest
import traitlets

from nb_elicit._core.apps import content_security_policy
from nb_elicit._core.i18n import set_language
from nb_elicit._ui.app_frame import (
    BUNDLE,
    HOST_CODE,
    HOST_SHA,
    MAX_CONTENT_HEIGHT,
    AppFrame,
    AppRequestError,
)


class Recorder:
    """The messages a frame sends to its front end."""

    def __init__(self, frame: AppFrame):
        self.sent: list[dict] = []
        self.arrived = threading.Event()
        frame.send = self._send

    def _send(self, content, buffers=None):
        self.sent.append(content)
        self.arrived.set()


@pytest.fixture
def frame():
    made = AppFrame(html="<p>app</p>")
    made.recorder = Recorder(made)
    yield made
    made.close()


def request(frame: AppFrame, method: str, params, request_id: int = 7) -> None:
    frame._handle_custom_msg({"kind": "request", "id": request_id, "method": method,
                              "params": params}, [])


# -- traits -----------------------------------------------------------------------------------


def test_the_traits_and_their_defaults():
    frame = AppFrame(html="<p>the app</p>")
    assert (frame.csp, frame.tool) == ({}, {})
    assert frame.tool_input is None and frame.tool_result is None
    assert (frame.cancelled, frame.theme, frame.status) == ("", "", "loading")
    assert (frame.max_height, frame.height) == (800, 0)
    synced = {name for name in frame.keys if not name.startswith("_")}
    assert synced - {"layout", "tabbable", "tooltip"} == {
        "csp", "policy", "tool", "tool_input", "tool_result", "cancelled", "max_height", "theme",
        "height", "status", "permissions", "side_doors"}
    assert frame.permissions == {}  # (what the person granted: nothing, by default)
    assert frame.side_doors == {"webrtc": False, "clipboardWrite": False}  # (all shut)
    # (the HTML is no trait: it goes once by message)
    assert "the app" not in str(frame.get_state())
    frame.close()


def test_a_frame_not_held_pushes_its_html_once_right_after_its_comm_open(monkeypatch):
    sent = []
    monkeypatch.setattr(AppFrame, "send", lambda self, content, buffers=None: sent.append(
        (self.comm is not None, self._key, content)))
    frame, other = AppFrame(html="<p>app</p>"), AppFrame(html="<p>other</p>")
    # (its comm open, before it is shown: the page keeps it under the frame's key)
    assert sent == [(True, frame._key, {"kind": "html", "html": "<p>app</p>", "pushed": True}),
                    (True, other._key, {"kind": "html", "html": "<p>other</p>", "pushed": True})]
    assert frame.get_state()["_key"] == frame._key != other._key
    frame._handle_custom_msg({"kind": "html"}, [])  # (a later front end asks)
    assert sent[-1][2] == {"kind": "html", "gone": True}
    held = AppFrame(html="<p>held</p>", held=True)
    assert len(sent) == 3  # (a held frame sends nothing until released and asked)
    for made in (frame, other, held):
        made.close()


def test_the_policy_is_built_from_the_checked_csp_and_follows_it():
    frame = AppFrame(csp={"connectDomains": ["https://api.example.com", "https://x.com; a *"],
                          "wasmUnsafeEval": True})
    assert frame.csp == {"connectDomains": ["https://api.example.com"], "wasmUnsafeEval": True}
    assert frame.policy == content_security_policy(frame.csp)
    assert "connect-src https://api.example.com;" in frame.policy
    assert "'wasm-unsafe-eval'" in frame.policy
    frame.csp = {}
    assert frame.policy == content_security_policy({})
    assert "connect-src 'none'" in frame.policy
    frame.policy = "default-src *"  # (the policy is the csp's, whoever sets it)
    assert frame.policy == content_security_policy({})
    frame.close()


def test_without_a_csp_the_policy_is_the_closed_one():
    frame = AppFrame()
    assert frame.policy == content_security_policy({})
    assert frame.get_state()["policy"] == frame.policy
    frame.close()


def test_the_front_end_is_a_loader_and_the_host_code_is_the_committed_bundle():
    frame = AppFrame()
    assert len(frame._esm) < 2500 and HOST_SHA in frame._esm
    assert BUNDLE.read_text(encoding="utf-8") == HOST_CODE
    assert HOST_CODE.startswith("/* nb_elicit app host")
    assert hashlib.sha256(BUNDLE.read_bytes()).hexdigest() == HOST_SHA
    frame.close()


def test_asked_for_the_host_code_the_frame_sends_it_with_its_sha(frame):
    assert frame.host_code_requests == 0
    frame._handle_custom_msg({"kind": "host-code", "sha": HOST_SHA}, [])
    assert frame.recorder.sent == [{"kind": "host-code", "sha": HOST_SHA, "code": HOST_CODE}]
    assert frame.host_code_requests == 1


def test_the_host_code_is_sent_from_the_thread_the_request_came_on(frame):
    """As the app's requests are: a waiting cell does not hold it up."""
    threads = []
    frame.send = lambda content, buffers=None: threads.append(threading.current_thread())
    worker = threading.Thread(target=frame._handle_custom_msg,
                              args=({"kind": "host-code", "sha": HOST_SHA}, []))
    worker.start()
    worker.join(10)
    assert threads == [worker] and frame.host_code_requests == 1


def test_the_frame_s_own_texts_are_in_nb_elicit_s_language():
    try:
        set_language("zh")
        chinese = AppFrame()
        set_language("en")
        english = AppFrame()
    finally:
        set_language(None)
    assert english._texts["closed"] == "The app was closed."
    assert chinese._texts["closed"] == "应用已关闭。"
    assert set(english._texts) == set(chinese._texts) == {
        "title", "closed", "left_page", "not_started", "elsewhere", "fullscreen",
        "fullscreen_asked", "exit_fullscreen"}
    assert english._texts["exit_fullscreen"] == "Exit full screen (Esc)"
    chinese.close()
    english.close()


def test_height_is_the_app_s_whole_height_within_the_frame_limits(frame):
    """`height` is how tall the app is (the frame takes all of it; its box, at most
    `max_height`, scrolls): never cut to `max_height`."""
    frame.max_height = 300
    frame.height = 5
    assert frame.height == 40
    frame.height = 5000
    assert frame.height == 5000
    frame.height = 10**9
    assert frame.height == MAX_CONTENT_HEIGHT == 50_000
    frame.height = 0
    assert frame.height == 0  # (the app has not said yet)
    frame.max_height = 1
    assert frame.max_height == 40


def test_theme_is_light_dark_or_the_page_s(frame):
    frame.theme = "dark"
    with pytest.raises(traitlets.TraitError):
        frame.theme = "purple"
    assert frame.theme == "dark"


def test_the_tool_result_is_a_plain_dict_or_none(frame):
    frame.tool_result = {"content": [{"type": "text", "text": "hi"}]}
    frame.tool_result = None
    with pytest.raises(traitlets.TraitError):
        frame.tool_result = ["not", "a", "result"]


# -- requests ---------------------------------------------------------------------------------


def test_a_sync_handler_answers_with_its_result(frame):
    seen = []

    def handler(method, params):
        seen.append((method, params))
        return {"content": [{"type": "text", "text": f"echo {params['arguments']['word']}"}]}

    frame.on_request(handler)
    request(frame, "tools/call", {"name": "echo", "arguments": {"word": "hi"}}, request_id=3)
    assert seen == [("tools/call", {"name": "echo", "arguments": {"word": "hi"}})]
    assert frame.recorder.sent == [{"kind": "response", "id": 3, "result": {
        "content": [{"type": "text", "text": "echo hi"}]}}]


def test_a_handler_that_returns_nothing_answers_an_empty_result(frame):
    frame.on_request(lambda method, params: None)
    request(frame, "ui/open-link", {"url": "https://example.org"})
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "result": {}}]


def test_an_async_handler_runs_on_the_running_loop():
    async def scenario():
        frame = AppFrame()
        recorder = Recorder(frame)
        loops = []

        async def handler(method, params):
            loops.append(asyncio.get_running_loop())
            await asyncio.sleep(0)
            return {"contents": [{"uri": params["uri"], "text": "body"}]}

        frame.on_request(handler)
        request(frame, "resources/read", {"uri": "ui://x/y"}, request_id=11)
        assert recorder.sent == []  # (not yet: the handler runs on the loop)
        for _ in range(20):
            await asyncio.sleep(0)
            if recorder.sent:
                break
        frame.close()
        return recorder.sent, loops, asyncio.get_running_loop()

    sent, loops, loop = asyncio.run(scenario())
    assert loops == [loop]
    assert sent == [{"kind": "response", "id": 11,
                     "result": {"contents": [{"uri": "ui://x/y", "text": "body"}]}}]


def test_an_async_handler_of_a_message_from_another_thread_runs_on_the_frame_s_loop():
    async def scenario():
        frame = AppFrame()
        recorder = Recorder(frame)
        loops = []

        async def handler(method, params):
            loops.append(asyncio.get_running_loop())
            return {"ok": True}

        frame.on_request(handler)  # (on this loop)
        thread = threading.Thread(target=request, args=(frame, "ui/message", {
            "role": "user", "content": [{"type": "text", "text": "hello"}]}, 5))
        thread.start()
        await asyncio.to_thread(thread.join)
        await asyncio.to_thread(recorder.arrived.wait, 10)
        frame.close()
        return recorder.sent, loops, asyncio.get_running_loop()

    sent, loops, loop = asyncio.run(scenario())
    assert loops == [loop]
    assert sent == [{"kind": "response", "id": 5, "result": {"ok": True}}]


def test_an_app_request_error_becomes_that_json_rpc_error(frame):
    def handler(method, params):
        raise AppRequestError(-32000, "Link opening denied by user")

    frame.on_request(handler)
    request(frame, "ui/open-link", {"url": "https://example.org"})
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "error": {
        "code": -32000, "message": "Link opening denied by user"}}]


def test_an_async_handler_s_app_request_error_becomes_that_error():
    async def scenario():
        frame = AppFrame()
        recorder = Recorder(frame)

        async def handler(method, params):
            raise AppRequestError(-32002, "no such resource")

        frame.on_request(handler)
        request(frame, "resources/read", {"uri": "ui://nope"})
        await asyncio.to_thread(recorder.arrived.wait, 10)
        frame.close()
        return recorder.sent

    assert asyncio.run(scenario()) == [{"kind": "response", "id": 7, "error": {
        "code": -32002, "message": "no such resource"}}]


def test_any_other_exception_is_an_internal_error_naming_only_its_class(frame):
    def handler(method, params):
        raise ValueError("secret token sk-123 in the text")

    frame.on_request(handler)
    request(frame, "tools/call", {"name": "x"})
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "error": {
        "code": -32603, "message": "Internal error (ValueError)"}}]


def test_a_result_that_is_not_a_json_object_is_an_internal_error(frame):
    frame.on_request(lambda method, params: ["a", "list"])
    request(frame, "tools/call", {"name": "x"}, request_id=1)
    frame.on_request(lambda method, params: {"when": object()})
    request(frame, "tools/call", {"name": "x"}, request_id=2)
    assert frame.recorder.sent == [
        {"kind": "response", "id": 1, "error": {
            "code": -32603, "message": "Internal error (the handler returned list)"}},
        {"kind": "response", "id": 2, "error": {
            "code": -32603, "message": "Internal error (TypeError)"}},
    ]


def test_an_unknown_method_is_method_not_found_and_never_reaches_the_handler(frame):
    seen = []
    frame.on_request(lambda method, params: seen.append(method) or {})
    request(frame, "sampling/createMessage", {}, request_id=1)
    request(frame, "ui/initialize", {}, request_id=2)
    assert seen == []
    assert frame.recorder.sent == [
        {"kind": "response", "id": n, "error": {"code": -32601, "message": "Method not found"}}
        for n in (1, 2)]


def test_without_a_handler_every_request_is_method_not_found(frame):
    request(frame, "tools/call", {"name": "x"})
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "error": {
        "code": -32601, "message": "Method not found"}}]


def test_params_that_are_not_an_object_are_invalid_params(frame):
    frame.on_request(lambda method, params: {})
    request(frame, "tools/call", ["x"])
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "error": {
        "code": -32602, "message": "Invalid params"}}]


def test_messages_without_an_id_or_of_another_kind_are_ignored(frame):
    seen = []
    frame.on_request(lambda method, params: seen.append(method) or {})
    frame._handle_custom_msg({"kind": "request", "method": "tools/call", "params": {}}, [])
    frame._handle_custom_msg({"kind": "request", "id": True, "method": "tools/call",
                              "params": {}}, [])
    frame._handle_custom_msg({"kind": "anywidget-command", "name": "x"}, [])
    frame._handle_custom_msg("not a dict", [])
    assert seen == [] and frame.recorder.sent == []


def test_a_notification_reaches_the_handler_and_is_not_answered(frame):
    seen = []
    frame.on_request(lambda method, params: seen.append((method, params)))
    frame._handle_custom_msg({"kind": "notification", "method": "notifications/message",
                              "params": {"level": "info", "data": "hi"}}, [])
    frame._handle_custom_msg({"kind": "notification", "method": "notifications/other",
                              "params": {}}, [])
    assert seen == [("notifications/message", {"level": "info", "data": "hi"})]
    assert frame.recorder.sent == []


def test_a_cancelled_request_is_not_answered():
    async def scenario():
        frame = AppFrame()
        recorder = Recorder(frame)
        started, cancelled = asyncio.Event(), []

        async def handler(method, params):
            started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append(method)
                raise
            return {}

        frame.on_request(handler)
        request(frame, "tools/call", {"name": "slow"}, request_id=9)
        await asyncio.wait_for(started.wait(), 10)
        frame._handle_custom_msg({"kind": "cancel", "id": 9}, [])
        for _ in range(20):
            await asyncio.sleep(0)
        frame.close()
        return recorder.sent, cancelled

    sent, cancelled = asyncio.run(scenario())
    assert cancelled == ["tools/call"]
    assert sent == []


def test_an_async_handler_with_no_loop_anywhere_is_an_internal_error(frame):
    async def handler(method, params):
        return {}

    frame.on_request(handler)
    frame._loop = None
    request(frame, "tools/call", {"name": "x"})
    assert frame.recorder.sent == [{"kind": "response", "id": 7, "error": {
        "code": -32603, "message": "Internal error (no event loop)"}}]


def test_python_asks_the_front_end_to_tear_down_and_streams_partial_input(frame):
    frame.send_tool_input_partial({"location": "New"})
    frame.teardown()
    assert frame.recorder.sent == [{"kind": "tool-input-partial", "arguments": {"location": "New"}},
                                   {"kind": "teardown"}]

