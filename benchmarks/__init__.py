"""nb_elicit's benchmark suite: what nb_elicit costs, next to the floor, in one run.

    .venv/bin/python benchmarks/run.py                  # everything, full size (20 to 40 minutes)
    .venv/bin/python benchmarks/run.py --quick          # everything, small (budget: 5 minutes)
    .venv/bin/python benchmarks/run.py --only latency,idle
    .venv/bin/python benchmarks/run.py --skip scale,startup
    .venv/bin/python -m benchmarks --quick              # the same, from the repository root

Sections (each independent, with its own kernels and servers, and its own timeouts):

build     Form build without a kernel: ElicitationForm for 1, 10, 50 and 200 string fields and
          20 fields of each kind; median of several builds, ms per field. Floor: one bare
          ipywidgets control per field in a VBox. Also the same builds inside a kernel. For
          1, 10 and 50 fields: next to ipywidgets-jsonschema's Form (pinned in peers.py,
          installed on first use into .cache/bench-peers/), build time and widget models;
          and the models one form makes, and whether closing it gives them all back.
latency   Added latency per elicitation in a real kernel, answered by a scripted JupyterLab-like
          frontend: server sends the request -> the form is shown, and Submit click -> the
          server holds the answer; over stdio, over streamable HTTP, and a ten-field form.
          Floors: a plain SDK Client whose elicitation callback accepts at once, against the
          same server, in the same run (interleaved blocks); and a bare ipywidgets prompt (the
          same inputs and three Buttons, built and displayed by an SDK callback in the kernel,
          answered by a click). Then the widget models a plain call (no form) makes; where
          the time goes: rounds
          with timestamps inside the kernel, and, over stdio, rounds under a profiler of the
          kernel's main thread (its CPU time by group and by function).
idle      Kernel CPU and wake-ups (voluntary context switches, all threads) while a form waits,
          next to the same kernel idle without a form.
task      A cell awaits a tool call the bench server runs as a 30 s task, polled every 1 s and
          every 2 s (the pollInterval it asks for): kernel CPU and wake-ups next to the same
          kernel idle, and the intervals between tasks/get as the server received them.
memory    Kernel RSS, Python objects kept and live widget models before and after many
          answered elicitations, after a warm-up of as many rounds as the history keeps.
scale     10 stdio servers, each asking 20 questions at once (200 forms); the frontend clicks
          Submit or Decline on every one; all 200 answers must reach the servers.
startup   %load_ext nb_elicit and the first %mcp connect in fresh kernels. Floors: import
          ipywidgets in other fresh kernels; a fresh Python that imports the SDK and connects
          a plain Client to the demo server.
flood     One tool asks 200 questions at once in a real kernel; the frontend presses Submit on
          each form as it appears while small cells run: forms open at most, requests waiting,
          cancelled, the kernel's reply time, RSS and widget models before and after. Then
          two more floods, not counted: one with every callback of the kernel's event loop
          timed (the longest ones hold a small cell up), one under the profiler.
first-form
          A fresh kernel: %load_ext, %mcp connect to a stdio server and %mcp call of a tool
          that asks at once, until the form is shown. Floor: a fresh Python that imports the
          SDK, connects a plain Client to the same server and gets the first elicitation;
          the two take turns at going first, and the medians are compared.
app       A real JupyterLab in headless Chromium (tests/helpers/lab.py): from the tool's result
          in the kernel to the first paint of its app (the demo's clock app) in its frame, over
          several rounds, with where the time goes (the frame's comm_open and its size, the ESM
          import, in the page's first round the host code asked of the kernel and imported, the
          view, the sandbox proxy, the app's document); then one cell with five live
          apps and a form typed into key by key: the server must receive exactly what was typed.
paint     The same JupyterLab harness: the server's request -> a form's first input painted
          and focusable, for 1, 10 and 50 string fields, next to bare ipywidgets (Texts and
          three Buttons in a VBox) and ipywidgets-jsonschema's form, each displayed in the cell
          by an SDK callback in the kernel (bench_prompts.py); rounds interleaved.
held      A hook's form (the SDK's Client with nb_elicit.elicitation_callback on a thread of
          its own) while the cell joins the thread that calls (the kernel's thread is held:
          the form runs on nb_elicit's subshell), next to the same while the cell awaits a
          future that thread resolves (the kernel's loop is free): request sent -> form shown
          and Submit click -> answer held, with and without frontend subshells; the held/free
          ratio of the medians, and where the time goes.

The results table (and the machine, versions and load) is written to benchmarks/RESULTS.md for a
full run of every section, otherwise to benchmarks/RESULTS-quick.md (not committed).

Layout: cli.py (the command line and the run), sections/ (one module per section),
harness.py (kernels, the scripted frontend, the floor client), peers.py (the library the
form build is compared with: pinned, installed apart), in_kernel.py (what runs inside
a kernel), fresh_python.py (what runs in a fresh Python), common.py (results, statistics,
/proc), profiling.py (the profiles' tables), report.py (the machine and RESULTS.md),
bench_server.py (the MCP server asked), bench_prompts.py (the floors' prompts, shown from an
SDK callback in a kernel), app_probe.js and paint_probe.js (what the app and paint sections
read in the browser).
"""
