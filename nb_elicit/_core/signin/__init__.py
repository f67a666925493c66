"""Signing in: how a connection signs in, and its tokens."""
