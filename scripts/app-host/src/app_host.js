/**
 * The front end of `nb_elicit._ui.app_frame.AppFrame` (an anywidget): an MCP App (the
 * `io.modelcontextprotocol/ui` extension, SEP-1865) shown in a notebook output, spoken to with
 * the official host side, `AppBridge` of `@modelcontextprotocol/ext-apps/app-bridge`.
 *
 * How the app is framed, and why
 * ------------------------------
 * The spec asks a web host for a double iframe: a sandbox proxy on an origin of its own, which
 * loads the app's HTML into an inner frame under a Content Security Policy built from the
 * resource's `_meta.ui.csp`, and relays messages both ways. This file follows that design with
 * one change: a notebook has no second origin to serve the proxy from (JupyterLab is one origin,
 * and `allow-same-origin` on a frame of that origin would hand the app the notebook server's
 * cookies and API), so the proxy is a `srcdoc` document in a frame sandboxed with
 * `allow-scripts allow-forms` and never `allow-same-origin`: its origin is opaque, unlike the
 * host's, as the spec requires.
 *
 * - The policy is written by this file into the proxy's own document (a `<meta
 *   http-equiv="Content-Security-Policy">`, the first element of its head), and the inner
 *   `srcdoc` frame inherits it: the app's HTML is not rewritten, and nothing in it runs before
 *   the policy holds.
 * - The proxy's `frame-src` also governs where the app's own frame may navigate: an app cannot
 *   send itself, with data in the address, to an undeclared site. A frame that loads a second
 *   document anyway is removed, and the host says so.
 * - Neither frame has `allow-same-origin`, `allow-popups`, `allow-top-navigation` or
 *   `allow-modals`. `allow-forms` is there because without it the `submit` event never fires
 *   (apps handle forms in script), and `form-action 'none'` keeps forms from sending anything.
 *
 * The policy is built in Python (`_core/apps.py: content_security_policy`, the reference host's
 * of the ext-apps repository, from the domains `app_csp` kept) and comes as the widget's
 * `policy`: this file writes it as it is, with no rule of its own.
 *
 * Permissions (camera, microphone, geolocation, clipboard-write) are the widget's
 * `permissions`: what the person granted on nb_elicit's consent card, checked in Python
 * (`_core/apps.py: granted_permissions`), `{}` unless they did. Both frames get exactly those in
 * their `allow` attribute (`allowAttribute`, the reference host's mapping), and no attribute at
 * all when there are none; the app's host capabilities name them too. Python sends the HTML
 * only once the person answered, so the frames load with their `allow` already set.
 *
 * Display modes: inline, and fullscreen on the person's click on the frame's button (the
 * browser's Fullscreen API needs a click, and it is the consent); the app's request for
 * fullscreen lights the button up and is answered with the mode in effect, as is `pip`.
 * Escape (the browser leaving fullscreen) brings it back inline; the app hears each change
 * (`host-context-changed`, with the container's size). Height: the frame is as tall as the
 * app says (`size-changed`), in a box that shows at most `max_height` pixels and 80% of the
 * window, and scrolls: the frame never cuts the app.
 *
 * The app's HTML is not in the widget's state: the view asks Python for it (`{kind: "html"}`)
 * and gets it once; a second view (a reloaded page) is told it is gone and says so.
 *
 * What the app asks for that needs the server or the person goes to Python as an anywidget
 * custom message, `{kind: "request", id, method, params}`, answered by `{kind: "response", id,
 * result}` or `{kind: "response", id, error: {code, message}}`. Too large, too many at once or
 * too often: answered here with an error, never sent on.
 */

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/** How much an app may ask of Python. */
export const LIMITS = Object.freeze({
  /** The largest params of one request or notification, in UTF-8 bytes of its JSON. */
  maxParamsBytes: 1_000_000,
  /** Requests and notifications per second (a sliding window). */
  perSecond: 50,
  /** Requests waiting for Python's answer at once. */
  inFlight: 16,
  /** The smallest height of the frame, in pixels. */
  minHeight: 40,
  /** The tallest app the frame takes at its full height (its box scrolls), in pixels. */
  maxContentHeight: 50_000,
  /** The share of the window's height the frame's box shows at most, inline. */
  maxViewportShare: 0.8,
  /** How long an app may take to connect before the status says it failed, in ms. */
  startMs: 30_000,
});

/** The app's requests that go to Python, and the notifications that go there too. */
export const FORWARDED_REQUESTS = Object.freeze([
  "tools/call", "resources/read", "ui/open-link", "ui/download-file", "ui/message",
  "ui/update-model-context", "ui/request-display-mode",
]);
export const FORWARDED_NOTIFICATIONS = Object.freeze([
  "notifications/message", "ui/notifications/request-teardown",
]);

export const SANDBOX = "allow-scripts allow-forms";
const PROXY_READY = "ui/notifications/sandbox-proxy-ready";
const PROXY_CLOSED = "ui/notifications/sandbox-closed";
/** The modes nb_elicit honours: inline, and fullscreen once the person clicks for it. */
export const DISPLAY_MODES = Object.freeze(["inline", "fullscreen"]);

// -- permissions ------------------------------------------------------------------------------

/** The Permission Policy feature of each permission an app may be granted. */
export const PERMISSION_FEATURES = Object.freeze({
  camera: "camera", microphone: "microphone", geolocation: "geolocation",
  clipboardWrite: "clipboard-write",
});

/** The widget's `permissions` (checked in Python) as the spec's object, known keys only. */
export function grantedPermissions(permissions) {
  const given = permissions && typeof permissions === "object" ? permissions : {};
  const granted = {};
  for (const key of Object.keys(PERMISSION_FEATURES)) {
    if (given[key] && typeof given[key] === "object") granted[key] = {};
  }
  return granted;
}

/** A frame's `allow` attribute for the granted permissions ("" for none). */
export function allowAttribute(permissions) {
  return Object.keys(grantedPermissions(permissions))
    .map((key) => PERMISSION_FEATURES[key]).join("; ");
}

// -- the Content Security Policy -------------------------------------------------------------

/** The widget's `csp` (checked in Python) as the app is told of it (`McpUiResourceCsp`). */
export function appliedCsp(csp) {
  const given = csp && typeof csp === "object" ? csp : {};
  const list = (value) => (Array.isArray(value) ? value.filter((s) => typeof s === "string") : []);
  const applied = {
    connectDomains: list(given.connectDomains),
    resourceDomains: list(given.resourceDomains),
    frameDomains: list(given.frameDomains),
    baseUriDomains: list(given.baseUriDomains),
  };
  if (given.wasmUnsafeEval === true) applied.wasmUnsafeEval = true;
  return applied;
}

/** Without a policy from Python (never, but): nothing at all. */
export const CLOSED_POLICY = "default-src 'none'";

const FALLBACK_TEXTS = {
  title: "MCP App",
  closed: "The app was closed.",
  left_page: "The app left its page and was closed.",
  not_started: "The app did not start.",
  elsewhere: "This app ran in an earlier page; call the tool again to see it here.",
  fullscreen: "Full screen",
  fullscreen_asked: "The app asks for full screen: click to show it so",
  exit_fullscreen: "Exit full screen (Esc)",
};

// -- the sandbox proxy (runs inside the outer frame; self-contained) ------------------------

function sandboxProxy(title) {
  const host = window.parent;
  const prefix = "ui/notifications/sandbox-";
  let inner = null;
  let loads = 0;
  const reserved = (data) => data && typeof data.method === "string" && data.method.startsWith(prefix);
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source === host) {
      if (reserved(data)) {
        if (data.method !== prefix + "resource-ready" || inner) return;
        const params = data.params || {};
        inner = document.createElement("iframe");
        inner.setAttribute("sandbox", "allow-scripts allow-forms");
        const features = { camera: "camera", microphone: "microphone", geolocation: "geolocation",
                           clipboardWrite: "clipboard-write" };
        const asked = params.permissions && typeof params.permissions === "object"
          ? params.permissions : {};
        const allow = Object.keys(features).filter((key) => asked[key] && typeof asked[key] === "object")
          .map((key) => features[key]).join("; ");
        if (allow) inner.setAttribute("allow", allow);
        inner.setAttribute("title", title);
        inner.addEventListener("load", () => {
          loads += 1;
          if (loads > 1) {
            inner.remove();
            host.postMessage({ jsonrpc: "2.0", method: prefix + "closed",
                               params: { reason: "navigated" } }, "*");
          }
        });
        inner.srcdoc = typeof params.html === "string" ? params.html : "";
        document.body.appendChild(inner);
      } else if (inner && inner.isConnected && loads === 1 && inner.contentWindow) {
        inner.contentWindow.postMessage(data, "*");
      }
    } else if (inner && inner.isConnected && loads === 1 && event.source === inner.contentWindow) {
      if (!reserved(data)) host.postMessage(data, "*");
    }
  });
  host.postMessage({ jsonrpc: "2.0", method: prefix + "proxy-ready", params: {} }, "*");
}

/** The outer frame's document: the policy (the widget's `policy`) first, then the proxy. */
export function proxyDocument(policy, title = FALLBACK_TEXTS.title) {
  const given = typeof policy === "string" && policy ? policy : CLOSED_POLICY;
  const written = given.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const style = "html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}"
    + "iframe{display:block;border:0;width:100%;height:100%}";
  // ("<" in the title is written \u003c: no "</script>" nor "<!--" inside the script.)
  const name = JSON.stringify(String(title)).replace(/</g, "\\u003c");
  const script = `(${sandboxProxy.toString()})(${name});`;
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${written}">`
    + `<meta charset="utf-8"><style>${style}</style></head><body><script>${script}</script>`
    + "</body></html>";
}

// -- what Python may be sent ------------------------------------------------------------------

function byteLength(value) {
  let text;
  try {
    text = JSON.stringify(value ?? {});
  } catch {
    return Infinity;
  }
  return new TextEncoder().encode(text).length;
}

function rpcError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

/** Admission: the rate, the size and (for requests) the number waiting. */
export class Gate {
  constructor(limits = LIMITS, now = () => Date.now()) {
    this.limits = limits;
    this.now = now;
    this.times = [];
    this.waiting = 0;
  }

  /** Why this message may not go to Python (`{code, message}`), or null. */
  refuse(params, isRequest) {
    const now = this.now();
    this.times = this.times.filter((t) => now - t < 1000);
    if (this.times.length >= this.limits.perSecond) {
      return { code: -32000, message: `Too many requests: at most ${this.limits.perSecond} a second` };
    }
    if (isRequest && this.waiting >= this.limits.inFlight) {
      return { code: -32000, message: `Too many requests at once: at most ${this.limits.inFlight}` };
    }
    if (byteLength(params) > this.limits.maxParamsBytes) {
      return { code: -32602, message: `Request too large: over ${this.limits.maxParamsBytes} bytes` };
    }
    this.times.push(now);
    return null;
  }
}

// -- the host context -------------------------------------------------------------------------

const STYLE_VARIABLES = {
  "--color-background-primary": "--jp-layout-color0",
  "--color-background-secondary": "--jp-layout-color1",
  "--color-background-tertiary": "--jp-layout-color2",
  "--color-text-primary": "--jp-ui-font-color0",
  "--color-text-secondary": "--jp-ui-font-color1",
  "--color-text-tertiary": "--jp-ui-font-color2",
  "--color-text-danger": "--jp-error-color1",
  "--color-text-success": "--jp-success-color1",
  "--color-text-warning": "--jp-warn-color1",
  "--color-text-info": "--jp-info-color1",
  "--color-border-primary": "--jp-border-color1",
  "--color-border-secondary": "--jp-border-color2",
  "--font-sans": "--jp-ui-font-family",
  "--font-mono": "--jp-code-font-family",
  "--border-radius-sm": "--jp-border-radius",
};

function styleVariables() {
  const computed = getComputedStyle(document.body);
  const variables = {};
  for (const [name, jupyter] of Object.entries(STYLE_VARIABLES)) {
    const value = computed.getPropertyValue(jupyter).trim();
    if (value) variables[name] = value;
  }
  return variables;
}

function pageTheme() {
  return document.body.dataset.jpThemeLight === "false" ? "dark" : "light";
}

/** A height within [minHeight, maxHeight]. */
export function clampHeight(height, maxHeight) {
  const top = Math.max(LIMITS.minHeight, Number(maxHeight) || 0);
  const value = Number.isFinite(height) ? Math.ceil(height) : LIMITS.minHeight;
  return Math.min(top, Math.max(LIMITS.minHeight, value));
}

/** The frame's height for what the app asked: all of it (up to `maxContentHeight`), so that
 * the frame never cuts the app; its box shows at most `visibleHeight` and scrolls. */
export function contentHeight(height) {
  return clampHeight(height, LIMITS.maxContentHeight);
}

/** The most the frame's box shows inline: `max_height`, and at most 80% of the window. */
export function visibleHeight(maxHeight, windowHeight) {
  const share = Math.floor((Number(windowHeight) || 0) * LIMITS.maxViewportShare);
  const limit = share > 0 ? Math.min(Number(maxHeight) || 0, share) : maxHeight;
  return clampHeight(limit, limit);
}

// -- the widget -------------------------------------------------------------------------------


function render({ model, el }) {
  const text = (key) => (model.get("_texts") || {})[key] || FALLBACK_TEXTS[key];
  el.classList.add("nb-elicit-app-frame");
  el.style.position = "relative";
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", SANDBOX);
  frame.setAttribute("title", text("title"));
  frame.className = "nb-elicit-app-frame-outer";
  frame.style.cssText = "display:block;width:100%;border:0;background:transparent;";
  // The box shows the frame up to its visible height and scrolls past it: the frame itself is
  // as tall as the app, so nothing of the app is ever cut.
  const box = document.createElement("div");
  box.className = "nb-elicit-app-frame-box";
  box.style.cssText = "overflow-x:hidden;overflow-y:auto;";
  box.append(frame);
  // Full screen only on the person's click (the browser asks for one too): the app's request
  // lights the button up, and Escape (the browser leaving full screen) goes back inline.
  const fullButton = document.createElement("button");
  fullButton.type = "button";
  fullButton.className = "nb-elicit-app-frame-fullscreen";
  fullButton.textContent = "\u26f6";
  fullButton.style.cssText = "position:absolute;top:4px;right:4px;z-index:1;min-width:28px;"
    + "height:28px;padding:0 6px;border:1px solid var(--jp-border-color1,#bbb);border-radius:4px;"
    + "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#333);"
    + "font-size:16px;line-height:1;cursor:pointer;opacity:0;transition:opacity .15s;";
  const canFullscreen = typeof el.requestFullscreen === "function"
    && document.fullscreenEnabled !== false;
  if (!canFullscreen) fullButton.hidden = true;
  const notice = document.createElement("div");
  notice.className = "nb-elicit-app-frame-notice";
  notice.setAttribute("role", "status");
  el.append(box, fullButton, notice);

  let html = null;  // (the app's HTML, once Python sent it)
  let bridge = null;
  let bridgeWindow = null;
  let ready = false;  // (the current app sent ui/notifications/initialized)
  let closed = false;
  // Ids start at random: two views of one widget (or two pages) never share one.
  let nextId = Math.floor(Math.random() * 2 ** 31) * 1024;
  let sent = { input: false, result: null, cancelled: false };
  const pending = new Map();
  const gate = new Gate();
  let heightTimer = null;
  let startTimer = null;
  let mode = "inline";  // (the display mode in effect)
  let offered = false;  // (the app asked for full screen, and the person has not clicked yet)
  let appHeight = 0;  // (what the app last asked for)

  /** Sync `name` to Python, unless Python closed the model already (it ended the app and
   * hears nothing more: a sync would throw "Syncing error: no comm channel defined"). */
  const sync = (name, value) => {
    try {
      model.set(name, value);
      model.save_changes();
    } catch {
      // (the model is closed already)
    }
  };

  const status = (value) => {
    if (closed && value !== "torn down") return;
    sync("status", value);
  };

  const visible = () => visibleHeight(model.get("max_height"), window.innerHeight);

  /** The box and the frame for the mode in effect and the app's height. */
  const layout = () => {
    if (mode === "fullscreen") {
      box.style.height = "100%";
      box.style.maxHeight = "none";
      frame.style.height = "100%";
      el.style.background = "var(--jp-layout-color0, #fff)";
    } else {
      box.style.height = "";
      box.style.maxHeight = `${visible()}px`;
      frame.style.height = `${contentHeight(appHeight || model.get("height") || 150)}px`;
      el.style.background = "";
    }
  };

  const setHeight = (height) => {
    appHeight = contentHeight(height);
    layout();
    if (model.get("height") === appHeight || heightTimer) return;
    heightTimer = setTimeout(() => {  // (an app that keeps resizing sends one update a tick)
      heightTimer = null;
      if (!closed && model.get("height") !== appHeight) sync("height", appHeight);
    }, 100);
  };

  const showButton = () => {
    const label = mode === "fullscreen" ? text("exit_fullscreen")
      : offered ? text("fullscreen_asked") : text("fullscreen");
    fullButton.title = label;
    fullButton.setAttribute("aria-label", label);
    fullButton.setAttribute("aria-pressed", String(mode === "fullscreen"));
    fullButton.dataset.offered = String(offered);
    fullButton.style.opacity = offered || mode === "fullscreen" || hovered ? "1" : "0";
    fullButton.style.outline = offered ? "2px solid var(--jp-brand-color1, #1976d2)" : "";
  };
  let hovered = false;
  const hover = (on) => () => { hovered = on; showButton(); };
  el.addEventListener("mouseenter", hover(true));
  el.addEventListener("mouseleave", hover(false));
  fullButton.addEventListener("focus", hover(true));
  fullButton.addEventListener("blur", hover(false));
  showButton();

  const hostContext = () => {
    const theme = model.get("theme") || pageTheme();
    const context = {
      theme,
      styles: { variables: styleVariables() },
      displayMode: mode,
      availableDisplayModes: canFullscreen ? [...DISPLAY_MODES] : ["inline"],
      containerDimensions: mode === "fullscreen"
        ? { height: Math.floor(el.clientHeight) }
        : { maxHeight: visible() },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "nb_elicit",
      platform: "web",
      deviceCapabilities: {
        touch: matchMedia("(pointer: coarse)").matches,
        hover: matchMedia("(hover: hover)").matches,
      },
    };
    const width = Math.floor(el.clientWidth);
    if (width > 0) context.containerDimensions.width = width;
    const tool = model.get("tool");
    if (tool && typeof tool === "object" && typeof tool.name === "string") {
      context.toolInfo = { tool };
    }
    return context;
  };

  const capabilities = () => ({
    openLinks: {},
    downloadFile: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    message: { text: {} },
    updateModelContext: { text: {}, structuredContent: {} },
    sandbox: { csp: appliedCsp(model.get("csp")),
               permissions: grantedPermissions(model.get("permissions")) },
  });

  const forward = (method, params, extra) => {
    const refusal = gate.refuse(params, true);
    if (refusal) return Promise.reject(rpcError(refusal.code, refusal.message));
    const id = ++nextId;
    gate.waiting += 1;
    return new Promise((resolve, reject) => {
      const done = () => {
        if (!pending.delete(id)) return false;
        gate.waiting -= 1;
        return true;
      };
      pending.set(id, {
        resolve: (value) => done() && resolve(value),
        reject: (error) => done() && reject(error),
      });
      extra?.mcpReq?.signal?.addEventListener("abort", () => {
        if (done()) {
          model.send({ kind: "cancel", id });
          reject(rpcError(-32800, "Request cancelled"));
        }
      }, { once: true });
      model.send({ kind: "request", id, method, params: params ?? {} });
    });
  };

  const notify = (method, params) => {
    if (gate.refuse(params, false)) return;  // (a flood of logs is dropped, not queued)
    model.send({ kind: "notification", method, params: params ?? {} });
  };

  const sendToolData = () => {
    if (!bridge || !ready || closed) return;
    const input = model.get("tool_input");
    const result = model.get("tool_result");
    const cancelled = model.get("cancelled");
    if (!sent.input && (input || result || cancelled)) {
      sent.input = true;
      bridge.sendToolInput({ arguments: input || {} });
    }
    if (result && sent.result !== result) {
      sent.result = result;
      bridge.sendToolResult(result);
    } else if (cancelled && !sent.cancelled && !result) {
      sent.cancelled = true;
      bridge.sendToolCancelled({ reason: cancelled });
    }
  };

  const failAll = (reason) => {
    for (const entry of [...pending.values()]) entry.reject(rpcError(-32603, reason));
  };

  const newBridge = () => {
    const made = new AppBridge(null, { name: "nb_elicit", version: model.get("_host_version") },
                               capabilities(), { hostContext: hostContext() });
    made.oncalltool = (params, extra) => forward("tools/call", params, extra);
    made.onreadresource = (params, extra) => forward("resources/read", params, extra);
    made.onopenlink = (params, extra) => forward("ui/open-link", params, extra);
    made.ondownloadfile = (params, extra) => forward("ui/download-file", params, extra);
    made.onmessage = (params, extra) => forward("ui/message", params, extra);
    made.onupdatemodelcontext = (params, extra) => forward("ui/update-model-context", params, extra);
    made.onrequestdisplaymode = async (params, extra) => {
      await forward("ui/request-display-mode", params, extra);  // (Python keeps the record)
      const wanted = params?.mode;
      if (wanted === "fullscreen" && mode !== "fullscreen" && canFullscreen && !closed) {
        offered = true;  // (the person's click on the button is the consent)
        showButton();
      } else if (wanted === "inline") {
        offered = false;
        if (mode === "fullscreen") await leaveFullscreen();
        showButton();
      }
      return { mode };  // (the mode in effect: "pip" is answered with it too)
    };
    made.addEventListener("loggingmessage", (params) => notify("notifications/message", params));
    made.addEventListener("sizechange", ({ height }) => {
      if (height !== undefined) setHeight(height);
    });
    made.addEventListener("requestteardown", (params) => {
      notify("ui/notifications/request-teardown", params);
      teardown();
    });
    made.addEventListener("initialized", () => {
      if (made !== bridge) return;
      ready = true;
      sent = { input: false, result: null, cancelled: false };
      notice.textContent = "";
      status("ready");
      sendToolData();
    });
    return made;
  };

  const connect = async (source) => {
    if (closed) return;
    const previous = bridge;
    bridge = newBridge();
    bridgeWindow = source;
    ready = false;
    failAll("The app was reloaded");
    if (previous) previous.close().catch(() => {});
    status("loading");
    clearTimeout(startTimer);
    startTimer = setTimeout(() => {
      if (ready || closed) return;
      notice.textContent = text("not_started");
      status(`failed: the app did not connect within ${LIMITS.startMs / 1000} s`);
    }, LIMITS.startMs);
    try {
      await bridge.connect(new PostMessageTransport(source, source));
      await bridge.sendSandboxResourceReady({
        html,
        sandbox: SANDBOX,
        csp: appliedCsp(model.get("csp")),
        permissions: grantedPermissions(model.get("permissions")),
      });
    } catch (error) {
      notice.textContent = text("not_started");
      status(`failed: ${String(error?.message ?? error).slice(0, 200)}`);
    }
  };

  const onWindowMessage = (event) => {
    if (event.source !== frame.contentWindow || !event.data) return;
    const method = event.data.method;
    if (method === PROXY_READY) {
      connect(event.source);
    } else if (method === PROXY_CLOSED && event.source === bridgeWindow) {
      notice.textContent = text("left_page");
      status("failed: the app left its page");
      close();
    }
  };
  window.addEventListener("message", onWindowMessage);

  const load = () => {
    if (html === null || closed) return;  // (until Python sent the HTML)
    layout();
    const allow = allowAttribute(model.get("permissions"));
    if (allow) frame.setAttribute("allow", allow);
    else frame.removeAttribute("allow");
    frame.srcdoc = proxyDocument(model.get("policy"), text("title"));
  };

  const leaveFullscreen = async () => {
    if (document.fullscreenElement === el) {
      try {
        await document.exitFullscreen();
      } catch {
        // (the browser left it already)
      }
    }
    onFullscreenChange();  // (the mode in effect now, whether or not the event came first)
  };

  function onFullscreenChange() {
    const now = document.fullscreenElement === el ? "fullscreen" : "inline";
    if (now === mode) return;
    mode = now;
    if (mode === "fullscreen") offered = false;
    layout();
    showButton();
    // (the size the box has once the browser drew it in its new mode)
    requestAnimationFrame(() => updateContext());
  }
  document.addEventListener("fullscreenchange", onFullscreenChange);

  fullButton.addEventListener("click", async () => {
    if (closed) return;
    if (document.fullscreenElement === el) {
      await leaveFullscreen();
      return;
    }
    try {
      await el.requestFullscreen({ navigationUI: "hide" });
    } catch {
      // (the browser refused: the frame stays inline)
    }
  });
  // Escape leaves full screen: the browser's own (wherever the focus is), and this one for a
  // key that reaches the page first (the focus on the frame's button).
  el.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || document.fullscreenElement !== el) return;
    event.preventDefault();
    event.stopPropagation();
    leaveFullscreen();
  });
  const onWindowResize = () => {
    if (mode === "inline") layout();
    updateContext();
  };
  window.addEventListener("resize", onWindowResize);

  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(startTimer);
    clearTimeout(heightTimer);  // (the app's last size goes nowhere: the frame is gone)
    heightTimer = null;
    document.removeEventListener("fullscreenchange", onFullscreenChange);
    window.removeEventListener("resize", onWindowResize);
    if (document.fullscreenElement === el) document.exitFullscreen().catch(() => {});
    fullButton.remove();
    box.remove();
    window.removeEventListener("message", onWindowMessage);
    themeWatch.disconnect();
    sizeWatch.disconnect();
    failAll("The app was closed");
    if (bridge) bridge.close().catch(() => {});
    frame.remove();
  };

  // Once: an app that asks to close is torn down here and again by the kernel's answer to its
  // request; the second call waits for the first instead of sending a second teardown.
  let tearingDown = null;
  const teardown = () => {
    if (!tearingDown) tearingDown = (async () => {
      if (closed) return;
      const current = bridge;
      try {
        if (current && ready) await current.teardownResource({}, { timeout: 2000 });
      } catch {
        // (an app that does not answer is closed all the same)
      }
      close();
      notice.textContent = text("closed");
      status("torn down");
    })();
    return tearingDown;
  };

  function updateContext() {
    if (bridge && !closed) bridge.setHostContext(hostContext());
  }
  const themeWatch = new MutationObserver(updateContext);
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  let lastWidth = 0;
  const sizeWatch = new ResizeObserver(() => {
    const width = Math.floor(el.clientWidth);
    if (width !== lastWidth) {
      lastWidth = width;
      updateContext();
    }
  });
  sizeWatch.observe(el);

  model.on("msg:custom", (message) => {
    if (!message || typeof message !== "object") return;
    if (message.kind === "response") {
      const entry = pending.get(message.id);
      if (!entry) return;
      const error = message.error;
      if (error && typeof error === "object") {
        const code = Number.isSafeInteger(error.code) ? error.code : -32603;
        entry.reject(rpcError(code, String(error.message ?? "Internal error").slice(0, 1000)));
      } else {
        entry.resolve(message.result && typeof message.result === "object" ? message.result : {});
      }
    } else if (message.kind === "html") {
      if (html !== null || closed) return;
      if (typeof message.html === "string") {
        html = message.html;
        load();
      } else {  // (shown in an earlier page: it goes to one page only)
        close();
        notice.textContent = text("elsewhere");
      }
    } else if (message.kind === "teardown") {
      teardown();
    } else if (message.kind === "tool-input-partial") {
      if (bridge && ready && !sent.input && !closed) {
        bridge.sendToolInputPartial({ arguments: message.arguments || {} });
      }
    }
  });
  for (const name of ["tool_input", "tool_result", "cancelled"]) {
    model.on(`change:${name}`, sendToolData);
  }
  model.on("change:theme", updateContext);
  model.on("change:tool", updateContext);
  model.on("change:max_height", () => {
    layout();
    updateContext();
  });
  model.on("change:policy", () => { if (!closed) load(); });

  try {
    model.send({ kind: "html" });
  } catch {  // (its model closed before this view drew: the app has ended)
    close();
    notice.textContent = text("closed");
  }
  return () => { teardown(); };
}

export default { render };
