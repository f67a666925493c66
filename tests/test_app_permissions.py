"""The permissions an app's resource asks for (``_meta.ui.permissions``): read and checked in
``_core/apps.py``, asked on a consent card (``_ui/permission_card.py``) before the frame gets
its HTML, and only what the person allowed reaches the frame's ``allow`` (``_runtime/apps.py``).

The end-to-end parts use ``tests/servers/apps_server.py``'s ``wants_permissions`` (its app asks
for the microphone, geolocation, clipboard-write and an unknown ``usb``) and ``wants_camera``
with a frontend said to be there. Camera and microphone are never offered: a frame of an opaque
origin can never use them (``tests/browser/test_app_side_doors_browser.py`` shows the rest of
what the frame shuts).
"""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest
from helpers.servers import SERVERS, drive

import nb_elicit
import nb_elicit._runtime.connection  # noqa: F401 - bound before a frontend is said to be there
from nb_elicit._core.apps import (
    NOT_OFFERED,
    PERMISSIONS,
    allow_attribute,
    app_resource,
    granted_permissions,
    permissions_asked,
    permissions_not_offered,
    side_doors,
)
from nb_elicit._core.outcome import AnsweredBy
from nb_elicit._core.policy import parse_policy
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.app_frame import AppFrame
from nb_elicit._ui.permission_card import PermissionCard, permission_names

pytestmark = pytest.mark.timeout(120)

APPS_SERVER = [sys.executable, str(SERVERS / "apps_server.py")]
MIME = "text/html;profile=mcp-app"


@pytest.fixture
def frontend(monkeypatch):
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)


# -- the model ---------------------------------------------------------------------------------

def test_only_the_known_permissions_are_asked_for_in_the_spec_s_shape():
    asked = {"clipboardWrite": {}, "camera": {}, "usb": {}, "microphone": True,
             "geolocation": {}}
    assert permissions_asked(asked) == ("geolocation", "clipboardWrite")
    assert permissions_not_offered(asked) == ("camera", "microphone")
    assert permissions_asked({"geolocation": "yes", "clipboardWrite": True}) == ("clipboardWrite",)
    for nothing in (None, [], "camera", {"camera": None}, {"camera": False}):
        assert permissions_asked(nothing) == () and permissions_not_offered(nothing) == ()


def test_camera_and_microphone_are_never_offered_nor_allowed():
    assert set(NOT_OFFERED) == {"camera", "microphone"} and not set(NOT_OFFERED) & set(PERMISSIONS)
    assert allow_attribute(["camera", "microphone", "geolocation"]) == "geolocation"
    assert granted_permissions({"camera": {}, "microphone": {}}) == {}
    assert AppFrame(html="", permissions={"camera": {}, "microphone": {}}).permissions == {}


def test_the_allow_attribute_names_only_what_was_granted():
    assert allow_attribute(["clipboardWrite", "geolocation"]) == "geolocation; clipboard-write"
    assert allow_attribute({"clipboardWrite": {}, "usb": {}}) == "clipboard-write"
    assert allow_attribute([]) == allow_attribute(None) == allow_attribute("geolocation") == ""
    assert granted_permissions(["geolocation", "usb"]) == {"geolocation": {}}


def test_the_resource_keeps_what_its_meta_asks_for():
    read = {"contents": [{"uri": "ui://a", "mimeType": MIME, "text": "<p>a</p>", "_meta": {
        "ui": {"permissions": {"microphone": {}, "geolocation": {}, "speaker": {}}}}}]}
    resource = app_resource("ui://a", read)
    assert (resource.permissions, resource.not_offered) == (("geolocation",), ("microphone",))
    plain = {"contents": [{"uri": "ui://a", "mimeType": MIME, "text": "<p>a</p>"}]}
    assert app_resource("ui://a", plain).permissions == ()
    assert app_resource("ui://a", plain).not_offered == ()


# -- what the policy does not govern -----------------------------------------------------------

def test_webrtc_is_open_only_to_an_app_that_declared_connect_domains():
    assert side_doors()["webrtc"] is False
    assert side_doors({"resourceDomains": ["https://cdn.example"],
                       "frameDomains": ["https://maps.example"]})["webrtc"] is False
    assert side_doors({"connectDomains": ["bad domain"]})["webrtc"] is False  # (refused: none)
    assert side_doors({"connectDomains": ["https://api.example"]})["webrtc"] is True


def test_clipboard_writes_are_open_only_once_the_person_granted_them():
    assert side_doors()["clipboardWrite"] is False
    assert side_doors(None, ["geolocation"])["clipboardWrite"] is False
    assert side_doors(None, {"clipboardWrite": True})["clipboardWrite"] is True
    assert side_doors(None, ["clipboardWrite"]) == {"webrtc": False, "clipboardWrite": True}


def test_the_frame_s_side_doors_follow_its_csp_and_what_was_granted():
    frame = AppFrame(html="<p>app</p>", held=True)
    assert frame.side_doors == {"webrtc": False, "clipboardWrite": False}
    frame.side_doors = {"webrtc": True, "clipboardWrite": True}  # (never set by hand)
    assert frame.side_doors == {"webrtc": False, "clipboardWrite": False}
    frame.csp = {"connectDomains": ["https://api.example"]}
    frame.release(["clipboardWrite"])
    assert frame.side_doors == {"webrtc": True, "clipboardWrite": True}


# -- the frame ---------------------------------------------------------------------------------

def sent_by(frame: AppFrame) -> list[dict]:
    sent: list[dict] = []
    frame.send = lambda content, buffers=None: sent.append(content)
    return sent


def test_a_held_frame_gets_its_html_only_after_release_with_what_was_granted():
    frame = AppFrame(html="<p>app</p>", held=True)
    sent = sent_by(frame)
    frame._handle_custom_msg({"kind": "html"}, [])
    assert sent == [] and frame.permissions == {}
    frame.release(["geolocation", "camera", "usb"])
    assert frame.permissions == {"geolocation": {}}
    assert sent == [{"kind": "html", "html": "<p>app</p>"}]
    frame.release(["clipboardWrite"])  # (once only)
    assert frame.permissions == {"geolocation": {}}


def test_a_frame_released_before_it_asked_sends_its_html_when_asked():
    frame = AppFrame(html="<p>app</p>", held=True)
    sent = sent_by(frame)
    frame.release()
    assert sent == [] and frame.permissions == {}
    frame._handle_custom_msg({"kind": "html"}, [])
    assert sent == [{"kind": "html", "html": "<p>app</p>"}]


class _Interleaved(AppFrame):
    """A held frame whose front end's ask for the HTML (on a thread of its own, as when comms run
    on subshells) is caught between reading `held` and noting that it asked: `release` (the
    kernel's loop) runs there, or waits for it (up to a generous hang guard)."""

    def __init__(self, *args, **kwargs):
        self.asker: threading.Thread | None = None
        self.asker_read_held = threading.Event()
        self.released = threading.Event()
        super().__init__(*args, **kwargs)

    @property
    def held(self) -> bool:
        value = self._held
        if threading.current_thread() is self.asker and not self.asker_read_held.is_set():
            self.asker_read_held.set()
            self.released.wait(5)  # (a frame that serialises both never lets release finish here)
        return value

    @held.setter
    def held(self, value: bool) -> None:
        self._held = value


def test_the_html_of_a_held_frame_is_sent_when_release_and_the_ask_cross():
    frame = _Interleaved(html="<p>app</p>", held=True)
    sent = sent_by(frame)
    frame.asker = threading.Thread(target=frame._handle_custom_msg, args=({"kind": "html"}, []))
    frame.asker.start()
    assert frame.asker_read_held.wait(30)

    def release():
        frame.release(["geolocation"])
        frame.released.set()

    releasing = threading.Thread(target=release)
    releasing.start()
    releasing.join(30)
    frame.asker.join(30)
    assert not releasing.is_alive() and not frame.asker.is_alive()
    assert sent == [{"kind": "html", "html": "<p>app</p>"}]


def test_a_frame_s_permissions_are_checked_and_none_by_default():
    assert AppFrame(html="").permissions == {}
    frame = AppFrame(html="", permissions={"geolocation": {}, "usb": {}, "clipboardWrite": "x"})
    assert frame.permissions == {"geolocation": {}}


# -- the card ----------------------------------------------------------------------------------

def test_the_card_names_the_server_and_each_permission_and_grants_the_ticked_ones():
    card = PermissionCard("The app asks.", ("geolocation", "clipboardWrite", "usb"),
                          server="notes")
    assert list(card.boxes) == ["geolocation", "clipboardWrite"]
    assert [box.description for box in card.boxes.values()] == [
        "your location", "writing to your clipboard"]
    assert "notes asks for permissions for its app" in card.message_line.value
    bundle = card._repr_mimebundle_()
    assert bundle["text/plain"] == ("[notes asks for its app: your location, writing to your "
                                    "clipboard]")
    card.boxes["clipboardWrite"].value = False
    card.allow_button.click()
    answer = card.answer.result()
    assert (answer.action, answer.content) == ("accept", {"granted": ["geolocation"]})
    assert card.status_text == "You agreed: the app starts with your location."


def _lines(widget) -> list[tuple[tuple[str, ...], str]]:
    """Every widget inside ``widget``: its classes and its value."""
    children = getattr(widget, "children", ())
    return [(tuple(getattr(widget, "_dom_classes", ())), str(getattr(widget, "value", "") or "")),
            *(line for child in children for line in _lines(child))]


def test_the_card_says_in_one_line_that_camera_and_microphone_are_not_offered():
    card = PermissionCard("The app asks.", ("clipboardWrite", "camera", "microphone"),
                          not_offered=("microphone", "camera", "usb"), server="notes")
    assert list(card.boxes) == ["clipboardWrite"] and card.not_offered == ("camera", "microphone")
    (line,) = [value for classes, value in _lines(card)
               if "nb-elicit-permissions-not-offered" in classes]
    assert "Not offered: your camera, your microphone. An app&#x27;s frame has an origin" in line
    plain = PermissionCard("The app asks.", ("clipboardWrite",), server="notes")
    assert not [value for classes, value in _lines(plain)
                if "nb-elicit-permissions-not-offered" in classes]


def test_declining_the_card_grants_nothing():
    card = PermissionCard("m", ("geolocation",), server="s")
    card.decline_button.click()
    assert card.answer.result().action == "decline"
    assert card.consent() is False
    assert permission_names(()) == "nothing"


# -- in a call ---------------------------------------------------------------------------------

async def shown(conn):
    call = conn.start_tool("wants_permissions")
    await call
    (app,) = conn.apps.shown
    return app


@pytest.mark.parametrize("press", ["allow", "decline"])
def test_the_card_comes_before_the_frame_gets_anything(frontend, press):
    async def scenario(person):
        conn = await nb_elicit.connect("perms", APPS_SERVER)
        kernel_state().history.clear()
        app = await shown(conn)
        sent = sent_by(app.frame)
        app.frame._handle_custom_msg({"kind": "html"}, [])  # (the front end asks at once)
        card = await person.wait_for_form()
        await asyncio.sleep(0.1)
        before = (list(sent), dict(app.frame.permissions), app.frame.held)
        under_app = any(card in view.asked for view in app.asks.children)
        if press == "allow":
            card.boxes["clipboardWrite"].value = False
            card.allow_button.click()
        else:
            card.decline_button.click()
        await app._permissions_task
        await asyncio.sleep(0.05)
        left = all(card not in view.asked for view in app.asks.children)
        return app, card, before, under_app, sent, list(kernel_state().history.entries), left

    app, card, before, under_app, sent, history, left = drive(scenario)
    assert isinstance(card, PermissionCard) and under_app
    # (usb: unknown, left out; the microphone is never offered, and one line says so)
    assert list(card.boxes) == ["geolocation", "clipboardWrite"]
    assert card.not_offered == ("microphone",)
    assert before == ([], {}, True)  # (no HTML, nothing granted, while the card waits)
    # (then the HTML; the teardown is drive()'s closing the connection)
    assert [m for m in sent if m["kind"] == "html"] == [{"kind": "html",
                                                         "html": app.resource.html}]
    said = "\n".join(entry.text for entry in app.view.notices.entries)
    # (what the person chose is said once: by the call's log; the card answered leaves)
    assert left
    (entry,) = [e for e in history if e.server == "perms"]
    assert entry.answered_by == AnsweredBy.PERSON
    if press == "allow":
        assert app.frame.permissions == {"geolocation": {}} and app.granted == ("geolocation",)
        assert "You gave the app: your location." in said
        assert (entry.action, entry.content) == ("accept", {"granted": ["geolocation"]})
    else:
        assert app.frame.permissions == {} and app.granted == ()
        assert "The app runs with no permission." in said
        assert entry.action == "decline"


def test_a_respond_policy_never_grants_a_permission(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("perms", APPS_SERVER)
        kernel_state().policies.per_connection["perms"] = parse_policy("accept {}", "test")
        kernel_state().history.clear()
        app = await shown(conn)
        await app._permissions_task
        return app, person.seen, list(kernel_state().history.entries)

    app, seen, history = drive(scenario)
    assert seen == [] and app.frame.permissions == {} and not app.frame.held
    (entry,) = [e for e in history if e.server == "perms"]
    assert (entry.action, entry.answered_by) == ("cancel", AnsweredBy.POLICY_PERMISSION)


def test_an_app_that_ends_while_its_card_waits_is_given_nothing(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("perms", APPS_SERVER)
        app = await shown(conn)
        await person.wait_for_form()
        app.end("gone")
        with pytest.raises(asyncio.CancelledError):
            await app._permissions_task
        return app

    app = drive(scenario)
    assert app.frame.permissions == {} and app.frame.held


def test_headless_no_app_is_shown_so_nothing_is_granted():
    async def scenario(person):
        conn = await nb_elicit.connect("perms", APPS_SERVER)
        result = await conn.call_tool("wants_permissions")
        return conn.apps.shown, result, person.seen

    shown_apps, result, seen = drive(scenario)
    assert shown_apps == [] and seen == [] and result.app is None


def test_an_app_that_asks_only_for_the_camera_starts_at_once_and_a_line_says_why_not(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("perms", APPS_SERVER)
        await conn.start_tool("wants_camera")
        (app,) = conn.apps.shown
        sent = sent_by(app.frame)
        app.frame._handle_custom_msg({"kind": "html"}, [])
        return app, sent, person.seen

    app, sent, seen = drive(scenario)
    assert seen == [] and not app.frame.held and app.frame.permissions == {}
    # (not held: the HTML went with the frame, unasked; a later ask is told it is gone)
    assert [m for m in sent if m["kind"] == "html"] == [{"kind": "html", "gone": True}]
    said = "\n".join(entry.text for entry in app.view.notices.entries)
    assert ("The app asked for your camera, which nb_elicit does not offer: the browser never "
            "lets an app's frame use them.") in said
