"""The one owner-only JSON store under the tasks, the consents and the tokens: its folders 0700
and its file 0600, a lock that holds across processes, a file it cannot read never written
over, a look that makes nothing, and the file's version."""

import json
import os
import stat
import subprocess
import sys
import textwrap
import threading

import pytest

from nb_elicit._core.errors import UnreadableFile
from nb_elicit._core.json_store import JsonStore


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- owner-only --------------------------------------------------------------------------------


def test_a_write_makes_the_file_0600_and_the_stores_folders_0700(tmp_path):
    top = tmp_path / "data"
    top.mkdir(mode=0o755)
    os.chmod(top, 0o755)  # (one that was there before, opened up)
    path = top / "a" / "b" / "store.json"
    JsonStore(path, top=top).write({"k": 1})
    assert mode(path) == 0o600
    for folder in (top, top / "a", top / "a" / "b"):
        assert mode(folder) == 0o700, folder
    assert json.loads(path.read_text(encoding="utf-8")) == {"k": 1}
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_change_makes_an_opened_up_file_and_folder_owner_only_again(tmp_path):
    path = tmp_path / "own" / "store.json"
    store = JsonStore(path)
    store.write({"n": 0})
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o755)
    with store.changing() as document:
        document["n"] = 1
    assert (mode(path), mode(path.parent)) == (0o600, 0o700)


def test_top_is_a_folder_above_the_file(tmp_path):
    with pytest.raises(ValueError):
        JsonStore(tmp_path / "a" / "store.json", top=tmp_path / "b")


# -- the lock across processes -----------------------------------------------------------------


HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from nb_elicit._core.json_store import JsonStore
    with JsonStore(Path(sys.argv[1])).changing() as document:
        document["by"] = "the other process"
        print("holding", flush=True)
        sys.stdin.readline()
""")


def test_a_change_waits_for_another_processs_change_and_keeps_it(tmp_path):
    path = tmp_path / "own" / "store.json"
    other = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    done = threading.Event()

    def mine() -> None:
        with JsonStore(path).changing() as document:
            document["mine"] = True
        done.set()

    try:
        assert other.stdout.readline().strip() == "holding"
        thread = threading.Thread(target=mine, daemon=True)
        thread.start()
        assert not done.wait(1.0), "the change did not wait for the other process's lock"
        other.stdin.write("go\n")
        other.stdin.flush()
        assert done.wait(30)
    finally:
        other.stdin.close()
        other.wait(30)
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "by": "the other process", "mine": True}


# -- what it cannot read, it never writes over -------------------------------------------------


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b'"a string"', b"\xff\xfe{}"])
def test_a_file_it_cannot_read_is_said_in_one_line_and_never_written_over(tmp_path, raw):
    path = tmp_path / "store.json"
    path.write_bytes(raw)
    store = JsonStore(path, version=2)
    ran = []
    with pytest.raises(UnreadableFile) as raised, store.changing() as document:
        ran.append(document)
    assert not ran  # (the change never ran)
    assert isinstance(raised.value, OSError)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)
    with pytest.raises(UnreadableFile):
        store.look()
    assert path.read_bytes() == raw


def test_a_part_of_another_type_is_unreadable_and_nothing_is_written(tmp_path):
    path = tmp_path / "store.json"
    path.write_text('{"rows": {"a": 1}}', encoding="utf-8")
    store = JsonStore(path)
    with (pytest.raises(UnreadableFile, match='"rows" is not a list'),
          store.changing() as document):
        document["rows"] = [*store.part(document, "rows", list), "new"]
    assert path.read_text(encoding="utf-8") == '{"rows": {"a": 1}}'
    assert store.part({}, "rows", list) == [] and store.part({}, "files", dict) == {}


def test_a_change_that_fails_or_changes_nothing_writes_nothing(tmp_path):
    path = tmp_path / "store.json"
    path.write_text('{"k": [1]}', encoding="utf-8")
    store = JsonStore(path, version=2)
    with pytest.raises(RuntimeError), store.changing() as document:
        document["k"].append(2)
        raise RuntimeError("half way")
    with store.changing() as document:
        document["k"] = [1]
    assert path.read_text(encoding="utf-8") == '{"k": [1]}'


# -- a look makes nothing ----------------------------------------------------------------------


def test_a_look_without_its_folder_makes_no_folder_and_no_lock_file(tmp_path):
    path = tmp_path / "none" / "store.json"
    assert JsonStore(path).look() is None
    assert not path.parent.exists()
    path.parent.mkdir()
    assert JsonStore(path).look() is None
    path.write_text("  \n", encoding="utf-8")
    assert JsonStore(path).look() is None  # (an empty file: none yet)


def test_a_look_where_the_lock_file_cannot_be_made_reads_without_the_lock(tmp_path):
    path = tmp_path / "shared" / "store.json"
    JsonStore(path).write({"k": 1})
    lock = path.parent / f".{path.name}.lock"
    os.unlink(lock)
    lock.mkdir()  # (no one can open it as the lock file, root included: a read-only folder's case)
    assert JsonStore(path).look() == {"k": 1}


# -- the version -------------------------------------------------------------------------------


def test_a_write_stamps_its_version_and_a_later_files_keeps_its_own(tmp_path):
    path = tmp_path / "store.json"
    store = JsonStore(path, version=2)
    path.write_text('{"version": 1, "k": 0, "other": "kept"}', encoding="utf-8")
    with store.changing() as document:
        document["k"] = 1
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "version": 2, "k": 1, "other": "kept"}
    path.write_text('{"version": 7, "k": 0}', encoding="utf-8")
    with store.changing() as document:
        document["k"] = 1
    assert json.loads(path.read_text(encoding="utf-8")) == {"version": 7, "k": 1}
    JsonStore(path).write({"k": 2})  # (a store without a version writes none)
    assert json.loads(path.read_text(encoding="utf-8")) == {"k": 2}
