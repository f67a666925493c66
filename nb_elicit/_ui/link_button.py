"""A button that is a link: one click opens a page in a new tab and tells Python it was clicked.

An ipywidgets ``Button`` cannot open a page: its click reaches the kernel, and a page opened
from the kernel's answer comes too late for the browser's pop-up blocker (only the click's own
handler may open one). So a consent card that opens a page on one click (the sign-in card's
**Sign in**) shows :class:`LinkButton` instead: a real ``<a target="_blank" rel="noopener
noreferrer">`` that looks like the card's other buttons, whose ``href`` is set before the
click, so the browser opens the page itself, and whose click is then sent to Python as one
custom message (``{"event": "click"}``), heard by :meth:`LinkButton.on_click`.

The address comes from a server: it is set as an attribute by the DOM (``a.href``), never
written into HTML, and the front end takes it only when it is https or http to this machine
(the rule of :func:`~nb_elicit._core.url.https_or_loopback`, checked in Python before);
anything else, an empty ``href`` or ``disabled`` leaves an ``<a>`` with no ``href``, which
opens nothing. Its words are text (``textContent``, ``title``). Clearing ``href`` takes the
address off the page and out of the saved widget state.
"""

from __future__ import annotations

from collections.abc import Callable

import anywidget
import traitlets

__all__ = ["LinkButton"]

_ESM = r"""
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function allowed(href) {
  try {
    const url = new URL(href);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
  } catch {
    return false;
  }
}

function render({ model, el }) {
  const link = document.createElement("a");
  link.className = "jupyter-widgets jupyter-button widget-button nb-elicit-link-button";
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.referrerPolicy = "no-referrer";
  link.style.cssText = "display:inline-flex;align-items:center;justify-content:center;"
    + "box-sizing:border-box;text-decoration:none;cursor:pointer;white-space:nowrap;"
    + "padding:0 12px;width:auto;";
  const show = () => {
    const href = model.get("href") || "";
    const open = !model.get("disabled") && href !== "" && allowed(href);
    link.textContent = model.get("description") || "";
    link.title = model.get("tooltip") || "";
    link.classList.toggle("mod-primary", model.get("button_style") === "primary");
    if (open) {
      link.href = href;
      link.removeAttribute("aria-disabled");
      link.style.opacity = "";
      link.style.cursor = "pointer";
    } else {
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
      link.style.opacity = "0.6";
      link.style.cursor = "default";
    }
  };
  link.addEventListener("click", (event) => {
    if (!link.hasAttribute("href")) {
      event.preventDefault();
      return;
    }
    model.send({ event: "click" });  // (the browser opens the page itself: a real link)
  });
  model.on("change", show);
  show();
  el.append(link);
  return () => model.off("change", show);
}

export default { render };
"""


class LinkButton(anywidget.AnyWidget):
    """A link that looks like a button (see the module's docstring)."""

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    #: The page it opens (https, or http to this machine); "" opens nothing.
    href = traitlets.Unicode("").tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    tooltip = traitlets.Unicode("").tag(sync=True)
    #: "primary" looks like a card's main button.
    button_style = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._click_handlers: list[Callable[[LinkButton], object]] = []
        self.on_msg(self._heard)

    def on_click(self, callback: Callable[[LinkButton], object]) -> None:
        """Call ``callback(self)`` when the person clicks the link (and the page opens)."""
        self._click_handlers.append(callback)

    def click(self) -> None:
        """What a click does in Python (the page itself opens only in a browser)."""
        if self.disabled or not self.href:
            return
        for callback in list(self._click_handlers):
            callback(self)

    def _heard(self, _widget: object, content: object, _buffers: object) -> None:
        if isinstance(content, dict) and content.get("event") == "click":
            self.click()
