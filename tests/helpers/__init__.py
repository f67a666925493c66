"""Shared helpers of the test suite: servers and the demo journal, a scripted person, a
scripted widget frontend, and notebook helpers. Test modules import from here, never from
each other or from ``conftest``."""
