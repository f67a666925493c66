"""The way to the first form stays short: ``%load_ext`` and the first connect import neither
jsonschema (about a second of CPU where rfc3987-syntax is installed, a thread that would hold
the GIL against the SDK's import and the connect) nor what only Submit or sign-in needs. The
validator is made at a quiet moment instead (``_runtime/warmup.py``): the kernel idle after a
connection is up, or a form shown; a Submit that comes first waits for it and is checked the
same.

No timing is asserted: only what was imported or started, with generous timeouts.
"""

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.frontend import Frontend
from helpers.servers import Journal
from IPython.core.events import EventManager, available_events

from nb_elicit._runtime import warmup

pytestmark = pytest.mark.timeout(180)

CELL = 60
TESTS = Path(__file__).parent


def fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; the JSON of its last line of output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# -- when the validator is made --------------------------------------------------------------


class Shell:
    """What the idle watch uses of an IPython shell: its events."""

    def __init__(self):
        self.events = EventManager(self, available_events)

    def registered(self) -> list:
        return self.events.callbacks["pre_run_cell"] + self.events.callbacks["post_run_cell"]


@pytest.fixture
def watched(monkeypatch):
    """A fake shell for the idle watch, a short idle time, and warm-ups counted, not made."""
    shell = Shell()
    made: list[float] = []
    monkeypatch.setattr(warmup, "_shell", lambda: shell)
    monkeypatch.setattr(warmup, "IDLE", 0.05)
    monkeypatch.setattr(warmup, "warm_up", lambda: made.append(time.monotonic()))
    monkeypatch.setattr(warmup, "warming_or_warm", lambda: bool(made))
    monkeypatch.setattr(warmup, "_watch", None)
    return shell, made


def test_the_validator_is_made_once_the_kernel_is_idle_after_a_cell(watched):
    shell, made = watched

    async def scenario():
        warmup.when_idle()
        warmup.when_idle()  # (once is enough)
        assert len(shell.registered()) == 2
        shell.events.trigger("post_run_cell", None)  # the connect's cell ends...
        await asyncio.sleep(0.01)
        shell.events.trigger("pre_run_cell", None)  # ...and the next one starts at once
        await asyncio.sleep(0.3)
        assert made == []  # not while a cell runs
        shell.events.trigger("post_run_cell", None)
        await asyncio.sleep(0.3)
        assert len(made) == 1

    asyncio.run(scenario())
    assert shell.registered() == []  # and the watch is gone
    assert warmup._watch is None


def test_a_form_shown_first_makes_the_validator_and_ends_the_idle_watch(watched):
    shell, made = watched

    async def scenario():
        warmup.when_idle()
        shell.events.trigger("pre_run_cell", None)  # a cell that calls a tool
        warmup.after_shown()
        assert made == []  # a moment later, not at once
        await asyncio.sleep(warmup.AFTER_SHOWN + 0.3)
        assert len(made) == 1
        shell.events.trigger("post_run_cell", None)

    asyncio.run(scenario())
    assert len(made) == 1
    assert shell.registered() == []


def test_unloading_stops_the_idle_watch(watched):
    shell, made = watched

    async def scenario():
        warmup.when_idle()
        shell.events.trigger("post_run_cell", None)
        warmup.cancel()
        await asyncio.sleep(0.3)

    asyncio.run(scenario())
    assert made == []
    assert shell.registered() == []


def test_outside_ipython_nothing_waits_for_idle(watched, monkeypatch):
    monkeypatch.setattr(warmup, "_shell", lambda: None)
    warmup.when_idle()
    assert warmup._watch is None


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

    from nb_elicit import _mcp
    from nb_elicit._core.auth import parse_auth
    from nb_elicit._runtime.signin import SignIn

    monkeypatch.setenv("SVC_SECRET", "not-a-real-secret")
    url = "http://127.0.0.1:9/mcp"
    config = parse_auth("client_credentials", client_id="svc", client_secret_env="SVC_SECRET",
                        store="memory")
    provider = _mcp._oauth_provider(url, SignIn("batch", url, config, lambda: None))
    assert isinstance(provider, ClientCredentialsOAuthProvider)
    assert isinstance(provider, _mcp._Restoring)  # (stored tokens come back with their expiry)
    assert type(provider) is _mcp._credentials_provider()


def test_making_the_validator_imports_the_format_checks_libraries_too():
    # (so that the first Submit after the warm-up imports nothing)
    found = fresh(
        "import json, sys\nfrom nb_elicit._core import validate\n"
        "libraries = ('email_validator', 'rfc3986_validator')\n"
        "before = [m for m in libraries if m in sys.modules]\n"
        "validate._jsonschema()\n"
        "print(json.dumps([before, [m for m in libraries if m in sys.modules]]))")
    assert found == [[], ["email_validator", "rfc3986_validator"]]


# -- Submit before the validator is made --------------------------------------------------------

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
    errors = {n: c.error.value for n, c in form.controls.items() if c.error.value}
    sent = form.answer.result(timeout=0).content if form.answer.done() else None
    return {"errors": errors, "sent": sent}
"""


def test_a_submit_before_the_validator_is_made_is_checked_the_same():
    # In a fresh interpreter nothing has made the validator: Submit makes it, and must be
    # checked exactly like here, where it has been made (submit(GOOD) makes sure).
    cold = fresh(
        f"import json, sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from nb_elicit._core import validate\n"
        "before = {'jsonschema': 'jsonschema' in sys.modules, "
        "'warming': validate.warming_or_warm()}\n"
        f"{SUBMIT}\n"
        "print(json.dumps({'before': before, 'bad': submit(BAD), 'good': submit(GOOD)}))")
    here: dict = {}
    exec(SUBMIT, here)
    submit, good, bad = here["submit"], here["GOOD"], here["BAD"]
    assert submit(good)["sent"] is not None
    assert cold["before"] == {"jsonschema": False, "warming": False}
    assert cold["bad"] == submit(bad)
    assert set(cold["bad"]["errors"]) == {"name", "email", "site", "age", "code"}
    assert cold["bad"]["sent"] is None
    assert cold["good"] == submit(good)
    assert cold["good"]["sent"] == {"name": "Al", "email": "al@example.com",
                                    "site": "https://example.com", "age": 18, "code": "ABC"}


# -- in a real kernel ---------------------------------------------------------------------------

STATE = ("import sys, threading, json\nfrom nb_elicit._core import validate\n"
         "print(json.dumps({'jsonschema': 'jsonschema' in sys.modules, "
         "'warming': validate.warming_or_warm()}))")


def state(fe, msg_id: str) -> dict:
    reply = fe.wait_reply(msg_id, CELL)
    assert reply["status"] == "ok", fe.outputs(msg_id)
    return json.loads(fe.stdout(msg_id).strip().splitlines()[-1])


@pytest.mark.blocking_kernel
def test_in_a_kernel_load_and_connect_leave_jsonschema_alone_until_it_is_idle(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    command = f"{sys.executable} -m nb_elicit.demo --journal {journal.path}"
    with Frontend.start() as fe:
        # Sent at once, as "Run all" does: no idle moment between them.
        fe.execute("%load_ext nb_elicit")
        connect = fe.execute(f"%mcp connect demo -- {command}")
        after = fe.execute(STATE)
        assert fe.wait_reply(connect, CELL)["status"] == "ok", fe.outputs(connect)
        assert state(fe, after) == {"jsonschema": False, "warming": False}
        # Idle now: the validator is made in the background.
        deadline = time.monotonic() + CELL
        while not (now := state(fe, fe.execute(STATE)))["warming"]:
            assert time.monotonic() < deadline, now
            fe.pump_for(1.0)


@pytest.mark.blocking_kernel
def test_in_a_kernel_a_submit_as_soon_as_the_first_form_shows_is_checked(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    command = f"{sys.executable} -m nb_elicit.demo --journal {journal.path}"
    with Frontend.start() as fe:
        fe.execute("%load_ext nb_elicit")
        fe.execute(f"%mcp connect demo -- {command}")
        call = fe.execute("%mcp call demo contact_info")
        (email,) = fe.wait_for(lambda: fe.find("nb-elicit-field-email"), CELL, "the form")
        name = fe.find("nb-elicit-field-name")[0]
        fe.type_text(name, "Ada")
        fe.type_text(email, "nope")
        assert fe.flush(timeout=CELL), fe.stalled()
        fe.click(fe.find("nb-elicit-submit")[0])
        error = fe.wait_for(lambda: [fe.value(m) for m in fe.find("nb-elicit-error")
                                     if fe.value(m)], CELL, "the email's error")
        assert any("Enter an email address" in text for text in error), error
        assert all("action" not in e for e in journal.entries())  # nothing was sent
        fe.set_value(email, "")
        fe.type_text(email, "ada@example.com")
        assert fe.flush(timeout=CELL), fe.stalled()
        fe.click(fe.find("nb-elicit-submit")[0])
        assert fe.wait_reply(call, CELL)["status"] == "ok", fe.outputs(call)
        answers = [(e["action"], e["content"]) for e in journal.entries() if "action" in e]
        assert answers == [("accept", {"name": "Ada", "email": "ada@example.com"})]
