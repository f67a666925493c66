"""The widgets: forms, consent cards and the view a call leaves in its cell.

It imports ipywidgets and the pure model, never the runtime or the SDK.
"""
