"""The shared model kit: layouts and styles every widget of the kernel shares.

A widget model is costly (creating one, and announcing it to the frontend, is most of the time
a form takes to build); the kit's models never differ, so the kernel makes each once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import ipywidgets as widgets

from .._core.kernel import part

__all__ = ["Kit", "SharedModels", "is_shared", "synced_keys"]


@functools.cache
def _synced(widget_class: type[widgets.Widget]) -> tuple[str, ...]:
    return tuple(widget_class.class_trait_names(sync=True))


def synced_keys(widget_class: type[widgets.Widget]) -> list[str]:
    """The traits a widget of this class sends to the frontend (its ``keys``), as ipywidgets
    finds them for each new widget, found once per class: given at construction, they spare
    every widget that search (a tenth of the time a widget takes to make)."""
    # (ipywidgets has no types: its classes are type[Any] to mypy, which it takes for no
    # Hashable)
    return list(_synced(widget_class))  # type: ignore[arg-type]


class SharedModels(dict[object, widgets.Widget]):
    """The kit's models, one of each kind for the whole kernel (see :class:`Kit`): a part of
    the kernel's owner (:mod:`nb_elicit._core.kernel`), by kind."""

#: The attribute that marks a model as the kit's: closing a widget leaves such models open.
_SHARED_MARK = "_nb_elicit_shared"


def is_shared(model: widgets.Widget) -> bool:
    """Whether this model is one of the kit's, which every prompt of the kernel shares."""
    return getattr(model, _SHARED_MARK, False) is True


def _shared(key: object, make: Callable[[], widgets.Widget]) -> widgets.Widget:
    shared = part(SharedModels)
    model = shared.get(key)
    if model is None or model.comm is None:  # not made yet, or closed (Widget.close_all())
        model = make()
        setattr(model, _SHARED_MARK, True)
        shared[key] = model
    return model


class Kit:
    """Layouts and styles that controls share: a widget model is costly (creating one, and
    announcing it to the frontend, is most of the time a form takes to build), and these
    never differ. Every prompt of the kernel shares the same few (a plain layout, one style per
    widget kind): they are made on first use, closing a prompt leaves them open
    (:func:`is_shared`), and they are made again if something closed them. Nothing may change
    them: a widget whose layout or style changes has its own. (A kit holds nothing: the models
    are the kernel's :class:`SharedModels`.)"""

    # (Widths, spacing and colours come from the prompt's stylesheet, not from layouts.)
    @property
    def plain(self) -> widgets.Layout:
        return _shared(widgets.Layout, lambda: widgets.Layout(keys=synced_keys(widgets.Layout)))

    def style(self, widget_class: type[widgets.Widget]) -> widgets.Widget:
        """One style model per widget kind (Text, Dropdown, HTML, ...)."""
        klass = widget_class.class_traits()["style"].klass
        return _shared(klass, lambda: klass(keys=synced_keys(klass)))
