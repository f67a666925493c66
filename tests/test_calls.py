"""Calls in flight (nb_elicit._runtime.calls): how a call ends, and which view its forms use.

Real servers over stdio; the display is replaced by handles that keep every transcript (the
static record a finished call leaves in its cell), so tests can read what a cell would keep.
"""

import pytest
from conftest import demo_command, drive

import nb_elicit
from nb_elicit._ui.call_view import CallView

pytestmark = pytest.mark.timeout(120)


class Handle:
    """A display handle that keeps every bundle its output was updated to."""

    def __init__(self):
        self.bundles: list[dict] = []

    def update(self, obj) -> None:
        self.bundles.append(obj._repr_mimebundle_())

    @property
    def transcript(self) -> str:
        assert self.bundles, "nothing was left in the cell"
        return self.bundles[-1]["text/plain"]


@pytest.fixture
def shown(monkeypatch) -> list[CallView]:
    """Every CallView a call displays, in order; ``view.display_handle`` is a :class:`Handle`."""
    views = []

    def display(obj, **kwargs):
        if isinstance(obj, CallView):
            views.append(obj)
        return Handle()

    monkeypatch.setattr("nb_elicit._ui.call_view.display", display)
    return views


# -- defect: success was told from sys.exc_info() ----------------------------------------------

def test_a_call_awaited_inside_an_except_block_shows_its_result_in_the_transcript(record, shown):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(record))
        try:
            raise KeyError("something the caller is handling")
        except KeyError:
            return await conn.call_tool("hello")

    result = drive(scenario)
    assert result.text == "Hello, world!"
    (view,) = shown
    assert view.frozen
    assert view.display_handle.transcript.splitlines()[:2] == ["[demo · hello]", "Hello, world!"]
