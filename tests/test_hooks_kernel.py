"""Other MCP clients' elicitation hooks, in real kernels driven by the scripted frontend.

Each test opens another client's session in one cell (the SDK's ``Client``, FastMCP's
``Client``, a pydantic-ai agent over ``MCPToolset``, a session on a thread of its own) with
``nb_elicit.elicitation_callback`` or ``nb_elicit.elicitation_handler``, then calls a tool of the
demo server in a later cell, types into the form that appears, and checks what reached the
server (its journal) and that the form was in the calling cell, not in the cell that opened the
session.
"""

import pytest
from helpers.frontend import Frontend
from helpers.servers import Journal

pytestmark = [pytest.mark.timeout(180), pytest.mark.blocking_kernel]

CELL_TIMEOUT = 60
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def fe():
    with Frontend.start(subshells=True) as frontend:
        yield frontend


@pytest.fixture
def journal(tmp_path):
    return Journal(tmp_path / "journal.jsonl")


def demo_args(journal) -> list[str]:
    return ["-m", "nb_elicit.demo", "--journal", str(journal.path)]


def stdio(journal) -> str:
    """The demo over stdio as the SDK's transport; its stderr goes to a file (the SDK's default,
    ``sys.stderr.fileno()``, does not exist in a kernel, whose stderr is a stream of its own)."""
    log = journal.path.with_suffix(".log")
    return (f"stdio_client(StdioServerParameters(command=sys.executable, "
            f"args={demo_args(journal)!r}), errlog=open({str(log)!r}, 'w'))")


def opened(fe, code: str) -> str:
    """Run the cell that opens a session; its msg id."""
    cell = fe.execute(code)
    reply = fe.wait_reply(cell, CELL_TIMEOUT)
    assert reply["status"] == "ok", fe.outputs(cell)
    return cell


def newest(fe, css_class: str, timeout: float = 30) -> str:
    return fe.wait_for(lambda: fe.find(css_class), timeout, css_class)[-1]


def views_in(fe, cell: str) -> list[str]:
    """The widget models a cell displayed."""
    return [o["data"][WIDGET_VIEW]["model_id"] for o in fe.outputs(cell)
            if WIDGET_VIEW in o.get("data", {})]


def holds(fe, root: str, model: str) -> bool:
    """Whether ``model`` is ``root`` or below it."""
    if root == model:
        return True
    return any(holds(fe, child, model) for child in fe.children(root) if child in fe.models)


def assert_in_cell(fe, form: str, cell: str, not_in: str | None = None) -> None:
    """``form`` (a form, an app) is shown in ``cell`` (and not in ``not_in``)."""
    fe.wait_for(lambda: any(holds(fe, v, form) for v in views_in(fe, cell)), 10,
                "the widget inside a view of the calling cell")
    if not_in is not None:
        assert not any(holds(fe, v, form) for v in views_in(fe, not_in)), \
            "it showed in the cell that opened the session"


def answers(journal):
    return [(e["action"], e["content"]) for e in journal.entries() if "action" in e]


def type_contact(fe):
    fe.type_text(newest(fe, "nb-elicit-field-name"), "Ada Lovelace")
    fe.type_text(newest(fe, "nb-elicit-field-email"), "ada@example.com")
    fe.type_text(newest(fe, "nb-elicit-field-age"), "36")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(newest(fe, "nb-elicit-submit"))


CONTACT = ("accept", {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36})


def answer_octocat(fe, cell: str, journal, said: str = "Hello, @octocat!",
                   after: float = 0.0) -> str:
    """The form in ``cell`` answered with "octocat" (``after`` seconds once it shows): the cell
    ends, prints ``said``, and the server got exactly that; returns what the cell printed."""
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    if after:
        fe.pump_for(after)
    fe.type_text(newest(fe, "nb-elicit-field-name"), "octocat")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(newest(fe, "nb-elicit-submit"))
    reply = fe.wait_reply(cell, CELL_TIMEOUT)
    assert reply["status"] == "ok", fe.outputs(cell)
    printed = fe.stdout(cell)
    assert said in printed, printed
    assert answers(journal) == [("accept", {"name": "octocat"})]
    return printed


def sdk_client(journal, mode: str = "legacy",
               callback: str = "nb_elicit.elicitation_callback", options: str = "") -> str:
    """A cell that opens the SDK's Client on the demo over stdio with the hook ``callback``
    (and more keyword ``options``, as Python source)."""
    more = f", {options}" if options else ""
    return ("import sys, nb_elicit\nfrom mcp import Client, StdioServerParameters\n"
            "from mcp.client.stdio import stdio_client\n"
            f"server = {stdio(journal)}\n"
            f"client = Client(server, mode={mode!r}, elicitation_callback={callback}{more})\n"
            "await client.__aenter__()")


def test_sdk_client_legacy_shows_the_form_in_the_calling_cell(fe, journal):
    first = opened(fe, sdk_client(journal))
    cell = fe.execute("result = await client.call_tool('contact_info')\n"
                      "print(result.content[0].text)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell, not_in=first)
    type_contact(fe)
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert '"name": "Ada Lovelace"' in fe.stdout(cell)
    assert answers(journal) == [CONTACT]
    # Told apart by the server's own name, in the history.
    _, outputs = fe.run("from nb_elicit._runtime.state import kernel_state\n"
                        "print(kernel_state().history.as_text())", timeout=10)
    assert '"nb-elicit-demo" (named by the server) · elicitation  accept (person)' in "".join(
        o.get("text", "") for o in outputs)


def test_sdk_client_auto_answers_a_2026_input_required_retry(fe, journal):
    opened(fe, (sdk_client(journal, "auto", "nb_elicit.elicitation_callback.named('bookings')")
        + "\nprint(client.protocol_version)"))
    cell = fe.execute("result = await client.call_tool('book_table')\n"
                      "print(result.content[0].text)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    fe.type_text(newest(fe, "nb-elicit-field-people"), "4")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(newest(fe, "nb-elicit-submit"))
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert "Booked for 4." in fe.stdout(cell)
    assert answers(journal) == [("accept", {"people": 4})]


def test_the_framework_s_own_timeout_waits_while_the_person_reads(fe, journal):
    """The SDK's Client times a request (here the tool call, 2 s): the call that asked is still
    in flight when the person answers after 4 s, and its result arrives. (The timeout is the
    call's own, not the client's: on a loaded machine the client's handshake under a 2 s
    timeout could time out before any form, and the test then said nothing of the form.)"""
    opened(fe, sdk_client(journal))
    cell = fe.execute("result = await client.call_tool('github_username', "
                      "read_timeout_seconds=2)\n"
                      "print(result.content[0].text)")
    answer_octocat(fe, cell, journal, after=4)


#: A raw SDK session made with no elicitation callback, as openai-agents, llama-index and
#: agent-framework make theirs; ``{start}`` is its handshake (initialize, or discover for the
#: 2026-07-28 era).
RAW_SESSION = """
%load_ext nb_elicit
import contextlib, os, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
stack = contextlib.AsyncExitStack()
read, write = await stack.enter_async_context(stdio_client(
    StdioServerParameters(command=sys.executable, args={args!r}), errlog=open(os.devnull, 'w')))
session = await stack.enter_async_context(ClientSession(read, write))
await session.{start}()
"""


@pytest.mark.parametrize("start, tool, typed, said", [
    ("initialize", "github_username", "octocat", "Hello, @octocat!"),
    ("discover", "book_table", "3", "Booked for 3."),
], ids=["handshake-era", "2026-07-28-input-required"])
def test_a_session_made_without_a_hook_still_shows_the_form(fe, journal, start, tool, typed,
                                                            said):
    """After %load_ext, a framework's session with no hook of its own gets nb_elicit's: the
    server's question is a form in the calling cell, and in the 2026-07-28 era the raw
    session's call_tool is completed with the answer (no "pass allow_input_required")."""
    opened(fe, RAW_SESSION.format(args=demo_args(journal), start=start))
    cell = fe.execute(f"result = await session.call_tool({tool!r})\n"
                      "print(result.content[0].text)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    field = fe.find("nb-elicit-field-name") or fe.find("nb-elicit-field-people")
    fe.type_text(field[-1], typed)
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(newest(fe, "nb-elicit-submit"))
    reply = fe.wait_reply(cell, CELL_TIMEOUT)
    assert reply["status"] == "ok", fe.outputs(cell)
    assert said in fe.stdout(cell)
    assert [action for action, _ in answers(journal)] == ["accept"]


def test_openai_agents_which_takes_no_hook_shows_the_form(fe, journal):
    """openai-agents' MCPServerStdio builds the SDK's Client with no elicitation callback, on
    protocol 2026-07-28, and calls the raw session's call_tool: after %load_ext the server's
    input_required question is a form in the calling cell, and the tool's result comes back."""
    pytest.importorskip("agents", reason="in the frameworks extra, which scripts/test.sh installs")
    opened(fe, "%load_ext nb_elicit\nimport sys\nfrom agents.mcp import MCPServerStdio\n"
               f"server = MCPServerStdio(params={{'command': sys.executable, "
               f"'args': {demo_args(journal)!r}}})\nawait server.connect()")
    cell = fe.execute("result = await server.call_tool('book_table', {})\n"
                      "print(server.session.protocol_version, result.content[0].text)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    fe.type_text(newest(fe, "nb-elicit-field-people"), "3")
    assert fe.flush(timeout=20), fe.stalled()
    fe.click(newest(fe, "nb-elicit-submit"))
    reply = fe.wait_reply(cell, CELL_TIMEOUT)
    assert reply["status"] == "ok", fe.outputs(cell)
    assert "2026-07-28 Booked for 3." in fe.stdout(cell)
    assert [action for action, _ in answers(journal)] == ["accept"]


@pytest.mark.parametrize("framework, opening, calling", [
    ("llama_index.tools.mcp",
     "from llama_index.tools.mcp import BasicMCPClient\n"
     "client = BasicMCPClient(sys.executable, args={args!r})",
     "result = await client.call_tool('github_username', {{}})\n"
     "print(result.content[0].text)"),
    ("agent_framework",
     "from agent_framework import MCPStdioTool\n"
     "tool = MCPStdioTool(name='demo', command=sys.executable, args={args!r})\n"
     "await tool.connect()",
     "print([c.to_dict() for c in await tool.call_tool('github_username')])"),
], ids=["llama-index", "agent-framework"])
def test_other_frameworks_with_no_hook_show_the_form(fe, journal, framework, opening, calling):
    """llama-index's BasicMCPClient and agent-framework's MCPStdioTool take no elicitation
    hook; after %load_ext their sessions get nb_elicit's."""
    pytest.importorskip(framework, reason="in the frameworks extra, which scripts/test.sh installs")
    opened(fe, "%load_ext nb_elicit\nimport sys\n" + opening.format(args=demo_args(journal)))
    cell = fe.execute(calling.format())
    answer_octocat(fe, cell, journal)


def test_after_answer_every_session_false_a_session_without_a_hook_gets_no_form(fe, journal):
    opened(fe, "import nb_elicit\nnb_elicit.answer_every_session(False)")
    opened(fe, RAW_SESSION.format(args=demo_args(journal), start="initialize").replace(
        "%load_ext nb_elicit\n", ""))
    reply, outputs = fe.run("result = await session.call_tool('github_username')\n"
                            "print(result.content[0].text)", timeout=CELL_TIMEOUT)
    assert not fe.find("nb-elicit-form")
    assert answers(journal) == []


def test_sdk_client_with_default_arguments_gets_the_demo_s_form(fe, journal):
    """The SDK's Client as most people make it (mode "auto", which negotiates 2026-07-28 with
    the demo): the demo asks with input_required, and the form shows in the calling cell."""
    opened(fe, sdk_client(journal).replace("mode='legacy', ", ""))
    cell = fe.execute("result = await client.call_tool('contact_info')\n"
                      "print(client.session.protocol_version)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    type_contact(fe)
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert "2026-07-28" in fe.stdout(cell)
    assert answers(journal) == [CONTACT]


def test_a_decline_reaches_the_server(fe, journal):
    opened(fe, sdk_client(journal))
    cell = fe.execute("result = await client.call_tool('github_username')\n"
                      "print(result.content[0].text)")
    fe.type_text(newest(fe, "nb-elicit-field-name"), "octocat")
    assert fe.flush(timeout=20)
    fe.click(newest(fe, "nb-elicit-decline"))
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert "No username: you chose decline." in fe.stdout(cell)
    assert answers(journal) == [("decline", None)]


def test_fastmcp_client_legacy_with_the_handler(fe, journal):
    first = opened(fe, (
        "import pathlib, sys, nb_elicit, fastmcp\n"
        "from fastmcp.client.transports import StdioTransport\n"
        f"transport = StdioTransport(command=sys.executable, args={demo_args(journal)!r}, "
        f"log_file=pathlib.Path({str(journal.path.with_suffix('.log'))!r}))\n"
        "client = fastmcp.Client(transport, mode='legacy', "
        "elicitation_handler=nb_elicit.elicitation_handler)\n"
        "await client.__aenter__()"))
    cell = fe.execute("result = await client.call_tool('contact_info')\n"
                      "print(result.content[0].text)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell, not_in=first)
    type_contact(fe)
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert answers(journal) == [CONTACT]


#: A session on a thread of its own, with its own event loop, as strands runs its sessions;
#: the cell awaits the thread's result (so the kernel's loop is free).
THREAD = """
import asyncio, os, sys, threading, nb_elicit
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

def in_a_thread_of_its_own(tool, done, loop):
    async def main():
        server = stdio_client(StdioServerParameters(command=sys.executable, args={args!r}),
                              errlog=open(os.devnull, 'w'))
        async with Client(server, mode='legacy',
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            return (await client.call_tool(tool)).content[0].text
    try:
        text = asyncio.run(main())
        loop.call_soon_threadsafe(done.set_result, (text, threading.current_thread().name))
    except BaseException as error:
        loop.call_soon_threadsafe(done.set_exception, error)
"""


def test_the_callback_hops_from_another_thread_and_loop(fe, journal):
    opened(fe, THREAD.format(args=demo_args(journal)))
    cell = fe.execute(
        "loop = asyncio.get_running_loop()\ndone = loop.create_future()\n"
        "threading.Thread(target=in_a_thread_of_its_own, name='framework-thread', "
        "args=('github_username', done, loop), daemon=True).start()\n"
        "print(await done)")
    answer_octocat(fe, cell, journal, said="('Hello, @octocat!', 'framework-thread')")


#: A synchronous cell: the kernel's thread waits in join() for a session on a thread.
BLOCKED = ("import concurrent.futures\nloop = asyncio.new_event_loop()\n"
           "done = concurrent.futures.Future()\n"
           "class Done:\n"
           "    def call_soon_threadsafe(self, f, *a): f(*a)\n"
           "thread = threading.Thread(target=in_a_thread_of_its_own, "
           "args=('github_username', done, Done()))\nthread.start(); thread.join(60)\n"
           "print(done.result()[0])")


@pytest.mark.parametrize("subshells", [True, False], ids=["frontend-subshells", "main-shell"])
def test_a_kernel_held_by_a_synchronous_call_shows_the_form_and_takes_every_keystroke(
        journal, subshells):
    """The cell's thread waits in join() for a session on a thread: the form still shows in the
    cell, on nb_elicit's own subshell, and every keystroke arrives, whether the frontend sends
    widget messages over subshells of its own or to the main shell (JupyterLab's
    commsOverSubshells perCommTarget and disabled)."""
    with Frontend.start(subshells=subshells) as fe:
        opened(fe, THREAD.format(args=demo_args(journal)))
        cell = fe.execute(BLOCKED)
        form = newest(fe, "nb-elicit-form")
        assert_in_cell(fe, form, cell)
        fe.type_text(newest(fe, "nb-elicit-field-name"), "octocat", delay=0.02)
        assert fe.flush(timeout=20), fe.stalled()
        fe.click(newest(fe, "nb-elicit-submit"))
        reply = fe.wait_reply(cell, CELL_TIMEOUT)
        assert reply["status"] == "ok", fe.outputs(cell)
        assert "Hello, @octocat!" in fe.stdout(cell)
        assert answers(journal) == [("accept", {"name": "octocat"})]
        reply, outputs = fe.run("1+1", timeout=10)
        assert outputs[-1]["data"]["text/plain"] == "2"


def test_a_cell_whose_own_code_holds_the_kernel_is_seen_at_once_not_after_the_probe(fe, journal):
    """The hook sees the running cell's code on the kernel's thread (a join, here) and sends
    the request to nb_elicit's subshell at once: with the probe of the kernel's loop given ten
    minutes, the form still shows and is answered."""
    opened(fe, THREAD.format(args=demo_args(journal)))
    opened(fe, "from nb_elicit._runtime import hooks\nhooks.LOOP_PROBE = 600.0")
    cell = fe.execute(BLOCKED)
    answer_octocat(fe, cell, journal)


def test_a_held_kernel_without_a_side_shell_answers_cancel_at_once(fe, journal):
    """Where the kernel cannot have nb_elicit's subshell (ipykernel older than 7.4: here it is
    taken away), a held kernel's request that only a person could answer is answered cancel,
    with a line that says which call to use instead."""
    opened(fe, THREAD.format(args=demo_args(journal)))
    opened(fe, "from nb_elicit._core.kernel import process_part\n"
               "from nb_elicit._runtime.side_shell import _Probe\n"
               "probe = process_part(_Probe)\n"
               "probe.kernel, probe.made = get_ipython().kernel, None")
    reply, outputs = fe.run(BLOCKED, timeout=CELL_TIMEOUT)
    assert reply["status"] == "ok", outputs
    printed = "".join(o.get("text", "") for o in outputs)
    assert "No username: you chose cancel." in printed
    assert "The kernel is blocked in a synchronous call" in printed
    assert not fe.find("nb-elicit-form")
    assert answers(journal) == [("cancel", None)]


def test_what_the_framework_s_thread_prints_after_the_form_still_lands_in_the_held_cell(
        fe, journal):
    """Each keystroke is handled on nb_elicit's subshell, which makes the kernel's fallback
    parent for plain threads that message: the parent is the running cell's again after each,
    so the framework thread's prints land in the cell, not nowhere."""
    opened(fe, THREAD.format(args=demo_args(journal)))
    cell = fe.execute(
        "def talk():\n"
        "    done = concurrent.futures.Future()\n"
        "    in_a_thread_of_its_own('github_username', done, Done())\n"
        "    for i in range(5):\n"
        "        print(f'framework line {i}', flush=True)\n"
        "    return done.result()[0]\n"
        "import concurrent.futures\n"
        "class Done:\n"
        "    def call_soon_threadsafe(self, f, *a): f(*a)\n"
        "with concurrent.futures.ThreadPoolExecutor() as pool:\n"
        "    said = pool.submit(talk).result()\n"
        "print(said)")
    printed = answer_octocat(fe, cell, journal)
    assert all(f"framework line {i}" in printed for i in range(5)), printed


def test_interrupt_ends_a_held_cell_and_its_open_form_answers_cancel(fe, journal):
    opened(fe, THREAD.format(args=demo_args(journal)))
    cell = fe.execute(BLOCKED)
    newest(fe, "nb-elicit-form")
    fe.interrupt()
    assert fe.wait_reply(cell, 20)["status"] == "error"
    fe.wait_for(lambda: answers(journal), 20, "the server's answer")
    assert answers(journal) == [("cancel", None)]
    reply, outputs = fe.run("1+1", timeout=10)
    assert outputs[-1]["data"]["text/plain"] == "2"


def test_a_blocked_kernel_still_answers_by_the_respond_policy(fe, journal):
    """A headless run's respond policy answers a hook's request while a synchronous call
    holds the kernel's thread, as on a free kernel: the rules come before the frontend."""
    opened(fe, THREAD.format(args=demo_args(journal)))
    opened(fe, "nb_elicit.respond('accept', {'name': 'octocat'})")
    reply, outputs = fe.run(BLOCKED, timeout=CELL_TIMEOUT)
    assert reply["status"] == "ok", outputs
    printed = "".join(o.get("text", "") for o in outputs)
    assert "Hello, @octocat!" in printed
    fe.wait_for(lambda: any("Answered accept by the respond policy" in t
                            for t in fe.transcripts()), 20, "the policy's line in the cell")
    assert "The kernel is blocked" not in printed
    assert not fe.find("nb-elicit-form")
    assert answers(journal) == [("accept", {"name": "octocat"})]


def test_a_pydantic_ai_agent_over_mcp_toolset(fe, journal):
    """A pydantic-ai agent driven by TestModel (no model, no key): once over a FastMCP client
    in legacy mode (the demo's contact_info asks with ctx.session.elicit_form), once over the
    toolset's own client (mode auto) against the 2026-07-28 book_table."""
    log = journal.path.with_suffix(".log")
    first = opened(fe, (
        "import pathlib, sys, nb_elicit, fastmcp\n"
        "from fastmcp.client.transports import StdioTransport\n"
        "from pydantic_ai import Agent\nfrom pydantic_ai.mcp import MCPToolset\n"
        "from pydantic_ai.models.test import TestModel\n"
        "def demo():\n"
        f"    return StdioTransport(command=sys.executable, args={demo_args(journal)!r}, "
        f"log_file=pathlib.Path({str(log)!r}))\n"
        "legacy = MCPToolset(fastmcp.Client(demo(), mode='legacy', "
        "elicitation_handler=nb_elicit.elicitation_handler))\n"
        "agent = Agent(TestModel(call_tools=['contact_info']), toolsets=[legacy])\n"
        "await agent.__aenter__()"))
    cell = fe.execute("result = await agent.run('Tell me who you are.')\nprint(result.output)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell, not_in=first)
    type_contact(fe)
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert '"content":{"name":"Ada Lovelace",' in fe.stdout(cell)
    assert answers(journal) == [CONTACT]

    cell = fe.execute(
        "booking = Agent(TestModel(call_tools=['book_table']), toolsets=[MCPToolset(demo(), "
        "elicitation_handler=nb_elicit.elicitation_handler.named('bookings'))])\n"
        "async with booking:\n    result = await booking.run('Book a table.')\n"
        "print(result.output)")
    fe.type_text(newest(fe, "nb-elicit-field-people"), "2")
    assert fe.flush(timeout=20), fe.stalled()
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    fe.click(newest(fe, "nb-elicit-submit"))
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert answers(journal) == [CONTACT, ("accept", {"people": 2})]


def test_pydantic_ai_run_sync_in_an_executor_the_cell_waits_on(fe, journal):
    """pydantic-ai's run_sync refuses the kernel's running loop, so people run it in an
    executor and wait on .result(): the kernel's thread is held, and the form still shows in
    the cell and takes what is typed."""
    log = journal.path.with_suffix(".log")
    opened(fe, (
        "import concurrent.futures, pathlib, sys, nb_elicit, fastmcp\n"
        "from fastmcp.client.transports import StdioTransport\n"
        "from pydantic_ai import Agent\nfrom pydantic_ai.mcp import MCPToolset\n"
        "from pydantic_ai.models.test import TestModel\n"
        f"transport = StdioTransport(command=sys.executable, args={demo_args(journal)!r}, "
        f"log_file=pathlib.Path({str(log)!r}))\n"
        "agent = Agent(TestModel(call_tools=['contact_info']), toolsets=[MCPToolset("
        "fastmcp.Client(transport, mode='legacy', "
        "elicitation_handler=nb_elicit.elicitation_handler))])"))
    cell = fe.execute(
        "with concurrent.futures.ThreadPoolExecutor() as pool:\n"
        "    result = pool.submit(agent.run_sync, 'Tell me who you are.').result()\n"
        "print(result.output)")
    form = newest(fe, "nb-elicit-form")
    assert_in_cell(fe, form, cell)
    type_contact(fe)
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert '"content":{"name":"Ada Lovelace",' in fe.stdout(cell)
    assert answers(journal) == [CONTACT]


#: Google ADK with a scripted model (no key): it calls the demo's github_username through an
#: McpToolset with nb_elicit's hook, then says what the tool returned.
ADK = """
import os, sys, nb_elicit
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
from google.genai import types
from mcp import StdioServerParameters

class Scripted(BaseLlm):
    model: str = "scripted"

    async def generate_content_async(self, llm_request, stream=False):
        answered = [part.function_response.response for content in llm_request.contents
                    for part in content.parts or () if part.function_response]
        if answered:
            text = answered[-1]["content"][0]["text"]
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))
        else:
            call = types.FunctionCall(name="github_username", args={{}})
            yield LlmResponse(content=types.Content(role="model",
                                                    parts=[types.Part(function_call=call)]))

tools = McpToolset(connection_params=StdioConnectionParams(server_params=StdioServerParameters(
    command=sys.executable, args={args!r})), errlog=open(os.devnull, "w"),
    elicitation_callback=nb_elicit.elicitation_callback)
runner = InMemoryRunner(agent=LlmAgent(name="helper", model=Scripted(), tools=[tools]),
                        app_name="notebook")
session = await runner.session_service.create_session(app_name="notebook", user_id="ada")
"""


def test_google_adk_runner_run_holds_the_kernel_and_still_gets_the_form(fe, journal):
    """ADK's synchronous Runner.run (its session on a thread of its own, the kernel's thread
    iterating its events) with its 5 s stdio read timeout: the person answers after 7 s."""
    pytest.importorskip("google.adk", reason="in the frameworks extra, which scripts/test.sh installs")
    opened(fe, ADK.format(args=demo_args(journal)))
    cell = fe.execute(
        "message = types.Content(role='user', parts=[types.Part(text='Who am I on GitHub?')])\n"
        "for event in runner.run(user_id='ada', session_id=session.id, new_message=message):\n"
        "    for part in (event.content.parts if event.content else ()) or ():\n"
        "        if part.text:\n            print(part.text)")
    answer_octocat(fe, cell, journal, after=7)


def test_a_withdrawn_request_closes_the_hooks_form_with_the_reason(fe, journal):
    opened(fe, (
        "import sys, nb_elicit\nfrom mcp import Client, StdioServerParameters\n"
        "from mcp.client.stdio import stdio_client\n"
        f"server = {stdio(journal)}\n"
        "client = Client(server, mode='legacy', "
        "elicitation_callback=nb_elicit.elicitation_callback.named('demo'))\n"
        "await client.__aenter__()"))
    cell = fe.execute("result = await client.call_tool('withdraw', {'after': 1})\n"
                      "print(result.content[0].text)")
    status = newest(fe, "nb-elicit-status")
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert "The question was withdrawn." in fe.stdout(cell)
    fe.wait_for(lambda: "withdrew" in (fe.value(status) or "") or fe.transcripts(), 10,
                "the withdrawal reason")
    shown = (fe.value(status) or "") + " ".join(fe.transcripts())
    assert "demo withdrew this request." in shown, shown
    assert journal.entries() == [{"tool": "withdraw", "event": "withdrawn"}]


def test_interrupt_ends_the_cell_and_the_hooks_form_answers_nothing_more(fe, journal):
    opened(fe, sdk_client(journal))
    cell = fe.execute("result = await client.call_tool('github_username')")
    form = newest(fe, "nb-elicit-form")
    fe.interrupt()
    reply = fe.wait_reply(cell, 20)
    assert reply["status"] == "error"
    # The SDK cancels the call; the server's tool ends, and withdraws its question: the form
    # ends with that reason, and the kernel is free.
    fe.wait_for(lambda: any("withdrew this request" in t for t in fe.transcripts()), 20,
                "the form's transcript saying the request was withdrawn")
    assert form in fe.models  # (the form that was open is the one that ended)
    reply, outputs = fe.run("1+1", timeout=10)
    assert outputs[-1]["data"]["text/plain"] == "2"


def test_show_app_puts_a_pydantic_ai_tools_app_in_the_running_cell(fe, journal):
    log = journal.path.with_suffix(".log")
    first = opened(fe, (
        "import pathlib, sys, nb_elicit, fastmcp\n"
        "from fastmcp.client.transports import StdioTransport\n"
        "from pydantic_ai import Agent\nfrom pydantic_ai.mcp import MCPToolset\n"
        "from pydantic_ai.messages import ToolReturnPart\n"
        "from pydantic_ai.models.test import TestModel\n"
        f"transport = StdioTransport(command=sys.executable, args={demo_args(journal)!r}, "
        f"log_file=pathlib.Path({str(log)!r}))\n"
        "toolset = MCPToolset(fastmcp.Client(transport, mode='legacy'))\n"
        "agent = Agent(TestModel(call_tools=['clock']), toolsets=[toolset])\n"
        "await agent.__aenter__()\nrun = await agent.run('What time is it?')"))
    cell = fe.execute(
        "(part,) = [p for m in run.new_messages() for p in m.parts "
        "if isinstance(p, ToolReturnPart)]\n"
        "shown = await nb_elicit.show_app(part, toolset)\nprint(shown.frame.tool['name'])")
    assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
    assert fe.stdout(cell).strip() == "clock"
    app = newest(fe, "nb-elicit-app")
    assert_in_cell(fe, app, cell, not_in=first)
