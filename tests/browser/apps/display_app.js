// An MCP App for the browser tests of the frame's policy, display modes and height, written with
// the official app side (`App` of @modelcontextprotocol/ext-apps): it starts a worker from a
// `blob:` URL, imports a `data:` module and runs `eval` (what pdf.js, Three.js and chart
// libraries do), asks for full screen or inline on a click, shows every display mode and
// container size the host tells it, and is as tall as its body's `data-tall` says.
import { App } from "@modelcontextprotocol/ext-apps";

const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };

const violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  violations.push(event.violatedDirective);
  show("violations", violations.join(" "));
});

const tall = Number(document.body.dataset.tall || 0);
if (tall) $("filler").style.height = `${tall}px`;

try {
  const source = "onmessage = (e) => postMessage(e.data * 7);";
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url);
  worker.onmessage = (event) => show("worker", `worker:${event.data}`);
  worker.onerror = () => show("worker", "worker:blocked");
  worker.postMessage(6);
} catch (error) {
  show("worker", `worker:blocked ${error.name}`);
}
import("data:text/javascript,export default 'data-module'").then(
  (module) => show("import", `import:${module.default}`),
  () => show("import", "import:blocked"));
try {
  show("eval", `eval:${(0, eval)("20 + 22")}`);
} catch {
  show("eval", "eval:blocked");
}

const modes = [];
const app = new App({ name: "display-app", version: "1.0.0" });
app.onhostcontextchanged = (context) => {
  if (context.displayMode) {
    const size = context.containerDimensions ?? {};
    modes.push(`${context.displayMode}:${size.height ?? size.maxHeight ?? "?"}`);
    show("modes", modes.join(" "));
  }
};

const ask = (mode) => async () => {
  try {
    const result = await app.requestDisplayMode({ mode });
    show("granted", `${mode}->${result.mode}`);
  } catch (error) {
    show("granted", `error ${error.code}: ${error.message}`);
  }
};
$("full").addEventListener("click", ask("fullscreen"));
$("inline").addEventListener("click", ask("inline"));
$("pip").addEventListener("click", ask("pip"));

await app.connect();
const context = app.getHostContext() ?? {};
show("available", (context.availableDisplayModes ?? []).join(","));
show("state", "connected");
