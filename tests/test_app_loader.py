"""AppFrame's ``_esm``, the loader (``nb_elicit/_ui/static/app_loader.js``): small, naming the
bundle's sha256; run in Node with made-up models (anywidget's ``model.on/off/send``, a view's
``el``, the abort ``signal`` of each), it asks for the host code once per page (as soon as a
model is initialized), takes it only from the reply to its own model's request for the same
sha, hands every frame to the host module's ``render`` (its cleanup returned), and says "did
not start" when the code does not come."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest
from helpers.node import node, node_env

from nb_elicit._ui.app_frame import BUNDLE, HOST_SHA, AppFrame, loader

pytestmark = pytest.mark.once

#: What the tests run before their own code: a page (its Blob URLs become data: URLs Node can
#: import), made-up models and views, and ``frame()``, which imports the loader anew (as
#: anywidget does for every model) and renders one view with it.
PAGE = r"""
const LOADER = %(loader)s, SHA = %(sha)s;
globalThis.Blob = class { constructor(parts) { this.text = parts.join(""); } };
let urls = 0;
URL.createObjectURL = (blob) => { urls += 1;
  return "data:text/javascript;base64," + Buffer.from(blob.text).toString("base64"); };
URL.revokeObjectURL = () => {};
const node = () => ({ attrs: {}, children: [], classes: [], textContent: "",
  setAttribute(k, v) { this.attrs[k] = v; }, append(...c) { this.children.push(...c); },
  classList: { add(c) {} } });
globalThis.document = { createElement: node };
globalThis.evaluated = 0;
const HOST = `globalThis.evaluated += 1;
  export default { render({ model, el, html }) { el.rendered = model.name; el.html = html;
    return () => { el.cleaned = true; }; } };`;
class Model {
  constructor(name) { this.name = name; this.sent = []; this.handlers = []; this.state = {
    _texts: { not_started: "The app did not start." } }; this.saved = 0; }
  on(event, f) { if (event === "msg:custom") this.handlers.push(f); }
  off(event, f) { this.handlers = this.handlers.filter((g) => g !== f); }
  send(msg) { this.sent.push(msg); }
  get(key) { return this.state[key]; }
  set(key, value) { this.state[key] = value; }
  save_changes() { this.saved += 1; }
  emit(msg) { for (const f of [...this.handlers]) f(msg); }
}
let imports = 0;
// (as anywidget: the model's initialize, with the model's signal, then a view's render)
const frame = async (model) => {
  imports += 1;
  const mod = await import("data:text/javascript;base64,"
    + Buffer.from(LOADER + "\n//" + imports).toString("base64"));
  const el = node(), life = new AbortController(), shown = new AbortController();
  const started = mod.default.initialize({ model, signal: life.signal });
  const done = mod.default.render({ model, el, signal: AbortSignal.any([life.signal,
                                                                        shown.signal]) });
  return { el, done, model, started, close: () => life.abort(), hide: () => shown.abort() };
};
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
const code = (extra = {}) => ({ kind: "host-code", sha: SHA, code: HOST, ...extra });
const view = (f) => ({ rendered: f.el.rendered ?? null, cleaned: !!f.el.cleaned,
  notice: f.el.children.map((c) => c.textContent), status: f.model.state.status ?? null,
  asked: f.model.sent.filter((m) => m.kind === "host-code").length });
"""


def run_page(code: str, wait: float = 0.2) -> object:
    """``code`` (an async function body) after `PAGE`, in Node; what it returns, via JSON."""
    page = PAGE % {"loader": json.dumps(loader(wait)), "sha": json.dumps(HOST_SHA)}
    script = f"{page}\nconst out = await (async () => {{ {code} }})();\n" \
             "process.stdout.write(JSON.stringify(out));\n"
    done = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True,
                          text=True, env=node_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- the loader as Python gives it ------------------------------------------------------------


def test_the_esm_is_a_small_loader_that_names_the_bundle_s_sha():
    frame = AppFrame()
    assert len(frame._esm.encode("utf-8")) < 2500
    assert frame._esm == loader()
    assert f'"{HOST_SHA}"' in frame._esm and "WAIT = 30000" in frame._esm
    assert hashlib.sha256(BUNDLE.read_bytes()).hexdigest() == HOST_SHA
    assert "__SHA256__" not in frame._esm and "//" not in frame._esm.replace("://", "")
    assert "import(" in frame._esm and "export default" in frame._esm
    frame.close()


def test_the_wait_is_filled_in_in_ms():
    assert "WAIT = 1500," in loader(1.5)
    assert "WAIT = 1," in loader(0)


# -- the loader in a page ---------------------------------------------------------------------


def test_two_frames_share_one_request_and_one_import_and_a_later_one_asks_nothing():
    out = run_page("""
        const a = await frame(new Model("a")), b = await frame(new Model("b"));
        await tick();
        const before = [view(a), view(b)];
        a.model.emit(code());
        const cleanups = [typeof await a.done, typeof await b.done];
        const c = await frame(new Model("c"));
        const third = typeof await c.done;
        (await a.done)();
        return { before, after: [view(a), view(b), view(c)], cleanups, third,
                 evaluated: globalThis.evaluated, urls,
                 request: a.model.sent[0] };""")
    before, after = out["before"], out["after"]
    assert [v["asked"] for v in before] == [1, 0]
    assert [v["rendered"] for v in before] == [None, None]
    assert [v["rendered"] for v in after] == ["a", "b", "c"]
    assert [v["asked"] for v in after] == [1, 0, 0]
    assert out["cleanups"] == ["function", "function"] and out["third"] == "function"
    assert after[0]["cleaned"] is True  # (the host's cleanup, handed back to anywidget)
    assert out["evaluated"] == 1 and out["urls"] == 1
    assert out["request"] == {"kind": "host-code", "sha": HOST_SHA}


def test_code_from_another_model_or_for_another_sha_is_not_taken_and_the_wait_ends():
    out = run_page("""
        const a = await frame(new Model("a")), b = await frame(new Model("b"));
        await tick();
        b.model.emit(code());                            // (b did not ask)
        a.model.emit(code({ sha: "0".repeat(64) }));     // (another bundle's)
        a.model.emit(code({ code: 42 }));
        a.model.emit({ kind: "response", id: 1, code: "x" });
        await Promise.all([a.done, b.done]);
        const failed = [view(a), view(b)];
        const c = await frame(new Model("c"));           // (the failure is forgotten)
        await tick();
        return { failed, evaluated: globalThis.evaluated, again: view(c),
                 saved: a.model.saved };""", wait=0.1)
    for failed in out["failed"]:
        assert failed["rendered"] is None
        assert failed["notice"] == ["The app did not start."]
        assert failed["status"] == "failed: no host code from the kernel within 0.1 s"
    assert out["saved"] == 1 and out["evaluated"] == 0
    assert out["again"]["asked"] == 1


def test_initialize_asks_at_once_and_waits_for_nothing():
    out = run_page("""
        const a = await frame(new Model("a"));
        const started = a.started;
        const asked = view(a).asked;
        a.hide();  // (its view goes; the model stays, and so does its request)
        a.model.emit(code());
        const module = await globalThis["nb_elicit.app_host." + SHA];
        await a.done;
        return { started: started === undefined, asked, evaluated: globalThis.evaluated,
                 rendered: view(a).rendered, host: typeof module.default.render };""")
    assert out == {"started": True, "asked": 1, "evaluated": 1, "rendered": None,
                   "host": "function"}


def test_html_pushed_with_the_model_is_handed_to_its_first_view_only():
    out = run_page("""
        const m = new Model("m"), other = new Model("other");
        m.state._key = "k-m";
        other.state._key = "k-other";
        const a = await frame(m);
        const b = await frame(other);
        // (pushed before the views render: kept by initialize under the model's key; an
        // answer to an ask, or HTML without the mark, is not the loader's)
        m.emit({ kind: "html", html: "<p>m</p>", pushed: true });
        other.emit({ kind: "html", html: "<p>other</p>" });
        m.emit(code());
        await a.done;
        await b.done;
        const again = await frame(m);  // (a second view of the same model)
        await again.done;
        return [a.el.html ?? null, b.el.html ?? null, again.el.html ?? null,
                m.handlers.length];""")
    # (the first view gets it; the second none, and asks Python, which says it is gone)
    assert out == ["<p>m</p>", None, None, 1]


def test_when_the_asking_model_goes_away_a_waiting_frame_asks_itself():
    out = run_page("""
        const a = await frame(new Model("a")), b = await frame(new Model("b"));
        await tick();
        a.close();
        await a.done;
        await tick();
        const asked = [view(a), view(b)];
        b.model.emit(code());
        await b.done;
        return { asked, after: [view(a), view(b)], evaluated: globalThis.evaluated };""")
    assert [v["asked"] for v in out["asked"]] == [1, 1]
    assert [v["rendered"] for v in out["after"]] == [None, "b"]
    assert [v["notice"] for v in out["after"]] == [[], []]
    assert out["evaluated"] == 1


def test_code_that_does_not_import_is_a_frame_that_did_not_start():
    out = run_page("""
        const a = await frame(new Model("a"));
        await tick();
        a.model.emit(code({ code: "export default {" }));
        await a.done;
        const b = await frame(new Model("b"));
        await tick();
        return [view(a), view(b)];""")
    broken, next_one = out
    assert broken["notice"] == ["The app did not start."]
    assert broken["status"].startswith("failed: ")
    assert next_one["asked"] == 1
