"""The stylesheet of the request widgets (forms and cards), one per prompt's own class."""

from __future__ import annotations

__all__ = ["stylesheet"]

#: The prompt's stylesheet, ``.P`` standing for its own class. JupyterLab's ``--jp-*``
#: variables only, so it follows the light and dark themes. Labels sit above the inputs, all
#: of which start at the same left edge and share one width, a checkbox group's box included
#: (docs/forms.md says why); inputs use JupyterLab's UI font, as its own inputs do; an
#: answered prompt's ✕ fades to a glyph with no button around it, and its inputs keep what was
#: typed in the input colour on a read-only background (ipywidgets fades a disabled input to
#: 0.6, which made the answer look like a placeholder).
_CSS = """
.P { max-width: 46em; box-sizing: border-box; padding: 8px 14px 6px 14px;
     border: var(--jp-border-width) solid var(--jp-border-color2); border-radius: 4px;
     background: var(--jp-layout-color1); color: var(--jp-ui-font-color1); }
.P > .jupyter-widgets { margin-left: 0; margin-right: 0; }
.P .widget-html-content { line-height: 1.4; }
.P .widget-box { overflow: visible; }
.P { position: relative; }
.P > .nb-elicit-dismiss { position: absolute; top: 8px; right: 14px; margin: 0; }
.P > .nb-elicit-header { min-width: 0; padding: 4px calc(2.5em + 8px) 0 0; margin: 0;
     font-size: var(--jp-content-font-size1); }
.P .nb-elicit-server { font-weight: 600; }
.P .nb-elicit-waited { color: var(--jp-content-font-color2); font-size: var(--jp-ui-font-size0);
     margin: 0 0 10px 0; }
.P .nb-elicit-dismiss { flex: none; width: 2.5em; }
.P .jupyter-button:disabled { cursor: default; }
.P.nb-elicit-locked .nb-elicit-dismiss { background: transparent; box-shadow: none;
     color: var(--jp-content-font-color2); opacity: 1; }
.P .nb-elicit-hidden { display: none !important; }
.P > .nb-elicit-field, .P > .nb-elicit-part { position: relative; width: 100%; max-width: 32em;
     box-sizing: border-box; }
.P > .nb-elicit-field { margin: 0 0 14px 0; }
.P > .nb-elicit-part { margin: -10px 0 14px 0; }
.P .nb-elicit-labelled { flex-direction: column; align-items: stretch; height: auto; }
.P .nb-elicit-labelled > .widget-label, .P .nb-elicit-legend { width: auto; max-width: none;
     height: auto; line-height: 1.4; text-align: left; white-space: normal; overflow: visible;
     margin: 0 0 2px 0; padding: 0; font-weight: 600; font-size: var(--jp-ui-font-size1);
     color: var(--jp-ui-font-color1); }
.P .nb-elicit-label { font-weight: 600; font-size: var(--jp-ui-font-size1);
     color: var(--jp-ui-font-color1); }
.P .nb-elicit-help { color: var(--jp-content-font-color2); font-size: var(--jp-ui-font-size1); }
.P .nb-elicit-label-text { white-space: pre-wrap; }
.P .nb-elicit-mark { color: var(--jp-error-color1); font-weight: normal; }
.P .nb-elicit-sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
     border: 0; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%);
     white-space: nowrap; }
.P .nb-elicit-label .nb-elicit-error-text, .P .nb-elicit-labelled .nb-elicit-error-text {
     display: block; white-space: pre-wrap; font-weight: normal; margin-top: 2px; }
.P .nb-elicit-help-text { display: block; white-space: pre-wrap; font-weight: normal;
     color: var(--jp-content-font-color2); font-size: var(--jp-ui-font-size1); margin-top: 2px; }
.P input, .P select, .P textarea, .P button { font-family: var(--jp-ui-font-family); }
.P .nb-elicit-labelled > input:not([type=checkbox]):not([type=radio]),
.P .nb-elicit-labelled > select { flex: 1 1 auto; width: 100%; min-width: 0;
     box-sizing: border-box; height: var(--jp-widgets-inline-height); }
.P .widget-datetimepicker > input { font-size: var(--jp-widgets-font-size);
     color: var(--jp-widgets-input-color); background: var(--jp-widgets-input-background-color);
     border: var(--jp-widgets-input-border-width) solid var(--jp-widgets-input-border-color);
     padding: var(--jp-widgets-input-padding) calc(var(--jp-widgets-input-padding) * 2);
     outline: none; }
.P .widget-datetimepicker > input:focus {
     border-color: var(--jp-widgets-input-focus-border-color); }
.P .nb-elicit-invalid.nb-elicit-labelled > input,
.P .nb-elicit-invalid.nb-elicit-labelled > select { border-color: var(--jp-error-color1); }
.P .nb-elicit-error-text { color: var(--jp-error-color1); }
.P .nb-elicit-group { padding: 6px 10px 8px 10px;
     box-sizing: border-box; border: var(--jp-border-width) solid var(--jp-border-color2);
     border-radius: 2px; }
.P .nb-elicit-options > .jupyter-widgets { margin: 0; }
.P .nb-elicit-options > .nb-elicit-option { height: 24px; width: auto; max-width: 100%; }
.P .widget-radio-box { padding: 3px 4px; margin: 0 0 0 -4px; overflow: visible; }
.P .nb-elicit-labelled.widget-radio { overflow: visible; }
.P .widget-checkbox input:disabled + span,
.P.nb-elicit-locked .widget-radio-box label { color: var(--jp-content-font-color2); }
.P.nb-elicit-form { flex-flow: row wrap; align-items: flex-start; column-gap: 8px; }
.P.nb-elicit-form > .jupyter-widgets { flex: 0 0 100%; }
.P.nb-elicit-form > .nb-elicit-action { flex: 0 0 auto; margin: 2px 0 4px 0; }
.P .nb-elicit-actions { gap: 8px; margin: 2px 0 4px 0; }
.P .nb-elicit-actions > .jupyter-widgets { margin: 0; }
.P .nb-elicit-status { margin: 0; }
.P.nb-elicit-locked input:disabled:not([type=checkbox]):not([type=radio]),
.P.nb-elicit-locked select:disabled, .P.nb-elicit-locked textarea:disabled { opacity: 1;
     color: var(--jp-widgets-input-color); -webkit-text-fill-color: var(--jp-widgets-input-color);
     background: var(--jp-layout-color2); }
.P .nb-elicit-status-error { color: var(--jp-error-color1); }
"""


def stylesheet(css_class: str) -> str:
    """The stylesheet of the prompt whose root has the class ``css_class``."""
    return _CSS.replace(".P", "." + css_class).strip()
