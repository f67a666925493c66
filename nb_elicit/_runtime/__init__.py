"""The runtime: connections, calls in flight, asking the person, pending prompts.

It imports the pure model, the widgets and the SDK adapter (``nb_elicit._mcp``).
"""
