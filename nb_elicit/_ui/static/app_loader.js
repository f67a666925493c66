// AppFrame's `_esm`: the host module (app_host.js) is asked of the kernel once per page, made a
// module once, and kept on globalThis under its sha256; every frame renders with that module.
// app_frame.py fills in the sha and the wait, and drops the comments and the indentation.
const SHA = "__SHA256__", WAIT = __WAIT_MS__, KEY = "nb_elicit.app_host." + SHA, G = globalThis;
const ask = (model, signal) => new Promise((resolve, reject) => {
  const stop = (error) => {
    clearTimeout(timer);
    model.off("msg:custom", take);
    signal?.removeEventListener("abort", gone);
    if (error) reject(error);
  };
  const gone = () => stop(Object.assign(new Error("the asking frame went away"), { gone: true }));
  const late = () => stop(new Error(`no host code from the kernel within ${WAIT / 1000} s`));
  const timer = setTimeout(late, WAIT);
  // Only the reply to this model's own request, for this very bundle, is taken.
  const take = (msg) => {
    if (msg?.kind !== "host-code" || msg.sha !== SHA || typeof msg.code !== "string") return;
    stop();
    const url = URL.createObjectURL(new Blob([msg.code], { type: "text/javascript" }));
    import(url).then(resolve, reject).finally(() => URL.revokeObjectURL(url));
  };
  model.on("msg:custom", take);
  signal?.addEventListener("abort", gone);
  model.send({ kind: "host-code", sha: SHA });
});
const host = (model, signal) => {
  let pending = G[KEY];
  if (!pending) {
    pending = G[KEY] = ask(model, signal);
    // (a failed load is forgotten: the next frame asks again)
    pending.catch(() => { if (G[KEY] === pending) delete G[KEY]; });
  }
  return pending;
};
// The app's HTML that Python pushed right after the comm_open (a frame not held), by the
// frame's `_key` until its first view takes it (anywidget hands the model its messages only
// once `initialize` ran, so it is never missed); forgotten with the model.
const PUSHED = (G["nb_elicit.app_html." + SHA] ??= new Map());
// (asked as soon as the model is made, before its view: anywidget waits for no answer here)
function initialize({ model, signal }) {
  host(model, signal);
  const key = model.get("_key");
  const take = (msg) => {
    if (msg?.kind !== "html" || msg.pushed !== true || typeof msg.html !== "string") return;
    model.off("msg:custom", take);
    PUSHED.set(key, msg.html);
  };
  if (key) model.on("msg:custom", take);
  signal?.addEventListener("abort", () => PUSHED.delete(key, model.off("msg:custom", take)));
}
async function render(props) {
  const { model, el, signal } = props;
  let module = null;
  while (!module) {
    try {
      module = await host(model, signal);
    } catch (error) {
      if (signal?.aborted) return;
      // (the frame that asked is gone: this one asks)
      if (error?.gone) continue;
      const notice = document.createElement("div");
      notice.className = "nb-elicit-app-frame-notice";
      notice.setAttribute("role", "status");
      notice.textContent = model.get("_texts")?.not_started || "The app did not start.";
      el.classList.add("nb-elicit-app-frame");
      el.append(notice);
      try {
        model.set("status", `failed: ${String(error?.message ?? error).slice(0, 200)}`);
        model.save_changes();
      } catch {
        // (Python closed the model already: it ended the app, and hears nothing more)
      }
      return;
    }
  }
  if (signal?.aborted) return;
  // (the first view takes the pushed HTML; any other asks Python, which says it is gone)
  const key = model.get("_key"), html = PUSHED.get(key);
  PUSHED.delete(key);
  return module.default.render({ ...props, html });
}
export default { initialize, render };
