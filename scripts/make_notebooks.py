"""Write the server notebooks: quickstart, field-gallery, remote-http, configs, sign-in, tasks,
apps, agents (outputs stripped).

    python scripts/make_notebooks.py           # (re)write them in notebooks/
    python scripts/make_notebooks.py --check   # exit 1 if a written notebook is out of date

The notebooks are committed; edit them here, not in JupyterLab, so that they stay reproducible.
(form-gallery.ipynb, the forms without a server, is kept by hand and not written here.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

#: Where the notebooks are written: the repository's notebooks/ folder.
HERE = Path(__file__).resolve().parent.parent / "notebooks"
#: What JupyterLab itself writes for ipykernel's ``python3`` kernel, so that opening a notebook
#: leaves it unmodified. Only the Python version is left out (a committed file cannot know the
#: kernel's); ``scripts/lab_workdir.py`` adds it to the copies that ``scripts/lab.sh`` opens.
METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                   "name": "python3"},
    "language_info": {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
    },
}


def md(text: str) -> tuple[str, str]:
    return ("markdown", text.strip("\n"))


def code(text: str) -> tuple[str, str]:
    return ("code", text.strip("\n"))


def notebook(stem: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook(metadata=METADATA)
    for index, (kind, source) in enumerate(cells):
        make = new_markdown_cell if kind == "markdown" else new_code_cell
        nb.cells.append(make(source, id=f"{stem}-{index:02d}"))
    nbformat.validate(nb)
    return nb


WIDTH = 97  # ruff's line length (100) less the " \\" that continues a line


def _json_lines(prefix: str, value, suffix: str, indent: str) -> list[str]:
    """``value`` as JSON on one line if that fits, else one item per line."""
    flat = indent + prefix + json.dumps(value, ensure_ascii=False) + suffix
    if len(flat) <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return [flat]
    items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    opening, closing = "{}" if isinstance(value, dict) else "[]"
    lines = [indent + prefix + opening]
    for index, (key, item) in enumerate(items):
        key_prefix = "" if key is None else json.dumps(key) + ": "
        comma = "," if index < len(items) - 1 else ""
        lines += _json_lines(key_prefix, item, comma, indent + "    ")
    return lines + [indent + closing + suffix]


def custom_form(message: str, schema: dict, server: str = "demo") -> str:
    """``%mcp call SERVER custom_form {...}`` with one schema property per line.

    IPython joins backslash-continued lines into one before the magic sees them.
    """
    opening = f"%mcp call {server} custom_form {{\"message\": {json.dumps(message)}, "
    lines = [opening + '"requested_schema": {']
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in schema.items()
                     if k != "properties")
    lines.append(f'    {head}, "properties": {{')
    properties = list(schema["properties"].items())
    for index, (name, prop) in enumerate(properties):
        last = index == len(properties) - 1
        lines += _json_lines(json.dumps(name) + ": ", prop, "}}}" if last else ",", "        ")
    assert all(len(line) <= WIDTH for line in lines), lines
    text = " \\\n".join(lines)
    # The magic receives the lines joined: make sure that is the JSON we mean.
    joined = text.split(" custom_form ", 1)[1].replace("\\\n", " ")
    assert json.loads(joined) == {"message": message, "requested_schema": schema}, text
    return text


# -- quickstart ---------------------------------------------------------------------------------

QUICKSTART = [
    md("""
# Quickstart: a server asks, you answer

An MCP server can stop in the middle of a tool call and ask *you* something: a short message
and a small form. This is called **elicitation**. `nb_elicit` shows that form right here, in the
cell that made the call, and sends the server exactly what you entered.

Run the cells one at a time, from top to bottom (**Shift+Enter**).
"""),
    md("""
## 1. Load the extension

`%load_ext nb_elicit` adds the `%mcp` command to this notebook (`%mcp help` lists everything it
can do). `%mcp` works from the next cell on, so load the extension in a cell of its own.
"""),
    code("""
import sys

import nb_elicit

%load_ext nb_elicit
print("This kernel runs", sys.executable)
"""),
    md("""
## 2. Start the demo server and connect to it

nb_elicit comes with a small demo server. The next cell starts it as a subprocess of this kernel
and connects to it under the name `demo`. Everything after `--` is the command that starts the
server: `{sys.executable}` is replaced by this kernel's own Python (printed above), so the server
runs with the nb_elicit you just loaded.
"""),
    code("%mcp connect demo -- {sys.executable} -m nb_elicit.demo"),
    md("""
## 3. See what it offers

Every tool with its description. Most of them ask you something while they run.
"""),
    code("%mcp tools demo"),
    md("""
## 4. Answer a form

`contact_info` asks for your contact details. Run the next cell and a form appears under it,
headed *Please provide your contact information*:

1. In **name**, type your name, for example `Ada Lovelace`.
2. In **email**, type an email address, for example `ada@example.com`.
3. In **age**, type a number of at least 18, for example `36`. Age is optional: leave it empty
   and it is not sent at all.
4. Press **Submit**.

Submit checks the form first. A missing name, an email such as `ada@`, or an age of `17` shows a
message under the field; everything you typed stays, and nothing is sent until you fix it and
press Submit again.

Instead of Submit you can press **Decline** (you say no: the server receives `decline`) or
**✕** (you dismiss the question: the server receives `cancel`).

The cell waits while the form is open. Once you answer, the form locks and says what happened,
and the tool's result appears below it. The demo server's tools return exactly what they
received, so the result shows your answer as the server got it, for example
`{"action": "accept", "content": {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}}`.
"""),
    code("%mcp call demo contact_info"),
    md("""
## 5. The same from Python

`%mcp` is a shortcut for nb_elicit's Python API. `nb_elicit.connections["demo"]` is the
connection made above, and `call_tool` works the same way: the form appears in this cell, and
`await` waits for the tool's result.

`github_username` asks for one thing: type a username (say `ada`) and press **Submit**, or just
Enter. The server answers `Hello, @ada!`.
"""),
    code("""
result = await nb_elicit.connections["demo"].call_tool("github_username")
result.text
"""),
    md("""
`result` keeps the tool's result for later: `result.text` is its text, `result.structured` its
structured content (if any), and `result.is_error` tells whether the tool failed.

## 6. A web page instead of a form

For sign-ins, payments and API keys, a server must not use a form: it asks you to open a page
of its own (URL mode). `sign_in` does that. A card shows who asks, the site's address in large
letters and the full URL. Nothing is opened or loaded until you press **Open**: that tells the
server you agree, and only then does a link appear, which opens the page in a new tab. The
demo's page is `https://example.com/...`, so there is nothing to sign in to there.
"""),
    code("%mcp call demo sign_in"),
    md("""
## 7. What was asked, and how it was answered

`%mcp history` lists every question this kernel has seen, newest last.
"""),
    code("%mcp history"),
    md("""
## 8. When nobody is there to click

When a notebook runs without a person (papermill, nbconvert, CI), tell nb_elicit how to answer:
`%mcp respond demo decline` in the notebook, or the environment variable `NB_ELICIT_RESPOND`,
for example `NB_ELICIT_RESPOND='accept {"name": "Ada", "email": "ada@example.com"}'`.
Without one, a form that has no screen to appear on is answered `cancel` after 10 seconds
(`NB_ELICIT_HEADLESS_WAIT`), and the cell says why.

## 9. Disconnect

This closes the connection and stops the demo server.
"""),
    code("%mcp disconnect demo"),
    md("""
## Where next

- [field-gallery.ipynb](field-gallery.ipynb): every kind of field a server may ask for, and what
  it receives.
- [remote-http.ipynb](remote-http.ipynb): a server reached over HTTP instead of a subprocess.
- [sign-in.ipynb](sign-in.ipynb): a server that asks you to sign in first.
- [tasks.ipynb](tasks.ipynb): long calls the server runs as tasks: their card, questions asked
  inside them, Cancel task and Detach.
- [apps.ipynb](apps.ipynb): a tool that comes with its own small interface (an MCP App).
- [form-gallery.ipynb](form-gallery.ipynb): the forms on their own, without any server.
"""),
]

# -- field gallery ------------------------------------------------------------------------------

TEXT = {
    "type": "object",
    "required": ["name", "email"],
    "properties": {
        "name": {"type": "string", "title": "Full name", "minLength": 2, "maxLength": 60},
        "username": {"type": "string", "title": "Username", "pattern": "^[a-z0-9-]+$",
                     "description": "Lower-case letters, digits and dashes."},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "homepage": {"type": "string", "format": "uri", "title": "Homepage"},
        "birthday": {"type": "string", "format": "date", "title": "Birthday"},
        "meeting": {"type": "string", "format": "date-time", "title": "Meeting time"},
    },
}

NUMBERS = {
    "type": "object",
    "required": ["age"],
    "properties": {
        "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 130},
        "budget": {"type": "number", "title": "Budget (EUR)", "minimum": 0},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12},
    },
}

BOOLEANS = {
    "type": "object",
    "required": ["agree"],
    "properties": {
        "agree": {"type": "boolean", "title": "I agree to the terms"},
        "newsletter": {"type": "boolean", "title": "Send me the newsletter", "default": True},
        "beta": {"type": "boolean", "title": "Join the beta"},
    },
}

SINGLE = {
    "type": "object",
    "required": ["fruit"],
    "properties": {
        "fruit": {"type": "string", "title": "Fruit", "enum": ["apple", "pear", "plum"]},
        "size": {"type": "string", "title": "T-shirt size", "enum": ["s", "m", "l"],
                 "enumNames": ["Small", "Medium", "Large"]},
        "plan": {"type": "string", "title": "Plan", "oneOf": [
            {"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]},
    },
}

MULTI = {
    "type": "object",
    "required": ["days"],
    "properties": {
        "toppings": {"type": "array", "title": "Toppings (up to 2)", "maxItems": 2,
                     "items": {"type": "string", "enum": ["cheese", "ham", "olives"]}},
        "days": {"type": "array", "title": "Days (at least 1)", "minItems": 1, "items": {
            "anyOf": [{"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"},
                      {"const": "wed", "title": "Wednesday"}]}},
    },
}

DEFAULTS = {
    "type": "object",
    "properties": {
        "nickname": {"type": "string", "title": "Nickname", "default": "Ada"},
        "party": {"type": "integer", "title": "Party size", "minimum": 1, "default": 2},
        "reminder": {"type": "boolean", "title": "Remind me", "default": True},
        "room": {"type": "string", "title": "Room", "enum": ["small", "large"],
                 "default": "small"},
        "menu": {"type": "array", "title": "Courses", "default": ["starter", "main"],
                 "items": {"type": "string", "enum": ["starter", "main", "dessert"]}},
        "day": {"type": "string", "format": "date", "title": "Day", "default": "2026-07-28"},
    },
}

REFUSED = {
    "type": "object",
    "properties": {
        "address": {"type": "object", "properties": {"street": {"type": "string"}}},
    },
}

FIELD_GALLERY = [
    md("""
# Field gallery: every kind of field, asked by a real server

Each cell below makes the demo server ask a question, with one kind of field or a group of kinds.
Fill the form in and press **Submit** (or **Decline**, or **✕** to dismiss). The demo server
returns exactly what it received, so the result under each form is the answer as it arrived.

Two rules hold everywhere: a field you leave untouched is **not sent** (nothing invents `""`,
`0`, `false` or `null`), and a default you were shown is sent as it was, unless you change it.

([form-gallery.ipynb](form-gallery.ipynb) shows the same forms without any server.)
"""),
    code("""
import sys

%load_ext nb_elicit
print("This kernel runs", sys.executable)
"""),
    code("%mcp connect demo -- {sys.executable} -m nb_elicit.demo"),
    md("""
## Everything at once: `all_fields`

The demo's `all_fields` tool asks for one field of every kind. Only **Full name** and **Email**
are required: fill in just those two, press Submit, and the server receives
`{"action": "accept", "content": {"name": "Ada Lovelace", "email": "ada@example.com"}}`.
"""),
    code("%mcp call demo all_fields"),
    md("""
## Your own forms: `custom_form`

`custom_form` asks with any message and schema you pass it, as JSON arguments:
`%mcp call demo custom_form {"message": "...", "requested_schema": {...}}`. The arguments are
JSON, not Python: `true` and `false`, double quotes. A backslash at the end of a line continues
the command on the next line.

### Text, and its four formats

Plain text boxes, checked on Submit against `minLength`, `maxLength` and `pattern` (try the
username `Ada!`); **Email** and **Homepage** are checked as an email address and an absolute URI;
**Birthday** is a date picker, **Meeting time** a date-time picker.

Fill in name and email only, and the server receives
`{"name": "Ada Lovelace", "email": "ada@example.com"}` as the content: the four empty fields are
left out. A date arrives as `"1815-12-10"`, a date-time as RFC 3339 text.
"""),
    code(custom_form("Tell us about yourself", TEXT)),
    md("""
### Numbers

Numbers are typed into text boxes, so an empty box means "not given". **Age** is an integer from
18 to 130: `36` arrives as `36`, while `36.5` or `17` get a message under the field instead of
being rounded or clamped. **Budget** is any number: `12.5` arrives as `12.5` and `12` as `12`.

Type `36` in Age and nothing else, and the server receives `{"age": 36}`.
"""),
    code(custom_form("A few numbers", NUMBERS)),
    md("""
### Booleans

**I agree to the terms** is required and has no default, so it is a Yes/No choice that must be
made: press Submit without choosing and a message asks you to. It is never sent as `false` by
accident. **Send me the newsletter** has the default `true`, so its box starts ticked.
**Join the beta** is optional without a default: it is sent only once you click it.

Choose Yes and press Submit, and the server receives `{"agree": true, "newsletter": true}`:
`newsletter` because you saw its default and left it, and no `beta`, because you never touched it.
"""),
    code(custom_form("A few yes/no questions", BOOLEANS)),
    md("""
### Single choice: `enum`, `enumNames`, `oneOf`

Three ways a schema lists choices, each shown as a dropdown: a plain `enum` shows the values
themselves; the legacy `enum` + `enumNames` and the titled `oneOf: [{const, title}]` show the
titles. The title is shown, the **value** is sent.

Pick pear, Large and Pro, and the server receives
`{"fruit": "pear", "size": "l", "plan": "pro"}`.
"""),
    code(custom_form("Pick one of each", SINGLE)),
    md("""
### Multiple choice: `items.enum`, `items.anyOf`, `minItems`, `maxItems`

One checkbox per choice. **Toppings** allows at most two (`maxItems`): once two are ticked, the
third is disabled. **Days** needs at least one (`minItems`), and shows titles from `anyOf`.

Tick olives, cheese, Tuesday and Monday, and the server receives
`{"toppings": ["cheese", "olives"], "days": ["mon", "tue"]}`: lists of values, in the server's
order, not in the order you clicked.
"""),
    code(custom_form("Choose any number", MULTI)),
    md("""
### Defaults

Every field here has a default, and the form starts filled in with them. Press Submit without
touching anything, and the server receives all of them exactly as it wrote them:
`{"nickname": "Ada", "party": 2, "reminder": true, "room": "small", "menu": ["starter", "main"],
"day": "2026-07-28"}`. Change one, and your value is sent instead.
"""),
    code(custom_form("Booking details (all prefilled)", DEFAULTS)),
    md("""
### A schema that cannot be shown

Elicitation allows only flat forms. When a server asks with something else, such as a nested
object, no form appears: nb_elicit answers with the JSON-RPC error `-32602` (invalid params),
names the problem in the cell, and the server receives that error (the demo returns it).
"""),
    code(custom_form("Where do you live?", REFUSED)),
    md("""
## Done

Disconnecting stops the demo server.
"""),
    code("%mcp disconnect demo"),
]

# -- remote HTTP --------------------------------------------------------------------------------

REMOTE_HTTP = [
    md("""
# A server over HTTP

MCP servers do not have to be subprocesses of the kernel: they can run anywhere and be reached
over **streamable HTTP**. This notebook starts the demo server as an HTTP server on this machine
(on `127.0.0.1`, so only this machine can reach it), connects to it by URL, answers a question,
and stops the server again.
"""),
    code("""
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

%load_ext nb_elicit
"""),
    md("""
## Start the server

Pick a free port, start `python -m nb_elicit.demo --http PORT` in the background, and wait (at
most 30 seconds) until it accepts connections. Its log goes to a temporary file.
"""),
    code("""
with socket.socket() as probe:  # the operating system picks a free port
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]

log_file = Path(tempfile.gettempdir()) / f"nb-elicit-demo-{port}.log"
with open(log_file, "w") as log:
    server = subprocess.Popen([sys.executable, "-m", "nb_elicit.demo", "--http", str(port)],
                              stdout=log, stderr=subprocess.STDOUT)

deadline = time.monotonic() + 30
while True:
    if server.poll() is not None:
        raise RuntimeError(f"the demo server exited early:\\n{log_file.read_text()}")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            server.terminate()
            raise TimeoutError(f"the demo server did not listen on port {port}") from None
        time.sleep(0.2)

url = f"http://127.0.0.1:{port}/mcp"
print("The demo server is listening at", url)
"""),
    md("""
## Connect by URL

`{url}` is replaced by the value of the variable `url`. A server that needs a token gets it as a
header: `%mcp connect NAME --url URL --header 'Authorization: Bearer ...'`.
"""),
    code("%mcp connect remote --url {url}"),
    md("""
## Call tools

`hello` asks nothing: it just answers. `github_username` asks for a username over HTTP, exactly
as a local server would: type one (say `octocat`), press **Submit**, and the server answers
`Hello, @octocat!`.
"""),
    code('%mcp call remote hello {"name": "HTTP"}'),
    code("%mcp call remote github_username"),
    md("""
## Disconnect, then stop the server

Disconnecting closes the HTTP session. The server is ours, so we stop it too.
"""),
    code("%mcp disconnect remote"),
    code("""
server.terminate()
server.wait(timeout=10)
log_file.unlink()
print("The demo server has stopped.")
"""),
]

# -- servers from config files ------------------------------------------------------------------

CONFIGS = [
    md("""
# Servers from your config files

If you keep MCP servers in `.vscode/mcp.json`, `.mcp.json`, `.cursor/mcp.json`, Claude Desktop's
or Jupyter AI's config, nb_elicit finds them by name: no command to type. This folder has a
`.vscode/mcp.json` that names the demo server:

```json
{"servers": {"demo": {"type": "stdio", "command": "${env:NB_ELICIT_PYTHON}",
                      "args": ["-m", "nb_elicit.demo"]}}}
```

`${env:NB_ELICIT_PYTHON}` is the Python that runs this kernel (unless you set that variable), so
the server starts with the interpreter that has nb_elicit, whichever `python` is on the `PATH`.
Where nb_elicit looks, and in which order: [Server configs](../docs/configs.md).
"""),
    code("%load_ext nb_elicit"),
    md("""
## Every configured server

The file and key each one came from, its transport, and whether it is connected. (Your own
user-level configs, such as `~/.cursor/mcp.json`, are listed too.)
"""),
    code("%mcp servers"),
    md("""
## Connect by name

This `.vscode/mcp.json` is a project file: it came with the folder, not from you. So before
nb_elicit starts anything it names, a **trust card** shows here what would run (the command, its
arguments, where it runs, and each environment key with its value as written: `${env:...}` and
`${input:...}` as they are, any other text as `••••••`), with **Start**, **Don't start** and
**Not now**. Start is remembered for this entry, here, until the entry, the inputs it uses or its
env file's keys change; Don't start and Not now start nothing and remember nothing. Without a
person (nbclient, papermill), a project server starts only when you approve it (a remembered
Start does not):
`%mcp connect demo --trust`, or `NB_ELICIT_TRUST=demo` in the kernel's environment
([Trust](../docs/configs.md#trust)).

A config's `${input:...}` values (a password, say) would be asked for right here too, in a
form; the demo server needs none.
"""),
    code("%mcp connect demo"),
    md("""
## Call a tool

`github_username` asks for a username: type one, press **Submit**, and the server greets you.
"""),
    code("%mcp call demo github_username"),
    code("%mcp disconnect demo"),
]

# -- signing in ---------------------------------------------------------------------------------

SIGN_IN = [
    md("""
# Signing in to a server

Remote MCP servers often want to know who you are: they answer `401` until you sign in at their
authorization server (MCP authorization, OAuth 2.1). nb_elicit notices, and shows a **sign-in
card** in the cell that connected: which server asks, which authorization server will see you
(its host in large type) and the full address. Nothing opens until you click **Sign in**; that
one click opens the sign-in page in a new tab, and the card says what happens next: you finish
signing in there, and the cell goes on by itself. The card then says how it ended, without the
long address.

This notebook starts the demo server with a small local authorization server on `127.0.0.1`
(`python -m nb_elicit.demo --http PORT --auth`), so everything stays on this machine.

Where no one can click (nbclient, papermill, CI), a server is signed in to without a person:
with tokens kept from an earlier sign-in, or a mode such as `--auth client_credentials`
([Signing in](../docs/sign-in.md)).
"""),
    code("""
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

%load_ext nb_elicit
"""),
    md("""
## Start the server with its authorization server

Both run in one background process on a free port of `127.0.0.1`; its log goes to a temporary
file.
"""),
    code("""
with socket.socket() as probe:  # the operating system picks a free port
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]

log_file = Path(tempfile.gettempdir()) / f"nb-elicit-demo-auth-{port}.log"
with open(log_file, "w") as log:
    server = subprocess.Popen(
        [sys.executable, "-m", "nb_elicit.demo", "--http", str(port), "--auth"],
        stdout=log, stderr=subprocess.STDOUT)

deadline = time.monotonic() + 30
while True:
    if server.poll() is not None:
        raise RuntimeError(f"the demo server exited early:\\n{log_file.read_text()}")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            server.terminate()
            raise TimeoutError(f"the demo server did not listen on port {port}") from None
        time.sleep(0.2)

url = f"http://127.0.0.1:{port}/mcp"
print("The demo server (sign-in required) is listening at", url)
"""),
    md("""
## Connect, and sign in

The server answers `401`, so the sign-in card appears below. Click **Sign in**: the demo's
sign-in page opens in a new tab; click **Sign in as the demo user** there, and this cell goes
on. If that page cannot come back to the notebook (a remote notebook, Binder, JupyterHub), paste
the address it landed on into the box the card shows.

The tokens are kept per server under the Jupyter data directory (owner-only files) and
refreshed by themselves; `--token-store memory` keeps them for this kernel only.
"""),
    code("%mcp connect secured --url {url}"),
    code('%mcp call secured hello {"name": "signed-in notebook"}'),
    md("""
## Sign out

`%mcp logout` forgets the tokens; the next request asks you to sign in again.
"""),
    code("%mcp logout secured"),
    code("%mcp disconnect secured"),
    code("""
server.terminate()
server.wait(timeout=10)
log_file.unlink()
print("The demo server has stopped.")
"""),
]

# -- tasks --------------------------------------------------------------------------------------

TASK_TOOLS = [
    md("""
# Tasks: long calls you can watch, cancel and leave

A server can run a slow tool call as an MCP **task**: it answers the call at once with a task,
works on it in the background, and nb_elicit follows it until it ends. The cell that made the
call shows a **task card**: who runs what, with two buttons on the same line, the task's id, its
status as a badge (*Running*, *Needs your answer*, *Done*, *Failed*, *Cancelled*) with the
server's latest message, and how long ago it started:

- **Cancel task** asks the server to stop the task;
- **Detach** stops following it here; the task keeps running on the server, and you can come
  back to it later.

A question the server asks inside the task appears inside the card. The demo server has two
task tools: `research` and `countdown`. Run the cells from top to bottom (**Shift+Enter**).
Everything about tasks, in detail: [Tasks](../docs/tasks.md).
"""),
    code("""
import sys

import nb_elicit

%load_ext nb_elicit
print("This kernel runs", sys.executable)
"""),
    md("""
## 1. Connect the demo server
"""),
    code("%mcp connect demo -- {sys.executable} -m nb_elicit.demo"),
    md("""
## 2. A task: watch its card

`research` runs only as a task, in four stages. Run the next cell and watch the card: the badge
says *Running*, the message names each stage as the server reports it, and the clock counts.
When the task ends, the badge says *Done*, the buttons go away and the report appears under
the card. Once the call is over, the card leaves a static transcript in the cell: every status
the task went through, with its time.
"""),
    code('%mcp call demo research {"topic": "tides"}'),
    md("""
## 3. A question inside a task

With `"ambiguous": true`, `research` stops halfway to ask which of three readings of the topic
you mean. The badge turns *Needs your answer* and the question appears **inside the card**, once
(the card's status line leaves it to the form, and the card's clock is the one clock): choose
a reading in **Which do you mean?** and press **Submit**. The task goes on with your answer, and
its report says what the server received, for example
`Clarification received: {"action": "accept", "content": {"interpretation": "historical"}}`.

With nobody there to click (nbclient, papermill), a respond policy answers:
`%mcp respond demo accept {"interpretation": "historical"}` in the notebook, or
`NB_ELICIT_RESPOND` in the kernel's environment. Without one, the form is answered `cancel`
after 10 seconds, and the research goes on with the technical side.
"""),
    code('%mcp call demo research {"topic": "python", "ambiguous": true}'),
    md("""
## 4. Cancel a task

`countdown` counts down, saying each second how long is left. Run the next cell and, while it
counts, click **Cancel task** on its card: nb_elicit asks the server to cancel the task, the
server stops counting, and the card ends *Cancelled* ("the server confirmed"). Cancelling is
your choice, not an error: the card says it once, and the cell ends without a red line. (Leave
it alone, and it counts down to the end in 30 seconds.)
"""),
    code('%mcp call demo countdown {"seconds": 30}'),
    md("""
## 5. Detach, and come back

**Detach** stops following a task without stopping it: the cell ends, and the task keeps running
on the server. nb_elicit keeps its id (in an owner-only file of running tasks), so you can follow
it again later: in this kernel, or in the next one for a server that outlives this kernel (a
stdio server such as this one stops with its kernel, and its tasks with it). Run the next cell
and click **Detach** on its card while it counts down from 10.

The cell uses the Python API: `conn.start_tool(...)` starts a call without waiting and returns
it (a `ToolCall`); `await call` waits for the call's end, and raises `nb_elicit.TaskDetached`
when you detach (`nb_elicit.TaskCancelled` when you cancel; both are `nb_elicit.NbElicitError`s):
the card says so already, so the cell does not print it again. `call.task` is the task the
server runs it as (its `task_id`, `status` and `card`). `call.cancel()`, like
**Kernel → Interrupt** on a waiting cell, cancels the task on the server too.
"""),
    code("""
conn = nb_elicit.connections["demo"]
call = conn.start_tool("countdown", {"seconds": 10})
try:
    await call
except nb_elicit.TaskDetached:
    pass  # the card says so, with the line that attaches to it again
task_id = call.task.task_id
"""),
    md("""
`%mcp tasks` lists the tasks this kernel follows or followed, each with its status and age (the
countdown you left is *detached*: nb_elicit asks the server how it is now, and its age counts
from when the server created it), then the running tasks it no longer follows, each with the
line that attaches to it again. (From Python: `conn.tasks()`.)
"""),
    code("%mcp tasks"),
    md("""
`%mcp task demo ID` follows a task again, by its id (`{task_id}` is replaced by the variable set
above): a new card appears in this cell, which waits for the task's end and shows its result.
(From Python: `await conn.attach_task(task_id)`.)
"""),
    code("%mcp task demo {task_id}"),
    md("""
## 6. The same tool without a task

`countdown` can run as a task but does not have to (its task support is *optional*).
`task=False` calls it as a plain call: no task card; the server reports its progress instead,
and the cell waits for the result. (With the magic: `%mcp call demo countdown {"seconds": 2}
--no-task`.)
"""),
    code("""
result = await conn.call_tool("countdown", {"seconds": 2}, task=False)
result.text
"""),
    md("""
## Done

Disconnecting stops the demo server, and with it any task still running there.
"""),
    code("%mcp disconnect demo"),
]

# -- MCP Apps -----------------------------------------------------------------------------------

APPS = [
    md("""
# MCP Apps: a tool that brings its own small interface

An MCP server can give a tool a small web page of its own, an **MCP App** (the extension
`io.modelcontextprotocol/ui`). When you call such a tool, nb_elicit shows the app in the cell of
the call, under the tool's text result, inside a sandboxed frame: the app gets the tool's
arguments and result, and may ask nb_elicit for a few things (call a tool of the same server,
send a message, open a link). The demo server has one: `clock`.

Where no widgets show (nbconvert, papermill, a saved notebook on GitHub), no app is shown: the
cell keeps the tool's text result, as for any other tool.

Run the cells one at a time, from top to bottom (**Shift+Enter**).
"""),
    code("""
import sys

import nb_elicit

%load_ext nb_elicit
print("This kernel runs", sys.executable)
"""),
    code("%mcp connect demo -- {sys.executable} -m nb_elicit.demo"),
    md("""
## 1. Which tools come with an app

In the table, the column **app** says `app` for a tool that comes with an app (`clock`), and
`app only` for a tool meant for its app alone (`clock_now`: the clock app calls it from its
button; you may call it too).
"""),
    code("%mcp tools demo"),
    md("""
## 2. Call the tool

A line saying that an app is shown comes first, then the text result, then the app itself: the
server's time, and three buttons. What the app does is told once, as a line of the call's
output, in the order it happened (after the result).

- **Ask the server** calls `clock_now` through nb_elicit (only tools of this server that are
  meant for apps; nb_elicit refuses any other), shows the new time, and tells nb_elicit what it
  now shows (its *model context*). A line of the call says what it called.
- **Send message** sends a message (`ui/message`). nb_elicit keeps it on the call's result and
  shows it as a line of the call, as plain text.
- **Open link** asks to open https://modelcontextprotocol.io. The same consent card as for a
  server's web page appears under the app; nothing opens before you press **Open**, and then
  only the link appears, for you to click, in the call's output, where the card's answer stays.

The app runs in a frame of its own, sandboxed, without the notebook's origin: it cannot read the
notebook, its cookies or the Jupyter server, and it reaches no network (the demo's app declares
no domains).
"""),
    code('%mcp call demo clock {"label": "Kitchen"}'),
    md("""
## 3. What the app said, from Python

`call_tool` returns the result as usual. `result.app_messages` holds the messages its app sent,
as they arrive, and `result.model_context` what it last set as its context. Press the buttons of
the app below, then run the cell after it.
"""),
    code("""
result = await nb_elicit.connections["demo"].call_tool("clock", {"label": "Python"})
result.text
"""),
    code("""
print("Messages from the app:", result.app_messages)
print("Its model context:", result.model_context)
"""),
    md("""
## 4. Turn apps off, and on

`%mcp apps demo off` ends the apps shown now (each leaves a line saying so) and shows none for
later calls: their text results only. `%mcp connect NAME --no-apps ...` (or
`nb_elicit.connect(..., apps=False)`) connects without them from the start.

An app also ends by itself: when it asks to close, when its frame is closed, and when a fifth
app of the same connection comes (4 are live at most; the oldest ends). A reloaded page does
not fetch the apps again: they end there, each place saying so; call the tool again.
"""),
    code("%mcp apps demo off"),
    code("%mcp call demo clock"),
    code("%mcp apps demo on"),
    code("%mcp disconnect demo"),
    md("""
## Where next

- [quickstart.ipynb](quickstart.ipynb): a server asks you something, in a form.
- [Apps](../docs/apps.md): how apps are framed and sandboxed, and what they may ask.
"""),
]

# -- agents and other MCP clients -----------------------------------------------------------------

AGENTS = [
    md("""
# Agents and other MCP clients: their servers' questions, as forms in the cell

Agent frameworks and MCP libraries own their MCP sessions; each takes an *elicitation hook*, a
function it calls when a server asks the person something. nb_elicit gives two, named after the
parameters they plug into:

- `nb_elicit.elicitation_handler`, FastMCP's shape: `fastmcp.Client`, pydantic-ai's
  `MCPToolset`, `langchain.mcp`;
- `nb_elicit.elicitation_callback`, the SDK's shape: `mcp.Client`, ADK, strands, mcp-use.

With either, the server's question shows as the same form as on nb_elicit's own connections,
in the cell that runs, and what you submit is what the server gets. `.named("github")` labels a
server's requests for the history, `%mcp respond github ...`, recordings and the rate limit.

This notebook runs offline: the agent is driven by pydantic-ai's `TestModel` (no model, no
key), which calls the demo server's tools. Run the cells one at a time (**Shift+Enter**).

It needs FastMCP and pydantic-ai (Python 3.11 or later), which `scripts/lab.sh` and Binder
install; elsewhere, `pip install "nb-elicit[agents]"` first.
"""),
    code("""
import pathlib
import sys
import tempfile

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.test import TestModel

import nb_elicit

print("This kernel runs", sys.executable)
"""),
    md("""
## 1. A pydantic-ai agent whose tool asks you

The demo server runs over stdio, its log in a file of its own. `MCPToolset` is made as
pydantic-ai's docs make it: its own FastMCP client, in FastMCP's default mode, which speaks the
newest protocol era (2026-07-28) with the demo. Its tools ask in both eras, so the defaults
work. (A server that asks only in the handshake era, with `ctx.elicit` or `elicit_form`, needs
`MCPToolset(fastmcp.Client(transport, mode="legacy", elicitation_handler=...))`.)
"""),
    code("""
def demo_server():
    log = pathlib.Path(tempfile.gettempdir()) / "nb-elicit-agents-demo.log"
    return StdioTransport(command=sys.executable, args=["-m", "nb_elicit.demo"], log_file=log)


demo = MCPToolset(demo_server(), elicitation_handler=nb_elicit.elicitation_handler.named("demo"))
agent = Agent(TestModel(call_tools=["github_username"]), toolsets=[demo])
"""),
    md("""
Run the agent. The form appears under this cell; type a username and press **Submit**. The
agent gets the tool's result, and `TestModel` answers with it.
"""),
    code("""
async with agent:
    result = await agent.run("Who am I on GitHub?")
print(result.output)
"""),
    md("""
## 2. A 2026-07-28 tool, with the toolset's own client

`book_table` asks only the 2026-07-28 way: it returns an *input-required* result, and the
client retries with your answer, which is what the toolset's client does in that era.
"""),
    code("""
booking = Agent(TestModel(call_tools=["book_table"]),
                toolsets=[MCPToolset(demo_server(),
                                     elicitation_handler=nb_elicit.elicitation_handler.named("demo"))])
async with booking:
    result = await booking.run("Book a table for us.")
print(result.output)
"""),
    md("""
## 3. The SDK's own client

The same with `mcp.Client` and `nb_elicit.elicitation_callback`. Without a label, the form
shows the name the server gives itself as its claim (here `"nb-elicit-demo" (named by the
server)`): it selects no policy, recording or mute set for a name, so a server cannot borrow
one of yours.
"""),
    code("""
import os

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

demo_stdio = StdioServerParameters(command=sys.executable, args=["-m", "nb_elicit.demo"])
hook = nb_elicit.elicitation_callback
with open(os.devnull, "w") as errlog:
    server = stdio_client(demo_stdio, errlog=errlog)
    async with Client(server, elicitation_callback=hook) as client:
        result = await client.call_tool("contact_info")
print(result.content[0].text)
"""),
    md("""
## 4. What was asked, and who answered

Every request is in the history, labelled as above.
"""),
    code("""
%load_ext nb_elicit
%mcp history
"""),
    md("""
## Where next

- [Agents and other clients](../docs/agents.md): one line per framework, timeouts, threads.
- [quickstart.ipynb](quickstart.ipynb): nb_elicit's own connections.
"""),
]

NOTEBOOKS = {
    "quickstart": QUICKSTART,
    "field-gallery": FIELD_GALLERY,
    "remote-http": REMOTE_HTTP,
    "configs": CONFIGS,
    "sign-in": SIGN_IN,
    "tasks": TASK_TOOLS,
    "apps": APPS,
    "agents": AGENTS,
}


def build() -> dict[Path, str]:
    texts = {}
    for stem, cells in NOTEBOOKS.items():
        text = nbformat.writes(notebook(stem, cells))
        texts[HERE / f"{stem}.ipynb"] = text if text.endswith("\n") else text + "\n"
    return texts


def main(argv: list[str]) -> int:
    stale = []
    for path, text in build().items():
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print("wrote", path)
    if stale:
        print("out of date (run python scripts/make_notebooks.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
