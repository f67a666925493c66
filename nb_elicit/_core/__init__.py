"""The pure model: schemas, validation, texts, policies, history, recordings and transcripts.

Nothing here imports ipywidgets or the MCP SDK; a test proves it.
"""
