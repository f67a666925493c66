"""Tasks: their statuses and shapes, and the owner-only file of running ones."""
