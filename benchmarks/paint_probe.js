// What the paint section reads in JupyterLab's page: when a prompt's first input is in the DOM,
// visible, focusable, and painted. The runner arms it before it runs a cell:
//   window.__benchPaint.arm({cell: INDEX, box: ".nb-elicit-form", label: "nb-10-3"})
// and reads window.__benchPaint.results[label] once it is `painted`. Every time is wall-clock
// epoch ms (performance.timeOrigin + performance.now()), aligned with the kernel's and the
// server's time.time() by the runner.
(() => {
  if (window !== window.top || window.__benchPaint) return;
  const now = () => performance.timeOrigin + performance.now();
  const FIELDS = "input, select, textarea";
  const bench = (window.__benchPaint = { armed: null, results: {} });

  const visible = (element) => {
    if (!element.isConnected || element.disabled) return false;
    const rect = element.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return false;
    if (rect.bottom <= 0 || rect.top >= innerHeight || rect.right <= 0 || rect.left >= innerWidth)
      return false;  // (laid out, but off screen)
    return element.checkVisibility
      ? element.checkVisibility({ opacityProperty: true, visibilityProperty: true })
      : true;
  };

  const check = (source) => {
    const armed = bench.armed;
    if (!armed || armed.visible) return;
    const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[armed.cell];
    const box = cell && cell.querySelector(`.jp-OutputArea ${armed.box}`);
    if (box && !armed.box_dom) armed.box_dom = now();
    const field = box && box.querySelector(FIELDS);
    if (!field) return;
    if (!armed.dom) armed.dom = now();
    if (!visible(field)) return;
    const at = now();
    // Focusable: focus() takes it (a field that cannot take the keyboard yet refuses).
    field.focus({ preventScroll: true });
    if (document.activeElement !== field) return;
    armed.visible = at;
    armed.focused = now();
    armed.source = source;
    armed.fields = box.querySelectorAll(FIELDS).length;
    // Painted: the frame that shows it is done once the task after its animation frame runs.
    requestAnimationFrame(() => {
      armed.frame = now();
      setTimeout(() => {
        armed.painted = now();
        bench.results[armed.label] = { ...armed };
        if (bench.armed === armed) bench.armed = null;
      }, 0);
    });
  };

  // (every DOM change, and every animation frame while armed: a field may become visible
  // without a mutation of its own, as a style sheet or its parent's layout arrives)
  new MutationObserver(() => check("mutation")).observe(document, {
    childList: true, subtree: true, attributes: true, characterData: true,
  });
  const frame = () => {
    if (bench.armed && !bench.armed.visible) check("frame");
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);

  bench.arm = (options) => {
    bench.armed = { ...options, armed: now() };
    delete bench.results[options.label];
  };
})();
