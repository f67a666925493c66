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
 * What no policy governs in Chromium (WebRTC, clipboard writes) is the widget's `side_doors`,
 * decided in Python (`_core/apps.py: side_doors`): where one is shut, the proxy runs a guard
 * (`appGuard`) first in the app's document, which shuts it and removes the frames the app
 * could escape the guard in.
 *
 * Permissions (geolocation, clipboard-write; camera and microphone are never offered: no frame
 * of an opaque origin can use them) are the widget's
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
 * The app's HTML is not in the widget's state. Python pushes it right after the comm_open
 * (`{kind: "html", html, pushed: true}`) unless the frame is held for the person's consent; the
 * loader keeps it until the first view renders and hands it over as `html`, so the frame starts
 * with the view. Without it (a held frame) the view asks Python (`{kind: "html"}`) and gets it
 * once; a second view (a reloaded page) is told it is gone and says so.
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

/** The Permission Policy feature of each permission an app may be granted (camera and
 * microphone never: `getUserMedia` cannot work in a frame of an opaque origin). */
export const PERMISSION_FEATURES = Object.freeze({
  geolocation: "geolocation", clipboardWrite: "clipboard-write",
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

function sandboxProxy(title, guardSource, lt) {
  const host = window.parent;
  // The app's HTML with the guard run first (after its doctype, so that its mode stays), and
  // its declarative shadow roots inert (see appGuard).
  const guarded = (html, open) => {
    // (this function is itself written inside a script element: `lt` is "<", given from
    // outside, so that its text holds no "<" before "!--" or "script")
    const lead = new RegExp(`^(?:\\ufeff|\\s|${lt}!--[\\s\\S]*?-->)*${lt}!doctype[^>]*>`, "i")
      .exec(html);
    const at = lead ? lead[0].length : 0;
    const inert = html.slice(at).replace(/shadowrootmod(e)/gi, (word, e) => word.slice(0, 13)
      + (e === "E" ? "X" : "x"));
    return `${html.slice(0, at)}${lt}script>(${guardSource})(${JSON.stringify(open)});`
      + `${lt}/script>${inert}`;
  };
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
        const features = { geolocation: "geolocation", clipboardWrite: "clipboard-write" };
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
        const given = params.sideDoors && typeof params.sideDoors === "object" ? params.sideDoors : {};
        const open = { webrtc: given.webrtc === true, clipboardWrite: given.clipboardWrite === true };
        const html = typeof params.html === "string" ? params.html : "";
        inner.srcdoc = open.webrtc && open.clipboardWrite ? html : guarded(html, open);
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

/**
 * The guard: run first in the app's own document, before any of the app's code, when one of
 * its side doors is shut (`open`, from Python's `side_doors`: `{webrtc, clipboardWrite}`). It
 * shuts what the Content Security Policy does not govern in Chromium:
 *
 * - WebRTC (`open.webrtc` false): `RTCPeerConnection` sends STUN and TURN packets to any
 *   address whatever `connect-src` says, and Chromium ignores the CSP `webrtc` directive. The
 *   constructors are deleted from the app's window. Workers have none.
 * - Clipboard writes (`open.clipboardWrite` false): `execCommand("copy"/"cut")` answers false,
 *   the app hears no `copy` or `cut` event (so it cannot set their `clipboardData`: the person's
 *   own copy of a selection goes on as the browser does it), and `navigator.clipboard.write*`
 *   are refused (the `allow` attribute already refuses them).
 * - Frames that run the app's own code in a window of their own, which the guard does not
 *   reach: a `srcdoc` or `javascript:` frame (no policy stops either), an `object` or `embed`,
 *   or any frame whose address is not http(s) (which `frame-src` governs). Each is removed as
 *   it is put into the document or given such an address, synchronously where the app's code
 *   does it and by a MutationObserver where the parser does, before its document can commit
 *   (a new document commits in a later task). Every frame it makes is cross-origin to it (the
 *   sandbox gives each its own opaque origin), so it cannot take another window's
 *   `RTCPeerConnection`. Shadow roots are watched too: `attachShadow`'s (made not clonable, so
 *   no copy escapes), and declarative ones are made inert (the proxy renames the attribute in
 *   the app's HTML, the guard in markup the app parses later), since nothing sees into them.
 *
 * The app cannot undo it: the guard keeps the browser's own functions from before the app ran,
 * and every frame it could make to get fresh ones is removed or cross-origin.
 */
function appGuard(open) {
  "use strict";
  const win = window;
  const doc = document;
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const uncurry = (f) => (self, ...args) => apply(f, self, args);
  const getter = (proto, name) => uncurry(describe(proto, name).get);
  const remove = uncurry(Element.prototype.remove);
  const query = uncurry(Element.prototype.querySelectorAll);
  const queryFragment = uncurry(DocumentFragment.prototype.querySelectorAll);
  const queryDocument = uncurry(Document.prototype.querySelectorAll);
  const count = getter(NodeList.prototype, "length");
  const item = uncurry(NodeList.prototype.item);
  const attribute = uncurry(Element.prototype.getAttribute);
  const has = uncurry(Element.prototype.hasAttribute);
  const tagOf = getter(Element.prototype, "localName");
  const typeOf = getter(Node.prototype, "nodeType");
  const parentOf = getter(Node.prototype, "parentNode");
  const ownerOf = getter(Attr.prototype, "ownerElement");
  const recordType = getter(MutationRecord.prototype, "type");
  const recordTarget = getter(MutationRecord.prototype, "target");
  const recordAdded = getter(MutationRecord.prototype, "addedNodes");
  const lower = uncurry(String.prototype.toLowerCase);
  const starts = uncurry(String.prototype.startsWith);
  const trim = uncurry(String.prototype.trimStart);
  const includes = uncurry(String.prototype.includes);
  const slice = uncurry(String.prototype.slice);
  const text = String;
  const Observer = MutationObserver;
  const observe = uncurry(Observer.prototype.observe);
  const halt = uncurry(Event.prototype.stopImmediatePropagation);
  const listen = uncurry(EventTarget.prototype.addEventListener);
  const FRAMES = "iframe,frame,object,embed,fencedframe";
  const isFrame = (tag) => tag === "iframe" || tag === "frame" || tag === "object"
    || tag === "embed" || tag === "fencedframe";
  /** A frame its policy governs: an iframe or frame that loads an http(s) address. */
  const governed = (el) => {
    const tag = tagOf(el);
    if ((tag !== "iframe" && tag !== "frame") || has(el, "srcdoc")) return false;
    const src = lower(trim(text(attribute(el, "src") ?? "")));
    return starts(src, "https:") || starts(src, "http:");
  };
  /** `el` removed if it is a frame the policy does not govern. */
  const sweepFrame = (el) => {
    try {
      if (typeOf(el) === 1 && isFrame(tagOf(el)) && !governed(el)) remove(el);
    } catch {
      // (not a node)
    }
  };
  const sweepList = (list) => {
    for (let i = count(list) - 1; i >= 0; i -= 1) {
      const el = item(list, i);
      if (!governed(el)) remove(el);
    }
  };
  /** Remove the frames in `node` (itself included) that the policy does not govern. */
  const sweep = (node) => {
    if (node === null || typeof node !== "object") return;
    let type;
    try {
      type = typeOf(node);
    } catch {
      return;  // (not a node)
    }
    if (type === 1) {
      if (isFrame(tagOf(node))) {
        if (!governed(node)) remove(node);
      } else {
        sweepList(query(node, FRAMES));
      }
    } else if (type === 11) {
      sweepList(queryFragment(node, FRAMES));
    } else if (type === 9) {
      sweepList(queryDocument(node, FRAMES));
    }
  };
  const watcher = new Observer((records) => {
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i];
      if (recordType(record) === "attributes") {
        sweepFrame(recordTarget(record));
      } else {
        const added = recordAdded(record);
        for (let j = count(added) - 1; j >= 0; j -= 1) sweep(item(added, j));
      }
    }
  });
  const watch = (node) => observe(watcher, node, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["src", "srcdoc", "data"],
  });
  watch(doc);
  /** Markup with its declarative shadow roots inert: the attribute renamed, its length kept. */
  const inert = (markup) => {
    const source = text(markup);
    const low = lower(source);
    if (!includes(low, "shadowrootmode")) return source;
    if (low.length !== source.length) return "";  // (a case that lowercasing resizes: not parsed)
    let out = "";
    let from = 0;
    for (let at = 0; at <= low.length - 14; at += 1) {
      if (slice(low, at, at + 14) === "shadowrootmode") {
        out += `${slice(source, from, at + 13)}x`;
        from = at + 14;
        at += 13;
      }
    }
    return out + slice(source, from);
  };
  const replace = (proto, name, make) => {
    const found = proto && describe(proto, name);
    if (found && typeof found.value === "function") {
      define(proto, name, { ...found, value: make(found.value) });
    } else if (found && found.set) {
      define(proto, name, { ...found, set: make(found.set) });
    }
  };
  // Nodes put into a tree: each swept at once (a fragment's frames found before it empties).
  const byNodes = (original) => function (...args) {
    const frames = [];
    for (let i = 0; i < args.length; i += 1) {
      try {
        if (typeOf(args[i]) === 11) frames[frames.length] = queryFragment(args[i], FRAMES);
      } catch {
        // (not a node)
      }
    }
    try {
      return apply(original, this, args);
    } finally {
      for (let i = 0; i < args.length; i += 1) sweep(args[i]);
      for (let i = 0; i < frames.length; i += 1) sweepList(frames[i]);
    }
  };
  // Markup parsed into `this` (`beside`: around it too), its declarative shadow roots inert.
  const byMarkup = (at, beside) => (original) => function (...args) {
    const parent = beside ? parentOf(this) : null;
    args[at] = inert(args[at]);
    try {
      return apply(original, this, args);
    } finally {
      sweep(this);
      sweep(parent);
    }
  };
  // An address or an attribute given to an element: that element swept at once.
  const byAttribute = (owner) => (original) => function (...args) {
    try {
      return apply(original, this, args);
    } finally {
      sweepFrame(owner(this));
    }
  };
  const INSERTS = [
    [Node.prototype, ["appendChild", "insertBefore", "replaceChild"]],
    [Element.prototype, ["append", "prepend", "replaceChildren", "before", "after", "replaceWith",
                         "insertAdjacentElement", "moveBefore"]],
    [Document.prototype, ["append", "prepend", "replaceChildren", "moveBefore"]],
    [DocumentFragment.prototype, ["append", "prepend", "replaceChildren", "moveBefore"]],
    [CharacterData.prototype, ["before", "after", "replaceWith"]],
    [DocumentType.prototype, ["before", "after", "replaceWith"]],
    [Range.prototype, ["insertNode", "surroundContents"]],
  ];
  for (const [proto, names] of INSERTS) for (const name of names) replace(proto, name, byNodes);
  for (const proto of [Element.prototype, ShadowRoot.prototype]) {
    for (const name of ["innerHTML", "setHTMLUnsafe", "setHTML"]) replace(proto, name, byMarkup(0));
  }
  replace(Element.prototype, "outerHTML", byMarkup(0, true));
  replace(Element.prototype, "insertAdjacentHTML", byMarkup(1, true));
  for (const name of ["parseHTMLUnsafe", "parseHTML"]) {
    replace(Document, name, (original) => function (...args) {
      args[0] = inert(args[0]);
      return apply(original, this, args);
    });
  }
  for (const name of ["setAttribute", "setAttributeNS", "setAttributeNode", "setAttributeNodeNS",
                      "toggleAttribute", "removeAttribute", "removeAttributeNS"]) {
    replace(Element.prototype, name, byAttribute((el) => el));
  }
  for (const proto of [HTMLIFrameElement.prototype, win.HTMLFrameElement?.prototype]) {
    for (const name of ["src", "srcdoc"]) replace(proto, name, byAttribute((el) => el));
  }
  for (const name of ["value", "nodeValue", "textContent"]) {
    replace(Attr.prototype, name, byAttribute((attr) => ownerOf(attr)));
  }
  // document.write: markup that may come in pieces; a shadow root's attribute split across
  // two pieces is not written at all.
  let tail = "";
  for (const name of ["write", "writeln"]) {
    replace(Document.prototype, name, (original) => function (...args) {
      let markup = "";
      for (let i = 0; i < args.length; i += 1) markup += text(args[i]);
      markup = inert(markup);
      const joined = tail + lower(markup);
      tail = slice(joined, -13);
      if (includes(joined, "shadowrootmode")) return undefined;
      try {
        return apply(original, this, [markup]);
      } finally {
        sweep(doc);
      }
    });
  }
  const attachShadow = Element.prototype.attachShadow;
  replace(Element.prototype, "attachShadow", () => function (init) {
    const given = init ?? {};
    const root = apply(attachShadow, this, [{
      mode: given.mode, delegatesFocus: given.delegatesFocus,
      slotAssignment: given.slotAssignment, serializable: given.serializable,
    }]);
    watch(root);
    return root;
  });
  const execCommand = Document.prototype.execCommand;
  replace(Document.prototype, "execCommand", () => function (command, ...args) {
    const name = lower(text(command));
    if (!open.clipboardWrite && (name === "copy" || name === "cut")) return false;
    try {
      return apply(execCommand, this, [command, ...args]);
    } finally {
      sweep(doc);  // (insertHTML)
    }
  });
  if (!open.webrtc) {
    for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) delete win[name];
  }
  if (!open.clipboardWrite) {
    for (const type of ["copy", "cut"]) listen(win, type, (event) => halt(event), true);
    if (win.Clipboard) {
      for (const name of ["write", "writeText"]) {
        replace(Clipboard.prototype, name, () => function () {
          return Promise.reject(new DOMException("Writing to the clipboard was not allowed",
                                                 "NotAllowedError"));
        });
      }
    }
  }
}

/** The outer frame's document: the policy (the widget's `policy`) first, then the proxy. */
export function proxyDocument(policy, title = FALLBACK_TEXTS.title) {
  const given = typeof policy === "string" && policy ? policy : CLOSED_POLICY;
  const written = given.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const style = "html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}"
    + "iframe{display:block;border:0;width:100%;height:100%}";
  // ("<" in the title is written \u003c: no "</script>" nor "<!--" inside the script.)
  const name = JSON.stringify(String(title)).replace(/</g, "\\u003c");
  const guard = JSON.stringify(appGuard.toString()).replace(/</g, "\\u003c");
  const script = `(${sandboxProxy.toString()})(${name}, ${guard}, "\\u003c");`;
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


function render({ model, el, html: pushed }) {
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
  // lights the button up, and Escape (the browser leaving full screen) goes back inline. The
  // button sits in a bar of its own above the frame, never over the app: an app's own controls
  // in its top right corner (a viewer's "Toggle fullscreen") stay uncovered.
  const fullButton = document.createElement("button");
  fullButton.type = "button";
  fullButton.className = "nb-elicit-app-frame-fullscreen";
  fullButton.textContent = "\u26f6";
  fullButton.style.cssText = "min-width:24px;height:22px;padding:0 6px;"
    + "border:1px solid var(--jp-border-color1,#bbb);border-radius:4px;"
    + "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#333);"
    + "font-size:14px;line-height:1;cursor:pointer;opacity:.6;transition:opacity .15s;";
  const bar = document.createElement("div");
  bar.className = "nb-elicit-app-frame-bar";
  bar.style.cssText = "display:flex;justify-content:flex-end;margin:0 0 2px 0;";
  bar.append(fullButton);
  const canFullscreen = typeof el.requestFullscreen === "function"
    && document.fullscreenEnabled !== false;
  if (!canFullscreen) bar.hidden = fullButton.hidden = true;
  const notice = document.createElement("div");
  notice.className = "nb-elicit-app-frame-notice";
  notice.setAttribute("role", "status");
  el.append(bar, box, notice);

  // (the app's HTML, once Python sent it: pushed with the model and handed over by the
  // loader, or asked for by this view)
  let html = typeof pushed === "string" ? pushed : null;
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
      box.style.height = `calc(100% - ${bar.offsetHeight + 2}px)`;
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
    fullButton.style.opacity = offered || mode === "fullscreen" || hovered ? "1" : ".6";
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
        ? { height: Math.floor(box.clientHeight) }
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
        sideDoors: model.get("side_doors") || {},
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

  if (html !== null) {
    load();  // (the frame starts at once: the HTML came with the model)
  } else {
    try {
      model.send({ kind: "html" });
    } catch {  // (its model closed before this view drew: the app has ended)
      close();
      notice.textContent = text("closed");
    }
  }
  return () => { teardown(); };
}

export default { render };
