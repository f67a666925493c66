// A small MCP App for the browser tests, written with the official app side (`App` of
// @modelcontextprotocol/ext-apps). It shows what the host sent (tool input, tool result,
// theme), calls the server's `echo` tool through the host on a click, and says what its sandbox
// lets it reach: the parent's document, the host's cookies, the notebook server. It counts the
// teardowns it is asked for on the console.
import { App } from "@modelcontextprotocol/ext-apps";

const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };

const reach = [];
try {
  void window.parent.document.body;
  reach.push("parent:open");
} catch {
  reach.push("parent:blocked");
}
try {
  void window.top.document.cookie;
  reach.push("top:open");
} catch {
  reach.push("top:blocked");
}
try {
  reach.push(`cookie:${document.cookie || "(empty)"}`);
} catch {
  reach.push("cookie:blocked");
}
show("reach", reach.join(" "));

const violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  violations.push(event.violatedDirective);
  show("violations", violations.join(" "));
});
const server = document.body.dataset.server;
fetch(`${server}/api/status`).then(() => show("fetch", "fetch:open"),
                                    () => show("fetch", "fetch:blocked"));

const app = new App({ name: "probe-app", version: "1.0.0" });
app.ontoolinput = ({ arguments: args }) => show("input", JSON.stringify(args ?? {}));
app.ontoolresult = (result) => show("result", result.content?.[0]?.text ?? "(no text)");
app.ontoolcancelled = ({ reason }) => show("result", `cancelled: ${reason}`);
// (each teardown the host asks for is counted on the console: a host asks once)
let teardowns = 0;
app.onteardown = () => {
  teardowns += 1;
  console.log(`probe-app teardown ${teardowns}`);
  return {};
};
app.onhostcontextchanged = (context) => {
  if (context.theme) show("theme", context.theme);
};

$("call").addEventListener("click", async () => {
  show("called", "calling");
  try {
    const result = await app.callServerTool({ name: "echo", arguments: { word: "ping" } });
    show("called", result.content?.[0]?.text ?? "(no text)");
  } catch (error) {
    show("called", `error ${error.code}: ${error.message}`);
  }
});
$("link").addEventListener("click", async () => {
  try {
    await app.openLink({ url: "https://example.org/" });
    show("linked", "opened");
  } catch (error) {
    show("linked", `error ${error.code}: ${error.message}`);
  }
});

await app.connect();
show("theme", app.getHostContext()?.theme ?? "(none)");
show("state", "connected");
