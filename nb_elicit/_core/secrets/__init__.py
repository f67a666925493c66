"""Secrets: which names and fields ask for one, and masking the values given."""
