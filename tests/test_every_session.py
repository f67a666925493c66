"""Sessions made without an elicitation hook get nb_elicit's (answer_every_session).

In a fresh interpreter each: turning it on imports no SDK, and wraps the SDK's ClientSession when
it is imported later; a hook a framework passes is never replaced; off leaves later sessions as
the SDK makes them. (Real kernels and a real server: tests/test_hooks_kernel.py.)
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(120)

SCRIPT = """
import sys
import anyio
from nb_elicit._mcp import every_session

def ours(*args):
    return None

every_session.turn(lambda: ours)
print("sdk imported by turn:", "mcp" in sys.modules)
from mcp import ClientSession

send, receive = anyio.create_memory_object_stream(1)

def theirs(*args):
    return None

plain = ClientSession(receive, send)
with_hook = ClientSession(receive, send, elicitation_callback=theirs)
positional = ClientSession(receive, send, None, None, theirs)
print("plain:", every_session.given(plain), plain._elicitation_callback is ours)
print("theirs kept:", with_hook._elicitation_callback is theirs,
      positional._elicitation_callback is theirs, every_session.given(with_hook))
every_session.turn(None)
later = ClientSession(receive, send)
print("off:", every_session.given(later), later._elicitation_callback is ours)
"""


def test_sessions_without_a_hook_get_ours_and_no_other_is_touched():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT)], capture_output=True,
                         text=True, timeout=100)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "sdk imported by turn: False",
        "plain: True True",
        "theirs kept: True True False",
        "off: False False",
    ]


def test_answer_every_session_takes_a_bool_only():
    import nb_elicit

    with pytest.raises(nb_elicit.ArgumentTypeError, match="True or False"):
        nb_elicit.answer_every_session("yes")
