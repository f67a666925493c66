"""The way to the first form stays short: ``%load_ext`` and the first connect import neither
jsonschema (about a second of CPU where rfc3987-syntax is installed, a thread that would hold
the GIL against the SDK's import and the connect) nor what only Submit or sign-in needs; and a
Submit checks a form without jsonschema (each field checks its own value), so the first one
never waits for that import.

No timing is asserted: only what was imported or started, with generous timeouts.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.frontend import Frontend
from helpers.servers import Journal

pytestmark = pytest.mark.timeout(180)

CELL = 60
TESTS = Path(__file__).parent


def fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; the JSON of its last line of output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# -- what the way to the first form imports ----------------------------------------------------


def test_load_ext_and_the_connection_module_import_nothing_only_submit_or_sign_in_needs():
    found = fresh(
        "import json, sys, threading\n"
        "from IPython.testing import globalipapp\n"
        "globalipapp.start_ipython()\n"
        "globalipapp.get_ipython().run_line_magic('load_ext', 'nb_elicit')\n"
        "for th in threading.enumerate():\n"
        "    if th.name == 'nb_elicit-prewarm': th.join(100)\n"  # (it imports the SDK)
        "import nb_elicit._runtime.connection\n"
        "print(json.dumps({'modules': sorted(m for m in ('jsonschema', 'rfc3987_syntax', "
        "'email_validator', 'rfc3986_validator', 'jwt') if m in sys.modules), "
        "'sdk': 'mcp' in sys.modules, "
        "'threads': sorted(th.name for th in threading.enumerate())}))")
    assert found["sdk"]  # the background import of the SDK did run
    assert found["modules"] == []
    assert "nb_elicit-validate-warm-up" not in found["threads"]  # nor under way


def test_a_client_credentials_connection_gets_the_sdks_provider_all_the_same(monkeypatch):
    # (its class is made on first use, since the SDK's extension imports PyJWT)
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    from nb_elicit._core.signin.auth import parse_auth
    from nb_elicit._mcp import auth as _mcp
    from nb_elicit._runtime.signin import SignIn

    monkeypatch.setenv("SVC_SECRET", "not-a-real-secret")
    url = "http://127.0.0.1:9/mcp"
    config = parse_auth("client_credentials", client_id="svc", client_secret_env="SVC_SECRET",
                        store="memory")
    provider = _mcp.oauth_provider(url, SignIn("batch", url, config, lambda: None))
    assert isinstance(provider, ClientCredentialsOAuthProvider)
    assert isinstance(provider, _mcp._Restoring)  # (stored tokens come back with their expiry)
    assert type(provider) is _mcp._headless_provider("secret")


# -- Submit in a fresh interpreter ----------------------------------------------------------------

#: Fill a fresh form, press Submit: the errors shown, and the answer if one was sent. Run here
#: and in a fresh interpreter (as source text, so that one imports only what it needs).
SUBMIT = """
from helpers.fill import fill
from nb_elicit import ElicitationForm

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "age": {"type": "integer", "minimum": 18},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "Three capitals."},
    },
    "required": ["name", "email"],
}
BAD = {"name": "A", "email": "nope", "site": "example.com", "age": "17", "code": "abc"}
GOOD = {"name": "Al", "email": "al@example.com", "site": "https://example.com", "age": "18",
        "code": "ABC"}

def submit(content):
    form = ElicitationForm("Tell us", SCHEMA, server="demo")
    fill(form, content)
    form.submit_button.click()
    errors = {n: (c.error_text or "") for n, c in form.controls.items() if (c.error_text or "")}
    sent = form.answer.result(timeout=0).content if form.answer.done() else None
    return {"errors": errors, "sent": sent}
"""


def test_a_submit_in_a_fresh_interpreter_is_checked_the_same_without_jsonschema():
    # Checked exactly like here, where jsonschema may well be imported by other tests.
    cold = fresh(
        f"import json, sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        f"{SUBMIT}\n"
        "checked = {'bad': submit(BAD), 'good': submit(GOOD)}\n"
        "print(json.dumps({**checked, 'jsonschema': 'jsonschema' in sys.modules}))")
    here: dict = {}
    exec(SUBMIT, here)
    submit, good, bad = here["submit"], here["GOOD"], here["BAD"]
    assert submit(good)["sent"] is not None
    assert cold["jsonschema"] is False
    assert cold["bad"] == submit(bad)
    assert set(cold["bad"]["errors"]) == {"name", "email", "site", "age", "code"}
    assert cold["bad"]["sent"] is None
    assert cold["good"] == submit(good)
    assert cold["good"]["sent"] == {"name": "Al", "email": "al@example.com",
                                    "site": "https://example.com", "age": 18, "code": "ABC"}


# -- the SDK's check of a tool's structured result ------------------------------------------------

RESULT = """
import asyncio, json, sys, threading
from nb_elicit._core.types import StdioTarget
from nb_elicit._mcp.jsonschema_import import jsonschema_imported
from nb_elicit._mcp import Era, ServerSession
import nb_elicit._mcp.sdk_patches

# (as for an output schema that needs jsonschema: the demo's need none, see test_validate.py)
nb_elicit._mcp.sdk_patches.plainly_valid = lambda schema, value: False

seen = {"importers": [], "turns": 0}

class Watch:  # (finds nothing: notes who imports jsonschema, and the loop's turns till then)
    def find_spec(self, name, path=None, target=None):
        if name == "jsonschema":
            seen["importers"].append(threading.current_thread().name)
            seen["turns_at_start"] = seen["turns"]

sys.meta_path.insert(0, Watch())

async def ticks():
    while True:
        seen["turns"] += 1
        await asyncio.sleep(0.005)

class Nobody:  # (the session's ServerRequests: "hello" asks nothing, runs no task)
    sign_in = None
    def completed(self, elicitation_id): pass
    def ended(self): pass
    async def elicit(self, request): raise AssertionError(request)
    async def follow(self, task): raise AssertionError(task)

async def main():
    ticker = asyncio.create_task(ticks())
    session = await ServerSession.open(StdioTarget((sys.executable, "-m", "nb_elicit.demo")),
                                       Era.HANDSHAKE, Nobody())
    before = "jsonschema" in sys.modules
    first = await session.call_tool("hello", {"name": "Ada"})
    turns_at_end = seen["turns"]
    second = await session.call_tool("hello", {})
    await session.close()
    ticker.cancel()
    return {"before": before, "importers": seen["importers"],
            "turns_while_importing": turns_at_end - seen.get("turns_at_start", turns_at_end),
            "results": [first.structured, second.structured],
            "done": jsonschema_imported().done()}

print(json.dumps(asyncio.run(main())))
"""


def test_a_structured_tool_result_waits_for_jsonschema_without_stopping_the_event_loop():
    # The SDK checks it against the tool's output schema with jsonschema, which it would import
    # on the loop: about a second in which a kernel answers nothing (a withdrawn form stayed
    # open that long). For a schema that needs it, nb_elicit imports it on a thread, once, and
    # the result waits for that.
    found = fresh(RESULT)
    assert found["before"] is False  # (the connect did not import it)
    assert found["importers"] == ["nb_elicit-jsonschema"]
    assert found["turns_while_importing"] > 0  # the loop went on turning meanwhile
    assert found["results"] == [{"result": "Hello, Ada!"}, {"result": "Hello, world!"}]
    assert found["done"] is True


def test_the_jsonschema_import_is_started_once_and_is_done_where_it_already_was():
    from nb_elicit._mcp.jsonschema_import import jsonschema_imported

    found = fresh(
        "import json, sys, threading\n"
        "from nb_elicit._mcp.jsonschema_import import jsonschema_imported\n"
        "first, second = jsonschema_imported(), jsonschema_imported()\n"
        "first.result(timeout=100)\n"
        "print(json.dumps({'same': first is second, 'imported': 'jsonschema' in sys.modules}))")
    assert found == {"same": True, "imported": True}
    import jsonschema  # noqa: F401 - here it is imported: the future is done at once

    assert jsonschema_imported().done()


# -- in a real kernel ---------------------------------------------------------------------------

STATE = ("import sys, json\n"
         "print(json.dumps({'jsonschema': 'jsonschema' in sys.modules}))")


def state(fe, msg_id: str) -> dict:
    reply = fe.wait_reply(msg_id, CELL)
    assert reply["status"] == "ok", fe.outputs(msg_id)
    return json.loads(fe.stdout(msg_id).strip().splitlines()[-1])


def load_and_connect(fe, journal: Journal) -> str:
    """Load nb_elicit and connect the demo server (cells sent at once, as "Run all" does: no
    idle moment between them); the connect cell's message id."""
    fe.execute("%load_ext nb_elicit")
    command = f"{sys.executable} -m nb_elicit.demo --journal {journal.path}"
    return fe.execute(f"%mcp connect demo -- {command}")


@pytest.mark.blocking_kernel
def test_in_a_kernel_load_and_connect_leave_jsonschema_alone(tmp_path):
    with Frontend.start() as fe:
        connect = load_and_connect(fe, Journal(tmp_path / "journal.jsonl"))
        after = fe.execute(STATE)
        assert fe.wait_reply(connect, CELL)["status"] == "ok", fe.outputs(connect)
        assert state(fe, after) == {"jsonschema": False}
        fe.pump_for(1.0)  # (an idle moment: nothing starts it in the background either)
        assert state(fe, fe.execute(STATE)) == {"jsonschema": False}


@pytest.mark.blocking_kernel
def test_in_a_kernel_a_submit_as_soon_as_the_first_form_shows_is_checked(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    with Frontend.start() as fe:
        load_and_connect(fe, journal)
        call = fe.execute("%mcp call demo contact_info")
        (email,) = fe.wait_for(lambda: fe.find("nb-elicit-field-email"), CELL, "the form")
        name = fe.find("nb-elicit-field-name")[0]
        fe.type_text(name, "Ada")
        fe.type_text(email, "nope")
        assert fe.flush(timeout=CELL), fe.stalled()
        fe.click(fe.find("nb-elicit-submit")[0])
        # (a field's problem shows in its label: the input's description)
        error = fe.wait_for(
            lambda: [d for d in [fe.models[email].state.get("description", "")]
                     if "nb-elicit-error-text" in d], CELL, "the email's error")
        assert any("Enter an email address" in text for text in error), error
        assert all("action" not in e for e in journal.entries())  # nothing was sent
        fe.set_value(email, "")
        fe.type_text(email, "ada@example.com")
        assert fe.flush(timeout=CELL), fe.stalled()
        fe.click(fe.find("nb-elicit-submit")[0])
        assert fe.wait_reply(call, CELL)["status"] == "ok", fe.outputs(call)
        answers = [(e["action"], e["content"]) for e in journal.entries() if "action" in e]
        assert answers == [("accept", {"name": "Ada", "email": "ada@example.com"})]
        assert state(fe, fe.execute(STATE)) == {"jsonschema": False}  # (nor did the Submits)
