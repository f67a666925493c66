"""The consent card for the permissions an app's resource asks for (``_meta.ui.permissions``:
geolocation, clipboard-write), shown before its frame is given any. Camera and microphone
(:data:`~nb_elicit._core.apps.NOT_OFFERED`) are never offered: one line of the card says so.

The card names the server and each permission, one checkbox each (ticked: the person sees what
is asked, and unticks what they will not give). **Allow** answers ``accept`` with the ticked
ones, ``{"granted": [...]}`` (keys of :data:`~nb_elicit._core.apps.PERMISSIONS`), and only
then does the app start, with those alone in its frame's ``allow`` attribute; **Decline** and
**Dismiss** (✕) answer ``decline`` and ``cancel``, and the app starts with none.
"""

from __future__ import annotations

import html
from collections.abc import Container

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.apps import NOT_OFFERED, PERMISSIONS
from .._core.i18n import t
from .kit import synced_keys
from .prompt import PromptWidget, make_button

__all__ = ["PermissionCard", "permission_names"]


def permission_names(keys: Container[str]) -> str:
    """The permissions ``keys`` in words ("your location, writing to your clipboard"), or
    "nothing" (those never offered, :data:`~nb_elicit._core.apps.NOT_OFFERED`, last)."""
    names = [t(f"permission_{key}") for key in (*PERMISSIONS, *NOT_OFFERED) if key in keys]
    return ", ".join(names) or t("permissions_nothing")


class PermissionCard(PromptWidget):
    """Asks whether an app of ``server`` may have ``permissions`` (keys of
    :data:`~nb_elicit._core.apps.PERMISSIONS`; others are left out); ``not_offered``, those it
    asked for that are never offered (of :data:`~nb_elicit._core.apps.NOT_OFFERED`), are named
    in one line."""

    def __init__(self, message: str, permissions: Container[str], *,
                 server: str = "MCP server", not_offered: Container[str] = (),
                 **kwargs: object):
        super().__init__(message, server, t("asks_permissions", server=server), **kwargs)
        self.permissions = tuple(key for key in PERMISSIONS if key in permissions)
        self.not_offered = tuple(key for key in NOT_OFFERED if key in not_offered)
        self.boxes = {key: widgets.Checkbox(
            value=True, description=t(f"permission_{key}"), indent=False,
            style=self.kit.style(widgets.Checkbox), keys=synced_keys(widgets.Checkbox),
            _dom_classes=("nb-elicit-permission", f"nb-elicit-permission-{PERMISSIONS[key]}"))
            for key in self.permissions}
        self.allow_button = make_button(t("permissions_allow"), "nb-elicit-allow",
                                        t("permissions_allow.tip"), style="primary",
                                        kit=self.kit)
        self.allow_button.on_click(lambda _: self._guarded(self.consent))
        about = self.html(f"<div>{html.escape(t('permissions_about'))}</div>",
                          "nb-elicit-permissions-about")
        lines = list(self.boxes.values())
        if self.not_offered:
            names = permission_names(self.not_offered)
            lines.append(self.html(
                f"<div>{html.escape(t('permissions_not_offered', names=names))}</div>",
                "nb-elicit-permissions-not-offered"))
        listed = widgets.VBox(lines, layout=self.kit.plain,
                              _dom_classes=("nb-elicit-permissions",))
        actions = self.row([self.allow_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-permission-card")
        self.body([listed, about, actions, self.status])

    def plain_text(self) -> str:
        return f"[{self.server} asks for its app: {permission_names(self.permissions)}]"

    @property
    def ticked(self) -> list[str]:
        """The permissions ticked now, in :data:`PERMISSIONS`' order."""
        return [key for key in self.permissions if self.boxes[key].value]

    def consent(self) -> bool:
        """Answer ``accept`` with the ticked permissions (none ticked: the app gets none)."""
        with self._lock:
            if self.answer.done():
                return False
            granted = self.ticked
            self._finish(Answer("accept", {"granted": granted}),
                         t("permissions_consented", names=permission_names(granted)))
            return True

    def _buttons(self) -> list[widgets.Button]:
        return [self.allow_button, *super()._buttons()]

    def _lock_body(self) -> None:
        for box in self.boxes.values():
            box.disabled = True
