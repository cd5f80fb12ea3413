"""`mneme show`, `restore`, `supersede` and `edit` (issue 13): audited, atomic, statutory kinds refused,
memory text shown literally. ``edit`` runs real editor scripts."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from provenances import SYNCED

from mneme_tui.memory.store import Store
from mneme_tui.validation import MAX_CONTENT_CHARS

HUGE_ID = "9" * 5000


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "lifecycle.db"


@pytest.fixture
def run(cli, db: Path):
    """``mneme --db DB ARGS...``."""
    return lambda *argv, stdin=None: cli("--db", str(db), *argv, stdin=stdin)


@pytest.fixture
def store(db: Path):
    opened = Store(db)
    yield opened
    opened.close()


def _history(store: Store, memory_id: int) -> list[tuple[str, str, str]]:
    return [(entry.from_status, entry.to_status, entry.reason) for entry in store.history(memory_id)]


def _editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, variable: str = "EDITOR") -> Path:
    """A python script as the editor (its path in ``variable``); it gets the file's path as argv[1]."""
    script = tmp_path / f"editor-{variable}.py"
    script.write_text(f"import sys\npath = sys.argv[1]\n{body}\n", encoding="utf-8")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv(variable, f"{sys.executable} {script}")
    return script


# ------------------------------------------------------------------------------------------- show
def test_show_plain_prints_every_field_text_literally_and_the_history(run, store):
    old = store.save(
        "Use [bold]journal[/bold]\nsecond line\x1b[31m", kind="decision", topic="Storage", repo_id="acme", task_id="T-1"
    )
    new = store.supersede(old.id, "Use WAL mode")
    store.reinforce("T-9", [old.id])
    result = run("show", str(old.id))
    assert result.code == 0, result.err
    out = result.out
    assert f"Memory {old.id}" in out
    for expected in (
        "superseded",
        "decision",
        "Storage",
        "acme",
        "T-1",
        "2026-11-29T12:00:00Z",
        "accessed       1 time",
        f"superseded by  {new.id} (active, decision): Use WAL mode",
        "read by tasks  T-9",
    ):
        assert expected in out, expected
    assert "Use [bold]journal[/bold]\nsecond line\\x1b[31m\n" in out  # literal, newline kept, ESC visible
    assert "\x1b" not in out
    assert f"active → superseded  superseded by {new.id}" in out
    newer = run("show", str(new.id)).out
    assert f"supersedes     {old.id} (superseded, decision): Use [bold]journal[/bold]" in newer
    assert "History: no status changes recorded" in newer


def test_show_never_wraps_or_cuts_long_text(run, store):
    text = "word " * 400 + "END"
    memory = store.save(text)
    assert text + "\n" in run("show", str(memory.id)).out


def test_show_json_is_the_store_detail(run, store):
    old = store.save("v1")
    new = store.supersede(old.id, "v2")
    document = run("show", str(new.id), "--json").json()
    assert document == store.detail(new.id).to_json()
    assert set(document) == {"memory", "created_by", "history", "superseded_by", "supersedes", "accessed_by"}
    assert [m["id"] for m in document["supersedes"]] == [old.id] and document["superseded_by"] is None


@pytest.mark.parametrize("raw", ["abc", "0", "-1", "1.5", "٣", HUGE_ID])
def test_show_bad_ids_are_one_line_validation_errors(run, raw):
    run("show", raw).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "not a memory id")


def test_show_unknown_id(run, store):
    store.save("x")
    run("show", "42").assert_one_error_line(1, "ERR_NOT_FOUND", "42")


# ---------------------------------------------------------------------------------------- restore
def test_restore_brings_back_tombstoned_and_superseded_and_leaves_active_alone(run, store):
    gone, old, live = store.save("gone"), store.save("old"), store.save("live")
    new = store.supersede(old.id, "old, rewritten")
    store.dismiss([gone.id])
    result = run("restore", str(gone.id), str(old.id), str(live.id), "--json")
    assert result.code == 0, result.err
    assert result.json() == {"restored": [gone.id, old.id], "unchanged": [live.id]}
    assert [store.get(i).status for i in (gone.id, old.id, live.id, new.id)] == ["active"] * 4
    assert store.get(old.id).superseded_by == 0
    assert _history(store, gone.id) == [("active", "tombstoned", "dismissed"), ("tombstoned", "active", "restored")]
    assert _history(store, old.id)[-1] == ("superseded", "active", "restored")
    assert _history(store, live.id) == []


def test_restore_plain_output(run, store):
    gone, live = store.save("gone"), store.save("live")
    store.dismiss([gone.id])
    out = run("restore", str(gone.id), str(live.id)).out
    assert f"Restored {gone.id}" in out and f"Already active: {live.id}" in out


@pytest.mark.parametrize("raw", ["x", HUGE_ID, "0"])
def test_restore_with_a_bad_id_changes_nothing(run, store, raw):
    gone = store.save("gone")
    store.dismiss([gone.id])
    err = run("restore", str(gone.id), raw).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "nothing restored")
    assert len(err) < 200  # a 5000-digit id is shortened, not echoed whole
    assert store.get(gone.id).status == "tombstoned" and len(_history(store, gone.id)) == 1


def test_restore_with_an_unknown_id_changes_nothing(run, store):
    gone = store.save("gone")
    store.dismiss([gone.id])
    run("restore", str(gone.id), "77", "78").assert_one_error_line(1, "ERR_NOT_FOUND", "77, 78")
    assert store.get(gone.id).status == "tombstoned" and len(_history(store, gone.id)) == 1


# -------------------------------------------------------------------------------------- supersede
def test_supersede_saves_a_new_memory_and_marks_the_old(run, store):
    old = store.save("Use the default journal", kind="decision", topic="Storage", repo_id="acme")
    result = run("supersede", str(old.id), "Use WAL mode", "--topic", "SQLite", "--json")
    assert result.code == 0, result.err
    document = result.json()
    new_id = document["memory"]["id"]
    assert document["superseded"] == old.id
    assert (
        document["memory"]["content"],
        document["memory"]["topic"],
        document["memory"]["kind"],
        document["memory"]["repo_id"],
    ) == ("Use WAL mode", "SQLite", "decision", "acme")
    assert (store.get(old.id).status, store.get(old.id).superseded_by) == ("superseded", new_id)
    assert store.get(old.id).content == "Use the default journal"
    assert _history(store, old.id) == [("active", "superseded", f"superseded by {new_id}")]
    plain = run("supersede", str(new_id), "Use WAL mode and a busy timeout", "--kind", "fact").out
    assert f"memory {new_id} is now superseded" in plain and "(fact," in plain


def test_supersede_reads_stdin_without_the_trailing_newline(run, store):
    old = store.save("old")
    new_id = run("supersede", str(old.id), "-", "--json", stdin="from stdin\nline two\n\n").json()["memory"]["id"]
    assert store.get(new_id).content == "from stdin\nline two\n"  # exactly one newline stripped


def test_supersede_stdin_is_bounded(run, store):
    old = store.save("old")
    run("supersede", str(old.id), "-", stdin="x" * (MAX_CONTENT_CHARS + 50)).assert_one_error_line(
        1, "ERR_VALIDATION_FAILED", str(MAX_CONTENT_CHARS)
    )
    ok = run("supersede", str(old.id), "-", "--json", stdin="y" * MAX_CONTENT_CHARS + "\n")
    assert ok.code == 0, ok.err


def test_supersede_of_a_tombstoned_memory_is_refused(run, store):
    memory = store.save("dismissed")
    store.dismiss([memory.id])
    before = store.count(status="all")
    run("supersede", str(memory.id), "new text").assert_one_error_line(
        1, "ERR_VALIDATION_FAILED", "tombstoned", "mneme restore"
    )
    assert store.count(status="all") == before and len(_history(store, memory.id)) == 1


@pytest.mark.parametrize("kind", ["pitfall", "pattern", "task"])
def test_supersede_refuses_statutory_memories_and_says_why(run, store, kind):
    memory = store.mint("learned by task sync", kind=kind, repo_id="acme", provenance=SYNCED)
    before = store.count(status="all")
    run("supersede", str(memory.id), "by hand").assert_one_error_line(
        1, "ERR_VALIDATION_FAILED", "statutory", "task sync", f"mneme dismiss {memory.id}", "advisory"
    )
    assert store.count(status="all") == before and _history(store, memory.id) == []


def test_supersede_refuses_a_statutory_new_kind(run, store):
    memory = store.save("advice")
    run("supersede", str(memory.id), "now a pitfall", "--kind", "pitfall").assert_one_error_line(
        1, "ERR_VALIDATION_FAILED", "statutory"
    )
    assert store.get(memory.id).status == "active" and store.count(status="all") == 1


def test_supersede_bad_and_unknown_ids_and_empty_text(run, store):
    memory = store.save("advice")
    run("supersede", HUGE_ID, "x").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "nothing superseded")
    run("supersede", "nine", "x").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "nine")
    run("supersede", "99", "x").assert_one_error_line(1, "ERR_NOT_FOUND", "99")
    run("supersede", str(memory.id), "   ").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "empty")
    assert store.count(status="all") == 1 and _history(store, memory.id) == []


# ------------------------------------------------------------------------------------------- edit
def test_edit_supersedes_with_the_edited_text(run, store, tmp_path, monkeypatch):
    memory = store.save("Use the default journal", topic="Storage")
    seen = tmp_path / "seen.txt"
    _editor(
        tmp_path,
        monkeypatch,
        f"""
import json, os, stat
text = open(path, encoding="utf-8", newline="").read()
folder = os.path.dirname(path)
open({str(seen)!r}, "w").write(json.dumps([text, oct(stat.S_IMODE(os.stat(path).st_mode)), oct(stat.S_IMODE(os.stat(folder).st_mode))]))
open(path, "w", encoding="utf-8").write(text.replace("default journal", "WAL mode"))
""",
    )
    result = run("edit", str(memory.id), "--json")
    assert result.code == 0, result.err
    assert json.loads(seen.read_text()) == ["Use the default journal\n", "0o600", "0o700"]
    new_id = result.json()["memory"]["id"]
    assert store.get(new_id).content == "Use the WAL mode" and store.get(new_id).topic == "Storage"
    assert (store.get(memory.id).status, store.get(memory.id).superseded_by) == ("superseded", new_id)
    assert _history(store, memory.id) == [("active", "superseded", f"superseded by {new_id}")]


def test_edit_prefers_visual_and_splits_arguments(run, store, tmp_path, monkeypatch):
    memory = store.save("old")
    _editor(tmp_path, monkeypatch, "open(path, 'w').write('from EDITOR')")
    script = tmp_path / "visual.py"
    script.write_text("import sys\nassert sys.argv[1] == '--wait'\nopen(sys.argv[2], 'w').write('from VISUAL\\n')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script} --wait")
    result = run("edit", str(memory.id))
    assert result.code == 0, result.err
    assert "now superseded" in result.out
    assert store.get(store.get(memory.id).superseded_by).content == "from VISUAL"


def test_edit_unchanged_text_changes_nothing(run, store, tmp_path, monkeypatch):
    memory = store.save("keep me\nas I am")
    _editor(tmp_path, monkeypatch, "pass")
    result = run("edit", str(memory.id))
    assert (result.code, result.err) == (0, "")
    assert "Nothing changed" in result.out
    assert store.count(status="all") == 1 and _history(store, memory.id) == []
    assert run("edit", str(memory.id), "--json").json() == {"superseded": None, "memory": memory.to_json()}


def test_edit_to_empty_text_is_an_error(run, store, tmp_path, monkeypatch):
    memory = store.save("text")
    _editor(tmp_path, monkeypatch, "open(path, 'w').write('  \\n')")
    run("edit", str(memory.id)).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "empty")
    assert store.count(status="all") == 1 and _history(store, memory.id) == []


def test_a_failing_editor_changes_nothing(run, store, tmp_path, monkeypatch):
    memory = store.save("text")
    _editor(tmp_path, monkeypatch, "open(path, 'w').write('half-written')\nsys.exit(1)")
    run("edit", str(memory.id)).assert_one_error_line(1, "ERR_IO", "status 1", "nothing changed")
    assert store.count(status="all") == 1 and _history(store, memory.id) == []


def test_a_missing_editor_is_one_line(run, store, monkeypatch, tmp_path):
    memory = store.save("text")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor") + " --flag")
    run("edit", str(memory.id)).assert_one_error_line(1, "ERR_IO", "no-such-editor", "nothing changed")
    monkeypatch.setenv("EDITOR", "'unbalanced")
    run("edit", str(memory.id)).assert_one_error_line(1, "ERR_CONFIG", "editor")
    assert store.count(status="all") == 1 and _history(store, memory.id) == []


def test_edit_a_shell_script_editor(run, store, tmp_path, monkeypatch):
    memory = store.save("line")
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nprintf "line\\nadded by sh\\n" > "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    assert run("edit", str(memory.id)).code == 0
    assert store.get(store.get(memory.id).superseded_by).content == "line\nadded by sh"


@pytest.mark.parametrize("left", ["a folder", "a fifo"])
def test_an_editor_that_leaves_no_file_changes_nothing_and_leaves_nothing(run, store, tmp_path, monkeypatch, left):
    """A folder or a FIFO in place of the file: one ERR_IO line (a FIFO never hangs the read), nothing
    changed, and the temp folder is gone."""
    memory = store.save("secret-ish text")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    make = "os.mkdir(path)" if left == "a folder" else "os.mkfifo(path)"
    _editor(tmp_path, monkeypatch, f"import os\nos.unlink(path)\n{make}")
    run("edit", str(memory.id)).assert_one_error_line(1, "ERR_IO", "something other than a file", "nothing changed")
    assert store.count(status="all") == 1 and _history(store, memory.id) == []
    assert list(temp.iterdir()) == []


def test_an_immutable_file_left_by_the_editor_is_one_error_line(run, store, tmp_path, monkeypatch):
    memory = store.save("text")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    probe = temp / "probe"
    probe.write_text("x")
    if subprocess.run(["chattr", "+i", str(probe)], capture_output=True, check=False).returncode != 0:
        pytest.skip("chattr +i is not available here (needs root and a file system that has it)")
    subprocess.run(["chattr", "-i", str(probe)], check=True)
    probe.unlink()
    _editor(
        tmp_path,
        monkeypatch,
        "import subprocess\nopen(path, 'w').write('edited')\nsubprocess.run(['chattr', '+i', path], check=True)",
    )
    try:
        run("edit", str(memory.id)).assert_one_error_line(1, "ERR_IO", "cannot remove", "by hand")
        assert store.count(status="all") == 1
    finally:
        for leftover in temp.rglob("*"):
            subprocess.run(["chattr", "-i", str(leftover)], check=False)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_during_the_edit_leaves_no_text_behind(db, store, tmp_path, monkeypatch, signum):
    """``mneme edit`` killed by SIGHUP (the terminal closed) or SIGTERM while the editor runs: the temp
    folder with the memory's text is removed, the editor is stopped and the process ends by the signal."""
    memory = store.save("the text that must not stay in /tmp")
    temp = tmp_path / "tmp"
    temp.mkdir()
    started = tmp_path / "started"
    script = _editor(tmp_path, monkeypatch, f"import time\nopen({str(started)!r}, 'w').write(path)\ntime.sleep(60)")
    env = {**os.environ, "TMPDIR": str(temp), "MNEME_DB": str(db), "EDITOR": f"{sys.executable} {script}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mneme_tui", "edit", str(memory.id)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    for _ in range(600):
        if started.exists() and started.read_text():
            break
        time.sleep(0.05)
    assert Path(started.read_text()).is_file()
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == -signum, err
    assert list(temp.iterdir()) == [] and b"Traceback" not in err
    assert store.count(status="all") == 1


def test_edit_refuses_statutory_and_inactive_memories_before_opening_the_editor(run, store, tmp_path, monkeypatch):
    opened = tmp_path / "opened"
    _editor(tmp_path, monkeypatch, f"open({str(opened)!r}, 'w').write('x')")
    pitfall = store.mint("a pitfall", kind="pitfall", provenance=SYNCED)
    run("edit", str(pitfall.id)).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "statutory", "advisory")
    gone = store.save("gone")
    store.dismiss([gone.id])
    run("edit", str(gone.id)).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "tombstoned")
    run("edit", HUGE_ID).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "nothing edited")
    run("edit", "31").assert_one_error_line(1, "ERR_NOT_FOUND", "31")
    assert not opened.exists()
    assert _history(store, pitfall.id) == [] and len(_history(store, gone.id)) == 1
