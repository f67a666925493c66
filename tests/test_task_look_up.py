"""``%mcp tasks`` asks a server about a task only on a session that is open: it never opens one
(the other era's handshake may show a sign-in card, and a listing asks nothing of the person)."""

import asyncio
import time

import pytest

from nb_elicit._core.errors import NbElicitError
from nb_elicit._core.tasks.model import TaskShape, TaskState
from nb_elicit._core.tasks.store import SavedTask
from nb_elicit._mcp import Era
from nb_elicit._runtime import task_attach
from nb_elicit._runtime.state import kernel_state


class Remote:
    def __init__(self, task_id: str):
        self.task_id = task_id

    async def get(self) -> TaskState:
        return TaskState(self.task_id, "working")


class Session:
    usable = True

    def __init__(self):
        self.attached = []

    def attach(self, task_id, tool, shape):
        self.attached.append((task_id, tool, shape))
        return Remote(task_id)


class Pool:
    """What look_up needs of a SessionPool: the sessions open now, and one that must not be
    opened."""

    name = "srv"

    def __init__(self, open_now: dict):
        self.open_now = open_now
        self.opened = []

    def current(self, era):
        return self.open_now.get(era)

    async def session(self, era=None):
        self.opened.append(era)
        raise AssertionError("a listing opened a session")


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    # (the server the entry was saved on is not checked in these tests)
    monkeypatch.setattr(task_attach, "_same_server", lambda *args: None)


def save(task_id: str, shape: TaskShape) -> None:
    kernel_state().tasks.store.add(SavedTask(
        connection="srv", where="http://127.0.0.1:9/mcp", tool="slow", task_id=task_id,
        shape=str(shape), started=time.time() - 5))


def test_a_task_of_an_era_with_no_open_session_is_not_asked_and_nothing_is_opened():
    save("t-2025", TaskShape.V2025)
    pool = Pool({Era.V2026: Session()})
    with pytest.raises(NbElicitError, match="no session of this task's protocol open now"):
        asyncio.run(task_attach.look_up(pool, "t-2025"))
    assert pool.opened == []


def test_a_closed_session_is_not_asked_either():
    save("t-2025", TaskShape.V2025)
    closed = Session()
    closed.usable = False
    pool = Pool({Era.HANDSHAKE: closed})
    with pytest.raises(NbElicitError, match="%mcp task srv t-2025 attaches to it"):
        asyncio.run(task_attach.look_up(pool, "t-2025"))
    assert closed.attached == [] and pool.opened == []


def test_a_task_of_the_open_era_is_asked_there():
    save("t-ext", TaskShape.EXTENSION)
    session = Session()
    pool = Pool({Era.V2026: session})
    state = asyncio.run(task_attach.look_up(pool, "t-ext"))
    assert (state.task_id, state.status) == ("t-ext", "working")
    assert session.attached == [("t-ext", "slow", TaskShape.EXTENSION)]
    assert pool.opened == []
