// The floor of the app section: a minimal MCP Apps host built from the same app-bridge package
// as nb_elicit's (`AppBridge` of @modelcontextprotocol/ext-apps, the version the lock file of
// scripts/app-host pins), bundled by the section with the same esbuild. It does what the
// reference host (ext-apps' examples/basic-host) does, and nothing else: an outer frame with
// the sandbox proxy, the bridge connected once the proxy says it is ready, the app's HTML sent
// to the proxy, which makes the inner frame; then the tool's input and result. Two framings:
// "origin", the reference host's (its proxy a page of its own origin on the same site, served
// with the app's Content Security Policy, its frames `allow-same-origin`), and "opaque",
// nb_elicit's (a `srcdoc` proxy with the policy in a meta element, neither frame
// `allow-same-origin`). Each round's times (epoch ms, like app_probe.js) go to
// window.__floor[label]; the app's own are its probe's.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const now = () => performance.timeOrigin + performance.now();
const READY = "ui/notifications/sandbox-proxy-ready";
const RESOURCE = "ui/notifications/sandbox-resource-ready";

// The proxy's script: the inner frame made from the HTML the host sends, messages relayed.
const PROXY = `
let inner = null;
window.addEventListener("message", (event) => {
  const data = event.data;
  if (event.source === window.parent) {
    if (data && data.method === "${RESOURCE}") {
      if (inner) return;
      inner = document.createElement("iframe");
      inner.setAttribute("sandbox", data.params.sandbox);
      inner.style.cssText = "width:100%;height:280px;border:0";
      inner.srcdoc = data.params.html;
      document.body.appendChild(inner);
    } else if (inner) {
      inner.contentWindow.postMessage(data, "*");
    }
  } else if (inner && event.source === inner.contentWindow) {
    window.parent.postMessage(data, "*");
  }
});
window.parent.postMessage({ jsonrpc: "2.0", method: "${READY}", params: {} }, "*");
`;

window.__floor = {};
window.__floorProxy = PROXY;

/** One round: the HTML in hand now (t0); resolves once the frame is made. */
window.floorRound = ({ html, label, mode, proxyUrl, policy }) => {
  const times = (window.__floor[label] = { t0: now(), mode });
  const sandbox = mode === "origin" ? "allow-scripts allow-same-origin allow-forms"
    : "allow-scripts allow-forms";
  const outer = document.createElement("iframe");
  outer.className = "floor-frame";
  outer.setAttribute("sandbox", sandbox);
  outer.style.cssText = "display:block;width:100%;height:300px;border:0";
  const onMessage = async (event) => {
    if (event.source !== outer.contentWindow || event.data?.method !== READY) return;
    window.removeEventListener("message", onMessage);
    times.proxy_ready = now();
    const bridge = new AppBridge(null, { name: "floor", version: "1" }, {},
                                 { hostContext: { theme: "light", displayMode: "inline" } });
    bridge.addEventListener("initialized", () => {
      times.initialized = now();
      bridge.sendToolInput({ arguments: { label } });
      bridge.sendToolResult({ content: [{ type: "text", text: "12:00:00 UTC" }],
                              structuredContent: { time: "12:00:00 UTC" } });
    });
    await bridge.connect(new PostMessageTransport(event.source, event.source));
    times.html_posted = now();
    await bridge.sendSandboxResourceReady({ html, sandbox });
    window.__floorBridge = bridge;
  };
  window.addEventListener("message", onMessage);
  if (mode === "origin") {
    outer.src = proxyUrl;
  } else {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
    outer.srcdoc = `<!DOCTYPE html><html><head>${meta}</head><body style="margin:0">`
      + `<script>${PROXY}</` + `script></body></html>`;
  }
  document.body.appendChild(outer);
  times.frame = now();
};

/** The round's frame removed (and its bridge closed) before the next. */
window.floorClear = () => {
  window.__floorBridge?.close().catch(() => {});
  window.__floorBridge = null;
  for (const frame of document.querySelectorAll("iframe.floor-frame")) frame.remove();
};
