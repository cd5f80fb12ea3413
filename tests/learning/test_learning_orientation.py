"""Orientation (``mneme handshake``): TC-MEM-10 per-task reinforcement and read-only views, TC-MEM-12
cooling of old one-off pitfalls, and the JSON and text forms."""

from __future__ import annotations

import json

import pytest

from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.learning.task_report import parse_report
from mneme_tui.memory.learning.tasksync import sync_task

DAY0, DAY10, DAY20 = "2026-03-01T09:00:00", "2026-03-11T09:00:00", "2026-03-21T09:00:00"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", DAY0)


def _pitfall(store, root, make_report, task, file="src/store/store.py", gate="Cognitive Complexity"):
    return sync_task(store, parse_report(make_report(task, files=(file,), trapped=((gate, file),))), root).ids(
        "pitfall"
    )[0]


# ---------------------------------------------------------------- TC-MEM-10
def test_tc_mem_10_reinforcement_once_per_task_and_read_only_views(store, repo_root, make_report):
    pitfall = _pitfall(store, repo_root, make_report, "INT-1")
    for _ in range(3):
        view = orientation(store, "acme")
        assert view.read_only and view.reinforced == ()
    store.recall("Store.save complexity", repo="acme")  # read-only recall
    assert store.get(pitfall).access_count == 0
    first = orientation(store, "acme", task_id="T-1")
    assert first.reinforced == (pitfall,) and first.learned_pitfalls[0].memory.access_count == 1
    again = orientation(store, "acme", task_id="T-1")
    assert again.reinforced == () and store.get(pitfall).access_count == 1
    orientation(store, "acme", task_id="T-2")
    assert store.get(pitfall).access_count == 2
    assert store.task_ids_for(pitfall) == ["T-1", "T-2"]


def test_tc_mem_10_cli_handshake_reinforces_only_with_task(cli, cli_store, write_report, make_report, repo_root):
    cli("task", "sync", str(write_report(make_report())), "--root", str(repo_root))
    for argv in (("handshake", "-p", "acme"), ("handshake", "-p", "acme", "--json"), ("recall", "Store", "-p", "acme")):
        assert cli(*argv)[0] == 0
    assert cli_store.get(1).access_count == 0
    for _ in range(2):
        code, out, _ = cli("handshake", "-p", "acme", "--task", "T-1", "--json")
    document = json.loads(out)
    assert code == 0 and document["read_only"] is False and document["task_id"] == "T-1"
    assert document["reinforced"] == [] and document["learned_pitfalls"][0]["access_count"] == 1
    code, out, _ = cli("handshake", "-p", "acme", "--task", "T-2")
    assert "Task T-2: the pitfalls below are counted once for this task." in out
    assert cli_store.get(1).access_count == 2
    assert cli("handshake", "--task", " ")[0] == 1


# ---------------------------------------------------------------- TC-MEM-12
def test_tc_mem_12_old_one_off_pitfalls_cool_out_of_unscoped_handshakes(store, repo_root, make_report, monkeypatch):
    old_one_off = _pitfall(store, repo_root, make_report, "INT-1", file="src/schema/table.go", gate="Function Length")
    old_recurring = [_pitfall(store, repo_root, make_report, task) for task in ("INT-2", "INT-3")]
    monkeypatch.setenv("MNEME_NOW", DAY10)
    fresh_one_off = _pitfall(store, repo_root, make_report, "INT-4", file="setup.py", gate="Lint")
    monkeypatch.setenv("MNEME_NOW", DAY20)
    unscoped = orientation(store, "acme")
    assert not unscoped.scoped
    assert sorted(p.memory.id for p in unscoped.learned_pitfalls) == sorted([*old_recurring, fresh_one_off])
    assert unscoped.cooled == (old_one_off,)
    scoped = orientation(store, "acme", modified=["src/schema/sub/new.go"])  # inside src/schema
    assert scoped.learned_pitfalls[0].memory.id == old_one_off and scoped.learned_pitfalls[0].in_scope
    assert scoped.cooled == ()
    elsewhere = orientation(store, "acme", modified=["src/store/store.py"])
    assert elsewhere.cooled == (old_one_off,)
    assert [p.in_scope for p in elsewhere.learned_pitfalls] == [True, True, False]


def test_tc_mem_12_exactly_fourteen_days_is_not_yet_cool(store, repo_root, make_report, monkeypatch):
    pitfall = _pitfall(store, repo_root, make_report, "INT-1")
    monkeypatch.setenv("MNEME_NOW", "2026-03-15T09:00:00")
    assert [p.memory.id for p in orientation(store, "acme").learned_pitfalls] == [pitfall]
    monkeypatch.setenv("MNEME_NOW", "2026-03-15T09:00:01")
    assert orientation(store, "acme").cooled == (pitfall,)


def test_tc_mem_12_cli_cooling_and_scope(cli, write_report, make_report, repo_root, monkeypatch):
    document = make_report(files=("src/schema/table.go",), trapped=(("Function Length", "src/schema/table.go"),))
    cli("task", "sync", str(write_report(document)), "--root", str(repo_root))
    monkeypatch.setenv("MNEME_NOW", DAY20)
    code, out, _ = cli("handshake", "-p", "acme", "--json")
    document = json.loads(out)
    assert code == 0 and document["learned_pitfalls"] == [] and document["cooled"] == [1]
    code, out, _ = cli("handshake", "-p", "acme")
    assert "## Learned pitfalls (0)" in out and "1 one-off pitfall older than 14 days cooled out: #1" in out
    absolute = str(repo_root / "src" / "schema" / "table.go")
    code, out, _ = cli("handshake", "-p", "acme", "--root", str(repo_root), "--modified", absolute, "--json")
    document = json.loads(out)
    assert document["scoped"] and document["modified_files"] == ["src/schema/table.go"]
    assert [(p["id"], p["in_scope"], p["recurrence"]) for p in document["learned_pitfalls"]] == [(1, True, 1)]
    code, _, err = cli("handshake", "--root", str(repo_root), "--modified", "/elsewhere/x.py")
    assert code == 1 and "outside the repository root" in err


# ---------------------------------------------------------------- output forms
def test_handshake_json_shape(store, repo_root, make_report):
    _pitfall(store, repo_root, make_report, "INT-1")
    document = orientation(store, "acme", modified=["src/store/store.py"]).to_json()
    assert list(document) == [
        "repo",
        "task_id",
        "read_only",
        "scoped",
        "modified_files",
        "generated_at",
        "cooling_days",
        "learned_pitfalls",
        "verified_patterns",
        "graduation_candidates",
        "imported",
        "cooled",
        "reinforced",
        "omitted",
    ]
    pitfall = document["learned_pitfalls"][0]
    assert {
        "id",
        "topic",
        "content",
        "access_count",
        "gate",
        "scope",
        "recurrence",
        "tasks",
        "age_days",
        "in_scope",
        "structural",
    } <= set(pitfall)
    assert document["verified_patterns"][0]["scope"] == "src/store"
    assert json.loads(json.dumps(document)) == document


def test_handshake_text_reads_well_and_is_literal(store, repo_root, make_report):
    walkthrough = "Moved [bold]validation[/bold] out; \x1b[2J never clears a screen."
    sync_task(store, parse_report(make_report("INT-1", walkthrough=walkthrough)), repo_root)
    sync_task(store, parse_report(make_report("INT-2", walkthrough=walkthrough)), repo_root)
    text = orientation(store, "acme", task_id="INT-9").to_text()
    assert text.startswith("# Mneme orientation: repo acme\nTask INT-9:")
    assert (
        "## Learned pitfalls (2)\n1. #3 Cognitive Complexity @ src/store (structural gate; 2 tasks: INT-1, INT-2; less than a day old)"
        in text
    )
    assert "   Moved [bold]validation[/bold] out; \\x1b[2J never clears a screen." in text
    assert "\x1b" not in text
    assert "## Verified patterns (1)\n1. #4 pattern:src/store (task INT-2; less than a day old)" in text
    assert "Codify it as a policy rule, then run `mneme dismiss 1 3`." in text


def test_limit_and_global_pitfalls(store, repo_root, make_report):
    _pitfall(store, repo_root, make_report, "INT-1")
    sync_task(
        store,
        parse_report(make_report("G-1", repo="global", trapped=(("Lint", "setup.py"),), files=("setup.py",))),
        repo_root,
    )
    assert len(orientation(store, "acme").learned_pitfalls) == 2
    assert len(orientation(store, "acme", limit=1).learned_pitfalls) == 1
    assert orientation(store, "other").learned_pitfalls[0].memory.repo_id == "global"


def test_limit_counts_what_it_leaves_out(cli_store, repo_root, make_report, cli):
    for task in ("INT-1", "INT-2", "INT-3"):
        _pitfall(cli_store, repo_root, make_report, task)
    view = orientation(cli_store, "acme", limit=2)
    assert len(view.learned_pitfalls) == 2
    assert view.to_json()["omitted"] == {"learned_pitfalls": 1, "verified_patterns": 0, "imported": 0}
    assert "(1 more pitfall not shown; raise --limit to see them.)" in view.to_text()
    code, out, _ = cli("handshake", "-p", "acme", "-n", "1", "--json")
    assert code == 0 and json.loads(out)["omitted"] == {"learned_pitfalls": 2, "verified_patterns": 0, "imported": 0}
