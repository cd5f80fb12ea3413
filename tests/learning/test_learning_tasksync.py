"""Two-phase task sync: TC-MEM-07 (pattern distillation), TC-MEM-11 (symbol-delta pitfalls), refusal of
unverified runs, de-duplication, pattern supersession, atomicity and statutory provenance."""

from __future__ import annotations

import json

import pytest

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.learning.distill import distill
from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.learning.task_report import parse_report
from mneme_tui.memory.learning.tasksync import commit, sync_task

NOW = "2026-03-01T09:00:00"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", NOW)


def _sync(store, root, document, **options):
    return sync_task(store, parse_report(document), root, **options)


# ---------------------------------------------------------------- TC-MEM-07
def test_tc_mem_07_clean_verified_sync_distils_a_pattern(store, repo_root, make_report):
    result = _sync(store, repo_root, make_report(files=("src/store/store.py", "src/store/models.py")))
    assert result.verified
    [pattern_id] = result.ids("pattern")
    pattern = store.get(pattern_id)
    assert (pattern.kind, pattern.topic, pattern.repo_id, pattern.task_id) == (
        "pattern",
        "pattern:src/store",
        "acme",
        "INT-1",
    )
    assert pattern.content.startswith("Verified pattern for src/store (task INT-1, 2/2 gates passed")
    assert "- src/store/store.py [Store, Store.save, Store._validate, Store._insert, open_store]" in pattern.content
    assert "- src/store/models.py [Row]" in pattern.content
    # spec 3.1: statutory kinds are "minted strictly by 2PC task sync"; the mint says so
    assert pattern.verified and (pattern.provenance.source, pattern.provenance.detail) == ("task-sync", "INT-1")
    view = orientation(store, "acme")
    assert [p.memory.id for p in view.verified_patterns] == [pattern_id]
    assert view.to_json()["verified_patterns"][0]["topic"] == "pattern:src/store"
    assert view.to_json()["verified_patterns"][0]["provenance"]["verified"] is True
    assert "From: task sync · INT-1 (verified)" in view.to_text()


def test_tc_mem_07_cli_sync_then_handshake_recalls_verified_pattern(cli, write_report, make_report, repo_root):
    path = write_report(make_report(trapped=()))
    code, out, err = cli("task", "sync", str(path), "--root", str(repo_root))
    assert (code, err) == (0, "")
    assert out.startswith("Synced task INT-1 (repo acme): final run verified: 1/1 gates passed")
    assert "pattern #1: pattern:src/store" in out
    code, out, _ = cli("handshake", "-p", "acme", "--json")
    document = json.loads(out)
    assert code == 0
    assert [p["topic"] for p in document["verified_patterns"]] == ["pattern:src/store"]
    assert document["learned_pitfalls"] == []  # a clean first run trapped nothing


def test_new_pattern_supersedes_the_active_one_for_its_scope(store, repo_root, make_report):
    first = _sync(store, repo_root, make_report("INT-1")).ids("pattern")[0]
    other_scope = _sync(store, repo_root, make_report("INT-2", files=("src/schema/table.go",), trapped=())).ids(
        "pattern"
    )[0]
    second = _sync(store, repo_root, make_report("INT-3", walkthrough="Moved validation out of Store.save."))
    [new_id] = second.ids("pattern")
    assert second.written[-1].supersedes == (first,)
    old = store.get(first)
    assert (old.status, old.superseded_by) == ("superseded", new_id)
    assert [(e.from_status, e.to_status) for e in store.history(first)] == [("active", "superseded")]
    assert "INT-3" in store.history(first)[0].reason
    assert store.get(other_scope).status == "active"
    active = [m.topic for m in store.list(kind="pattern", repo_id="acme", limit=None)]
    assert sorted(active) == ["pattern:src/schema", "pattern:src/store"]


# ---------------------------------------------------------------- TC-MEM-11
def test_tc_mem_11_pitfall_records_refactored_file_and_symbols_ahead_of_walkthrough(store, repo_root, make_report):
    trapped = (("Cognitive Complexity", "src/store/store.py"), ("Function Length", "src/schema/table.go"))
    result = _sync(store, repo_root, make_report(files=("src/store/store.py", "src/schema/table.go"), trapped=trapped))
    pitfalls = [store.get(i) for i in result.ids("pitfall")]
    assert [p.topic for p in pitfalls] == ["Cognitive Complexity @ src/store", "Function Length @ src/schema"]
    python, go = pitfalls
    assert python.content.startswith(
        "Refactored src/store/store.py [Store, Store.save, Store._validate, Store._insert, open_store]\n\n"
        "Split Store.save into _validate and _insert"
    )
    assert go.content.startswith("Refactored src/schema/table.go [Table, Table.Columns, Parse]\n\nSplit Store.save")
    assert "Trapped by Function Length in run 1 of 2: Function Length over the limit" in go.content
    assert all(p.kind == "pitfall" and p.task_id == "INT-1" and p.repo_id == "acme" for p in pitfalls)


def test_tc_mem_11_cli_sync_reads_post_fix_symbols_under_root(cli, cli_store, write_report, make_report, repo_root):
    (repo_root / "src" / "store" / "store.py").write_text("class Store:\n    def save(self):\n        pass\n")
    code, out, _ = cli("task", "sync", str(write_report(make_report())), "--root", str(repo_root), "--json")
    document = json.loads(out)
    assert code == 0 and document["verified"] and document["written"] == 2
    pitfall = next(item for item in document["learnings"] if item["kind"] == "pitfall")
    assert pitfall["content"].startswith("Refactored src/store/store.py [Store, Store.save]\n\nSplit")
    assert cli_store.get(pitfall["memory_id"]).content == pitfall["content"]


def test_missing_cited_file_gives_no_symbols_and_a_note(store, repo_root, make_report):
    document = make_report(files=("src/gone/old.py",), trapped=(("Cognitive Complexity", "src/gone/old.py"),))
    result = _sync(store, repo_root, document)
    pitfall = store.get(result.ids("pitfall")[0])
    assert pitfall.content.startswith("Refactored src/gone/old.py []\n\n")
    assert pitfall.topic == "Cognitive Complexity @ src/gone"
    assert any("src/gone/old.py was not found" in note for note in result.notes)


def test_gate_without_a_cited_file_uses_the_task_scope(store, repo_root, make_report):
    result = _sync(store, repo_root, make_report(trapped=(("Import Boundary", None),)))
    pitfall = store.get(result.ids("pitfall")[0])
    assert pitfall.topic == "Import Boundary @ src/store"
    assert pitfall.content.startswith("Fixed Import Boundary in src/store\n\nSplit Store.save")


def test_gate_absent_from_the_final_run_is_not_a_pitfall(repo_root, make_report, make_gate):
    document = make_report()
    document["runs"][0]["gates"].append(make_gate("Lint", False, "E501"))
    plan = distill(parse_report(document), repo_root)
    assert [p.gate for p in plan.pitfalls] == ["Cognitive Complexity"]
    assert any("'Lint' failed in run 1 but did not run in the final run" in note for note in plan.notes)


# ------------------------------------------------------- refused and duplicate syncs
def test_failed_final_run_writes_nothing_and_says_why(store, repo_root, make_report):
    result = _sync(store, repo_root, make_report(final_passed=False))
    assert not result.verified and not result.learnings
    assert (
        "final run failed 1 of 2 gates (Cognitive Complexity (src/store/store.py): still over the limit)"
        in result.reason
    )
    assert store.count() == 0


@pytest.mark.sqlite_only  # checks that no database file was created
def test_cli_failed_final_run_exits_1_and_writes_nothing(cli, write_report, make_report, repo_root):
    path = write_report(make_report(final_passed=False))
    code, out, err = cli("task", "sync", str(path), "--root", str(repo_root))
    assert (code, out) == (1, "")
    assert err.startswith("mneme: not synced: task INT-1 is not verified: the final run failed 1 of 2 gates")
    assert err.rstrip().endswith("nothing was written")
    code, out, _ = cli("task", "sync", str(path), "--root", str(repo_root), "--json")
    assert code == 1 and json.loads(out)["verified"] is False and json.loads(out)["learnings"] == []
    assert not cli.db.exists()


def test_same_task_gate_and_file_synced_twice_does_not_duplicate(store, repo_root, make_report):
    first = _sync(store, repo_root, make_report())
    again = _sync(store, repo_root, make_report(walkthrough="A different account of the same fix."))
    assert len(first.written) == 2 and again.written == ()
    assert [(d.kind, d.memory_id) for d in again.duplicates] == [
        ("pitfall", first.ids("pitfall")[0]),
        ("pattern", first.ids("pattern")[0]),
    ]
    assert store.count() == 2
    more = make_report(
        trapped=(("Cognitive Complexity", "src/store/store.py"), ("Docstring Density", "src/store/models.py"))
    )
    third = _sync(store, repo_root, more)
    assert [w.topic for w in third.written] == ["Docstring Density @ src/store"]
    assert store.count() == 3
    assert _sync(store, repo_root, make_report("INT-2")).ids("pitfall")  # another task is a new occurrence


def test_cli_duplicate_sync_reports_skips(cli, write_report, make_report, repo_root):
    path = write_report(make_report())
    cli("task", "sync", str(path), "--root", str(repo_root))
    code, out, _ = cli("task", "sync", str(path), "--root", str(repo_root))
    assert code == 0
    assert "pitfall already synced: Cognitive Complexity @ src/store as #1; skipped" in out


def test_dry_run_writes_nothing(store, repo_root, make_report, cli, write_report):
    result = _sync(store, repo_root, make_report(), dry_run=True)
    assert [item.outcome for item in result.learnings] == ["planned", "planned"]
    assert store.count() == 0
    code, out, _ = cli("task", "sync", str(write_report(make_report())), "--root", str(repo_root), "--dry-run")
    assert code == 0 and out.startswith("Would sync task INT-1") and "pitfall new:" in out
    code, out, _ = cli("list", "-A", "--json")
    assert json.loads(out) == []


def test_phase_two_is_all_or_nothing(store, repo_root, make_report, monkeypatch):
    _sync(store, repo_root, make_report("INT-1"))
    before = store.count()
    plan = distill(parse_report(make_report("INT-2")), repo_root)

    def broken(*args, **kwargs):
        raise MnemeError(ERR_VALIDATION_FAILED, "disk on fire")

    monkeypatch.setattr(store, "mark_superseded", broken)  # fails after the new memories were inserted
    with pytest.raises(MnemeError, match="disk on fire"):
        commit(store, plan)
    assert store.count() == before
    assert all(m.status == "active" for m in store.list(status="all", limit=None))
    monkeypatch.undo()
    assert len(commit(store, plan).written) == 2  # the ledger was rolled back too


# ---------------------------------------------------------------- provenance
def test_statutory_kinds_come_from_task_sync_not_save(cli, write_report, make_report, repo_root):
    for kind in ("pitfall", "pattern"):
        code, _, err = cli("save", "fake", "--kind", kind, "-p", "acme")
        assert code == 1 and "ERR_VALIDATION_FAILED" in err and "statutory" in err
    assert cli("list", "-A", "--json")[1].strip() == "[]"
    code, _, _ = cli("task", "sync", str(write_report(make_report())), "--root", str(repo_root))
    assert code == 0
    kinds = sorted(m["kind"] for m in json.loads(cli("list", "-A", "--json")[1]))
    assert kinds == ["pattern", "pitfall"]


def test_sync_reads_standard_input(cli, make_report, repo_root, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(make_report()).encode())))
    code, out, _ = cli("task", "sync", "-", "--root", str(repo_root))
    assert code == 0 and "pitfall #1" in out


def test_a_report_with_30000_gates_learns_a_pattern_that_fits(repo_root, make_gate):
    """A 3.6 MB report whose final run has 30,000 gates: the pattern names 20 and counts the rest."""
    from mneme_tui.validation import MAX_CONTENT_CHARS

    gates = [make_gate(f"gate-{n:05d}", True, "ok " * 30, "src/store/store.py") for n in range(30_000)]
    document = {
        "task_id": "BIG-1",
        "repo": "acme",
        "modified_files": ["src/store/store.py"],
        "walkthrough": "Ran every gate.",
        "runs": [{"gates": gates}],
    }
    assert len(json.dumps(document)) > 3_600_000
    plan = distill(parse_report(document), repo_root)
    assert plan.verified and plan.pattern is not None
    assert len(plan.pattern.content) <= MAX_CONTENT_CHARS
    assert "gate-00019, … and 29980 more)" in plan.pattern.content and "gate-00020" not in plan.pattern.content


def test_a_learning_over_the_content_limit_is_cut_with_a_note(repo_root, make_report):
    from mneme_tui.validation import MAX_CONTENT_CHARS

    document = make_report(walkthrough="w" * 50_000)
    document["runs"][0]["gates"][0]["message"] = "m" * 50_000
    plan = distill(parse_report(document), repo_root)
    [pitfall] = plan.pitfalls
    assert len(pitfall.content) == MAX_CONTENT_CHARS and pitfall.content.endswith("…")
    assert any(
        "the pitfall for gate 'Cognitive Complexity' is 100," in note and "first 100,000" in note for note in plan.notes
    ), plan.notes
