"""A server's requested schema: its fields, their checks, what a form shows first
and what is sent."""
