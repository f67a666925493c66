// What the app section reads in the browser: an init script that runs in every document of the
// page (JupyterLab's, each app frame's sandbox proxy and each app). Every time is wall-clock epoch
// ms (performance.timeOrigin + performance.now(), the kernel's time.time() clock), kept in
// window.__bench of its document and, for the app, handed to the binding __benchApp as it comes.
(() => {
  if (window.__bench) return;
  const now = () => performance.timeOrigin + performance.now();
  const bench = (window.__bench = { start: now(), timeOrigin: performance.timeOrigin, paints: [] });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        bench.paints.push({ name: entry.name, at: performance.timeOrigin + entry.startTime });
      }
      if (bench.painted) report();
    }).observe({ type: "paint", buffered: true });
  } catch (error) {
    bench.paintError = String(error);
  }

  if (window === window.top) {
    // -- JupyterLab's page: the kernel's messages, the ESM import, the app frames ---------------
    bench.messages = [];  // comm_open and comm_msg: {type, at, bytes, comm, kind, out}
    bench.blobs = [];  // JavaScript blobs made (anywidget imports `_esm` from one; the host code)
    bench.frames = [];  // outer frames: {at, load, ready, initialized}
    const decoder = new TextDecoder();
    const commOf = (text) => (/"comm_id"\s*:\s*"([^"]+)"/.exec(text) || [])[1] || null;
    // (a custom message's kind, e.g. "host-code": near the start of a comm_msg's content)
    const kindOf = (text) => (/"kind"\s*:\s*"([^"]+)"/.exec(text) || [])[1] || null;
    const watch = (given, out) => {
      const at = now();
      const data = ArrayBuffer.isView(given)
        ? given.buffer.slice(given.byteOffset, given.byteOffset + given.byteLength) : given;
      let type = null;
      let comm = null;
      let kind = null;
      let bytes = 0;
      try {
        if (typeof data === "string") {
          bytes = data.length;
          const message = JSON.parse(data);
          type = message.header && message.header.msg_type;
          comm = message.content && message.content.comm_id;
          const custom = message.content && message.content.data && message.content.data.content;
          kind = (custom && typeof custom.kind === "string") ? custom.kind : null;
        } else if (data instanceof ArrayBuffer) {
          // v1.kernel.websocket.jupyter.org: offsets, then channel, header, parent_header,
          // metadata, content, buffers.
          bytes = data.byteLength;
          const view = new DataView(data);
          const count = Number(view.getBigUint64(0, true));
          const offset = (i) => Number(view.getBigUint64(8 * (i + 1), true));
          // (the first `most` bytes of part i, or its last ones when `most` is negative)
          const part = (i, most) => {
            const start = offset(i);
            const end = i + 1 < count ? offset(i + 1) : data.byteLength;
            const from = most < 0 ? Math.max(start, end + most) : start;
            const to = most < 0 ? end : Math.min(end, start + most);
            return decoder.decode(new Uint8Array(data, from, to - from));
          };
          type = JSON.parse(part(1, 1 << 20)).msg_type;
          // (ipykernel writes a comm_open's comm_id after its data; a comm_msg's comes before
          // it in a small message, after it in a large one)
          if (type === "comm_open") comm = commOf(part(4, -600));
          if (type === "comm_msg") {
            const head = part(4, 400);
            comm = commOf(head) || commOf(part(4, -600));
            kind = kindOf(head);
          }
        }
      } catch (error) {
        type = type || "unreadable";
      }
      if (type === "comm_open" || type === "comm_msg") {
        bench.messages.push({ type, at, bytes, comm, kind, out });
      }
    };
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        this.__benchKernel = String(args[0]).includes("/api/kernels/");
        if (this.__benchKernel) this.addEventListener("message", (event) => watch(event.data, false));
      }

      send(data) {  // (the page's messages to the kernel: the loader's request for the host code)
        if (this.__benchKernel) watch(data, true);
        return super.send(data);
      }
    };
    const createObjectURL = URL.createObjectURL;
    URL.createObjectURL = function (blob) {
      if (blob && /javascript/.test(blob.type || "")) bench.blobs.push({ at: now(), bytes: blob.size });
      return createObjectURL.apply(this, arguments);
    };
    const seen = new WeakSet();
    new MutationObserver(() => {
      for (const frame of document.querySelectorAll("iframe.nb-elicit-app-frame-outer")) {
        if (seen.has(frame)) continue;
        seen.add(frame);
        const record = { at: now(), load: null, ready: null, initialized: null };
        bench.frames.push(record);
        frame.__bench = record;
        frame.addEventListener("load", () => { record.load = record.load || now(); });
      }
    }).observe(document, { childList: true, subtree: true });
    window.addEventListener("message", (event) => {
      const method = event.data && event.data.method;
      if (method !== "ui/notifications/sandbox-proxy-ready" && method !== "ui/notifications/initialized") return;
      const at = now();
      for (const frame of document.querySelectorAll("iframe.nb-elicit-app-frame-outer")) {
        if (frame.contentWindow !== event.source || !frame.__bench) continue;
        const key = method.endsWith("proxy-ready") ? "ready" : "initialized";
        frame.__bench[key] = frame.__bench[key] || at;
      }
    }, true);
    return;
  }

  // -- an app frame (the clock app): its label, its connection, its result on screen ----------
  // (sent once the result is in the DOM, again once it is painted, and for each later paint
  // entry: Chromium reports them when the frame is presented, which may come after)
  // (Playwright may install its binding in a frame after the frame's scripts began: a report
  // made before it is tried again, for up to 10 s)
  let retries = 0;
  const report = () => {
    if (!bench.label || !bench.result) return;
    if (typeof window.__benchApp === "function") {
      window.__benchApp(JSON.stringify(bench)).catch(() => {});
    } else if (retries < 200) {
      retries += 1;
      setTimeout(report, 50);
    }
  };
  const text = (id) => {
    const element = document.getElementById(id);
    return element ? element.textContent : null;
  };
  const check = () => {
    if (!bench.app && document.getElementById("source")) bench.app = true;
    if (!bench.app) return;
    const label = text("label");
    if (!bench.label && label && /^(round|live|floor)-/.test(label)) {
      bench.label = label;
      bench.labelAt = now();
    }
    if (!bench.connected && text("state") === "connected") bench.connected = now();
    if (!bench.result && text("source") === "from the clock tool's result") {
      bench.result = now();
      report();
      requestAnimationFrame(() => {
        bench.frame = now();
        // (after the frame that shows the result is painted: the task after the rAF callback)
        setTimeout(() => {
          bench.painted = now();
          report();
        }, 0);
      });
    }
  };
  document.addEventListener("DOMContentLoaded", () => { bench.dcl = now(); check(); });
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
})();
