// The test's stand-in for VS Code's notebook output page (see tests/helpers/vscode.py for what
// it emulates and what it does not). Our own code, around the real npm packages: require.js,
// @vscode/jupyter-ipywidgets8 (ipywidgets.js) and a KernelConnection of @jupyterlab/services
// (services.js, bundled by the test). The page's address carries the server's token, the id of
// a kernel started without a session, and the notebook file that VS Code would name.
//
// window.vsc is what the test drives: vsc.ready (or vsc.failure), vsc.run(code) -> the cell's
// index (its outputs appear under .vsc-cell[data-cell=N]; data-state becomes "done" and
// data-status "ok" or "error" once the kernel replied).
(function () {
  "use strict";
  const WIDGET = "application/vnd.jupyter.widget-view+json";
  const query = new URLSearchParams(location.search);
  const vsc = (window.vsc = { ready: false, failure: null, cells: [] });
  const log = (...args) => console.debug("[vsc]", ...args);
  let kernel = null;
  let manager = null;
  const byRequest = new Map(); // an execute request's msg_id -> its cell
  const byDisplay = new Map(); // display_id -> the output elements that show it

  // -- widget scripts: VS Code copies the environment's share/jupyter/nbextensions next to its
  // page and makes that copy require.js's base; a widget module's entry is what the module's
  // nbextensions/<name>/extension.js configures in require.js (VS Code reads that config out of
  // the file; here the file runs and configures it).
  const scriptLoader = {
    widgetsRegisteredInRequireJs: new Set(),
    async loadWidgetScript(moduleName, moduleVersion) {
      log(`widget script for ${moduleName}@${moduleVersion}`);
      await new Promise((resolve, reject) =>
        window.requirejs([`nbextensions/${moduleName}/extension`], resolve, reject));
      this.widgetsRegisteredInRequireJs.add(moduleName);
    },
    successHandler(className, moduleName) { log(`loaded ${moduleName}.${className}`); },
    errorHandler(className, moduleName, moduleVersion, error) {
      console.error(`[vsc] could not load ${moduleName}.${className}`, error);
    },
  };

  // -- outputs, each in its own element, as VS Code's renderers draw them ----------------------

  function clear(element) {
    if (element.vscWidget) {
      element.vscWidget.dispose();
      element.vscWidget = null;
    }
    element.replaceChildren();
  }

  // The widget renderer: a model the manager knows is drawn with create_view and display_view,
  // as VS Code's page does; one it does not know goes to the next renderer.
  async function renderWidget(element, data) {
    let found = manager.get_model(data.model_id);
    for (let tries = 0; !found && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = manager.get_model(data.model_id);
    }
    if (!found) return false;
    const model = await found;
    const view = await manager.create_view(model, { el: element });
    element.vscWidget = await manager.display_view(data, view, { node: element });
    return true;
  }

  // application/javascript: a module script in the output's element (VS Code's built-in
  // renderer, in a trusted workspace).
  function renderScript(element, code) {
    const script = document.createElement("script");
    script.type = "module";
    script.textContent = code;
    element.append(script);
  }

  // text/html: the markup, its scripts run.
  function renderHtml(element, html) {
    const holder = document.createElement("div");
    holder.innerHTML = html;
    element.append(holder);
    for (const old of holder.querySelectorAll("script")) {
      const script = document.createElement("script");
      for (const { name, value } of old.attributes) script.setAttribute(name, value);
      script.textContent = old.textContent;
      old.replaceWith(script);
    }
  }

  function renderText(element, text, kind) {
    const pre = document.createElement("pre");
    pre.className = kind;
    pre.textContent = text;
    element.append(pre);
  }

  async function render(element, bundle) {
    clear(element);
    element.dataset.mime = "";
    if (bundle[WIDGET] && (await renderWidget(element, bundle[WIDGET]))) {
      element.dataset.mime = WIDGET;
      return;
    }
    for (const [mime, draw] of [["application/javascript", renderScript],
                                ["text/html", renderHtml],
                                ["text/plain", (el, text) => renderText(el, text, "vsc-text")]]) {
      if (typeof bundle[mime] === "string") {
        element.dataset.mime = mime;
        draw(element, bundle[mime]);
        return;
      }
    }
  }

  function newOutput(cell) {
    if (cell.clearOnNext) {
      cell.clearOnNext = false;
      for (const element of cell.outputs.children) clear(element);
      cell.outputs.replaceChildren();
    }
    const element = document.createElement("div");
    element.className = "vsc-output";
    cell.outputs.append(element);
    return element;
  }

  const ansi = /\x1b\[[0-9;]*m/g;

  function onIOPub(_, msg) {
    const type = msg.header.msg_type;
    const content = msg.content;
    if (type === "update_display_data") {
      for (const element of byDisplay.get(content.transient?.display_id) || []) {
        render(element, content.data).catch((e) => console.error("[vsc] render", e));
      }
      return;
    }
    const cell = byRequest.get(msg.parent_header?.msg_id);
    if (!cell) return;
    if (type === "clear_output") {
      cell.clearOnNext = true;
      if (!content.wait) newOutput(cell).remove();
    } else if (type === "stream") {
      const last = cell.outputs.lastElementChild;
      const pre = last?.querySelector(`:scope > pre.vsc-${content.name}`);
      if (pre && !cell.clearOnNext) pre.textContent += content.text;
      else renderText(newOutput(cell), content.text, `vsc-${content.name}`);
    } else if (type === "display_data" || type === "execute_result") {
      const element = newOutput(cell);
      const id = content.transient?.display_id;
      if (id) {
        if (!byDisplay.has(id)) byDisplay.set(id, []);
        byDisplay.get(id).push(element);
      }
      render(element, content.data).catch((e) => console.error("[vsc] render", e));
    } else if (type === "error") {
      const text = [`${content.ename}: ${content.evalue}`, ...content.traceback].join("\n");
      renderText(newOutput(cell), text.replace(ansi, ""), "vsc-error");
    }
  }

  // -- cells ------------------------------------------------------------------------------------

  function execute(code, options = {}) {
    const future = kernel.requestExecute({ code, stop_on_error: true, ...options });
    return future;
  }

  vsc.run = function run(code) {
    const index = vsc.cells.length;
    const node = document.createElement("div");
    node.className = "vsc-cell";
    node.dataset.cell = String(index);
    node.dataset.state = "running";
    const source = document.createElement("pre");
    source.className = "vsc-source";
    source.textContent = code;
    const outputs = document.createElement("div");
    outputs.className = "vsc-outputs";
    node.append(source, outputs);
    document.getElementById("cells").append(node);
    const cell = { node, outputs, clearOnNext: false };
    vsc.cells.push(cell);
    const future = execute(code);
    byRequest.set(future.msg.header.msg_id, cell);
    future.done.then(
      (reply) => { node.dataset.status = reply.content.status; },
      (error) => { node.dataset.status = "error"; console.error("[vsc] execute", error); },
    ).finally(() => { node.dataset.state = "done"; });
    return index;
  };

  // -- start-up ---------------------------------------------------------------------------------

  async function start() {
    // The renderer's preloads: require.js (a script of the page), then the ES module of
    // @vscode/jupyter-ipywidgets8, activated, then loaded as VS Code's page does for
    // ipywidgets 8: it defines @jupyter-widgets/base, controls and output in require.js.
    const widgets8 = await import(new URL("ipywidgets.js", location.href).href);
    widgets8.activate();
    window.vscIPyWidgets8.load();
    window.requirejs.config({ baseUrl: new URL("jupyter/", location.href).href });

    // The kernel: a KernelConnection of @jupyterlab/services to the kernel the test started
    // with no session. VS Code's proxy kernel reports no subshells: comms go on the shell.
    const { KernelConnection, ServerConnection } = window.jupyterlabServices;
    const serverSettings = ServerConnection.makeSettings({
      baseUrl: `${location.origin}/`, token: query.get("token"), appendToken: true,
    });
    kernel = new KernelConnection({
      model: { id: query.get("kernel"), name: "python3" }, serverSettings,
      commsOverSubshells: "disabled", handleComms: true,
    });
    await kernel.info;
    kernel.iopubMessage.connect(onIOPub);

    // The widget manager, as VS Code's page makes it: (kernel, container, scriptLoader, logger).
    manager = new window.vscIPyWidgets.WidgetManager(
      kernel, document.getElementById("widgets"), scriptLoader, log);

    // VS Code's start-up code in the kernel: the notebook's file, in the person's namespace
    // (left out when the address names no file).
    if (query.get("file")) {
      const file = JSON.stringify(query.get("file"));
      const reply = await execute(`__vsc_ipynb_file__ = ${file}`,
                                  { silent: true, store_history: false }).done;
      if (reply.content.status !== "ok") throw new Error("the start-up code failed");
    }
    vsc.ready = true;
  }

  start().catch((error) => {
    vsc.failure = String(error?.stack || error);
    console.error("[vsc] start-up failed", error);
  });
})();
