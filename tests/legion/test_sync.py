"""Legion <-> store mirror: kinds, topics, companion columns, statuses, idempotence, identity, export, corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from provenances import SYNCED

from mneme_tui.bench.legion_bench import synthetic_outcomes
from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.schemas import ARCHIVE, ERRORS, PATTERNS, PREFERENCES
from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror import sync as sync_module
from mneme_tui.legion.mirror.sync import resolve_memory_dir, sync
from mneme_tui.legion.mirror.sync_report import SyncReport
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store

from .conftest import outcome_row, write_outcomes

P = "proj"


def revision(store: Store) -> int:
    return store.revision()


def mirrored(store: Store, project: str = P) -> dict[tuple[str, str, int], tuple[Memory, mt.MirrorRow]]:
    """(source_file, record_id or identity, occurrence) -> (memory, companion row) for linked rows."""
    rows = [r for r in mt.load_rows(store.db, project) if r.state == mt.LINKED]
    memories = store.get_many([r.memory_id for r in rows])
    return {(r.source_file, r.record_id or r.identity, r.occurrence): (memories[r.memory_id], r) for r in rows}


def memory_of(store: Store, record_id: str, project: str = P) -> Memory:
    found = [m for (_, rid, _), (m, _) in mirrored(store, project).items() if rid == record_id]
    assert len(found) == 1, (record_id, found)
    return found[0]


def write(memory: LegionMemory, name: str, text: str) -> Path:
    memory.memory_dir.mkdir(parents=True, exist_ok=True)
    path = memory.memory_dir / name
    path.write_text(text, encoding="utf-8")
    return path


PATTERN_ROW = "| P-001 | 2026-10-01 | main | Wave tests | phase 5 | 3+ plans | O-001 | testing, waves |\n"
ERROR_ROW = "| E-001 | 2026-10-02 | main | TypeError: x is undefined | guard x | agent-a | true | js |\n"
PREF_ROW = (
    "| D-001 | 2026-10-03 | main | review-verdict | Phase 5 review | fix auth | accepted | positive "
    "| agent-a | review, auth |\n"
)


@pytest.fixture
def full(memory: LegionMemory) -> LegionMemory:
    write_outcomes(
        memory,
        [
            outcome_row(1, "2026-10-01", task_type="frontend, ui", tags="ui, web"),
            outcome_row(2, "2026-10-02", task_type="quality-review", agent="qa", summary="review passed"),
        ],
    )
    write(memory, "PATTERNS.md", PATTERNS.template + PATTERN_ROW)
    write(memory, "ERRORS.md", ERRORS.template + ERROR_ROW)
    write(memory, "PREFERENCES.md", PREFERENCES.template + PREF_ROW)
    return memory


# ------------------------------------------------------------------------------- mapping
def test_kinds_topics_task_ids_and_content(store: Store, full: LegionMemory) -> None:
    report = sync(store, full, P)
    assert report.synced and report.totals["added"] == 5
    o1, o2 = memory_of(store, "O-001"), memory_of(store, "O-002")
    # imported rows are never statutory kinds (spec 3.1: those are "minted strictly by 2PC task sync")
    assert (o1.kind, o1.topic, o1.task_id, o1.repo_id) == ("outcome", "frontend", "01-01", P)
    assert (o2.kind, o2.topic) == ("outcome", "quality-review")
    pattern, error, pref = memory_of(store, "P-001"), memory_of(store, "E-001"), memory_of(store, "D-001")
    assert (pattern.kind, pattern.topic, pattern.task_id) == ("practice", "testing", "")
    assert (error.kind, error.topic) == ("error", "js")
    assert (pattern.provenance.source, pattern.provenance.detail) == ("legion-import", "PATTERNS.md#P-001")
    assert (pref.kind, pref.topic) == ("preference", "review")
    assert o1.content.splitlines()[0] == "done" and "Agent: agent-a" in o1.content and "ID: O-001" in o1.content
    assert error.content.startswith("TypeError: x is undefined\n") and "Fix: guard x" in error.content
    assert o1.created_at.isoformat() == "2026-10-01T00:00:00"
    assert all(m.status == "active" for m in (o1, o2, pattern, error, pref))


def test_topic_falls_back_to_general(store: Store, memory: LegionMemory) -> None:
    write(memory, "PATTERNS.md", PATTERNS.template + "| P-001 | 2026-10-01 | main | Untagged | c | r | s |  |\n")
    sync(store, memory, P)
    assert memory_of(store, "P-001").topic == "General"


def test_companion_row_holds_the_legion_columns(store: Store, full: LegionMemory) -> None:
    sync(store, full, P)
    memory = memory_of(store, "O-001")
    row = mt.row_for_memory(store.db, memory.id)
    assert row is not None
    data = row.to_json()
    assert (data["project"], data["source_file"], data["record_id"], data["occurrence"]) == (
        P,
        "OUTCOMES.md",
        "O-001",
        0,
    )
    assert data["archived"] is False and data["origin"] == "file" and len(data["content_hash"]) == 64
    columns = data["columns"]
    for name in (
        "id",
        "date",
        "branch",
        "phase",
        "plan",
        "agent",
        "task_type",
        "outcome",
        "importance",
        "tags",
        "summary",
    ):
        assert name in columns
    assert columns["task_type"] == "frontend, ui" and columns["tags"] == ["ui", "web"] and columns["importance"] == 2
    assert mt.row_for_memory(store.db, 999_999) is None


def test_no_table_reads_as_empty(store: Store) -> None:
    assert mt.load_rows(store.db, P) == [] and mt.row_for_memory(store.db, 1) is None


# ------------------------------------------------------------------------------ statuses
def test_archived_rows_are_superseded_not_active(store: Store, memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(2, "2026-10-01")])
    write(memory, "ARCHIVE.md", ARCHIVE.template + outcome_row(1, "2026-01-01"))
    sync(store, memory, P)
    archived = memory_of(store, "O-001")
    assert (archived.status, archived.superseded_by) == ("superseded", 0)
    assert mt.row_for_memory(store.db, archived.id).archived is True
    assert [e.reason for e in store.history(archived.id)] == ["archived in ARCHIVE.md"]
    assert memory_of(store, "O-002").status == "active"
    assert [m.id for m in store.list(repo_id=P)] == [memory_of(store, "O-002").id]


def test_pruned_row_keeps_its_memory_and_becomes_archived(store: Store, memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(1, "2026-01-01"), outcome_row(2, "2026-10-01")])
    sync(store, memory, P)
    before = memory_of(store, "O-001")
    result = memory.apply_prune(memory.prune_plan())
    assert result.ok and result.archived_ids == ["O-001"]
    report = sync(store, memory, P)
    assert report.totals["added"] == 0 and report.file("ARCHIVE.md").updated == 1
    after = memory_of(store, "O-001")
    assert after.id == before.id and after.status == "superseded"
    assert mt.row_for_memory(store.db, after.id).source_file == "ARCHIVE.md"
    assert store.count(repo_id=P) == 2


def test_superseded_marker_points_at_the_successor(store: Store, memory: LegionMemory) -> None:
    write(
        memory,
        "PREFERENCES.md",
        "# Preferences\n\n"
        "## PRF-001 (SUPERSEDED by PRF-002): Old rule\n- **Date**: 2026-09-01\n- **Tags**: models\n\nUse opus.\n\n---\n\n"
        "## PRF-002: New rule\n- **Date**: 2026-09-10\n- **Tags**: models\n\nUse sonnet.\n",
    )
    sync(store, memory, P)
    old, new = memory_of(store, "PRF-001"), memory_of(store, "PRF-002")
    assert (old.status, old.superseded_by) == ("superseded", new.id)
    assert new.status == "active"
    assert "Use opus." in old.content and "Superseded by: PRF-002" in old.content
    assert not sync(store, memory, P).changed


def test_marker_to_an_unknown_record_still_supersedes(store: Store, memory: LegionMemory) -> None:
    write(memory, "PREFERENCES.md", "## PRF-001 (SUPERSEDED by PRF-009): Old\n- **Date**: 2026-09-01\n\nx\n")
    sync(store, memory, P)
    assert (memory_of(store, "PRF-001").status, memory_of(store, "PRF-001").superseded_by) == ("superseded", 0)


def test_dismissed_memory_stays_dismissed_after_reimport(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01", summary="first")])
    sync(store, memory, P)
    target = memory_of(store, "O-001")
    store.dismiss([target.id])
    assert not sync(store, memory, P).changed
    assert store.get(target.id).status == "tombstoned"
    path.write_text(path.read_text().replace("first", "first, edited"), encoding="utf-8")
    report = sync(store, memory, P)
    assert report.file("OUTCOMES.md").updated == 1
    again = store.get(target.id)
    assert again.status == "tombstoned" and again.content.startswith("first, edited")


def test_removed_row_is_superseded_and_comes_back(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01"), outcome_row(2, "2026-10-02")])
    sync(store, memory, P)
    kept_text = path.read_text()
    path.write_text(kept_text.replace(outcome_row(2, "2026-10-02"), ""), encoding="utf-8")
    report = sync(store, memory, P)
    assert report.file("OUTCOMES.md").removed == 1
    gone = memory_of(store, "O-002")
    assert gone.status == "superseded" and store.history(gone.id)[-1].reason == "no longer in OUTCOMES.md"
    assert not sync(store, memory, P).changed  # reported once
    path.write_text(kept_text, encoding="utf-8")
    report = sync(store, memory, P)
    assert report.totals["added"] == 0 and report.file("OUTCOMES.md").updated == 1
    assert memory_of(store, "O-002").id == gone.id and memory_of(store, "O-002").status == "active"


# ---------------------------------------------------------------------------- idempotent
def test_second_sync_writes_nothing(store: Store, full: LegionMemory) -> None:
    sync(store, full, P)
    seq = revision(store)
    rows = [(r.memory_id, r.synced_at, r.content_hash) for r in mt.load_rows(store.db, P)]
    report = sync(store, full, P)
    assert revision(store) == seq
    assert [(r.memory_id, r.synced_at, r.content_hash) for r in mt.load_rows(store.db, P)] == rows
    assert report.totals["unchanged"] == 5 and not report.changed
    assert store.count(repo_id=P) == 5


def test_edited_row_updates_its_memory(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01", summary="old words")])
    sync(store, memory, P)
    before = memory_of(store, "O-001")
    path.write_text(path.read_text().replace("old words", "new words").replace("| ui |", "| api |"), encoding="utf-8")
    report = sync(store, memory, P)
    assert report.file("OUTCOMES.md").updated == 1 and report.totals["added"] == 0
    after = memory_of(store, "O-001")
    assert after.id == before.id and after.content.startswith("new words") and "Tags: api" in after.content
    assert store.count(repo_id=P) == 1


def test_a_review_task_type_keeps_the_outcome_memory(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01", task_type="testing")])
    sync(store, memory, P)
    old = memory_of(store, "O-001")
    path.write_text(path.read_text().replace("| testing |", "| quality-review |"), encoding="utf-8")
    sync(store, memory, P)
    new = memory_of(store, "O-001")
    assert (new.id, new.kind, new.topic, new.status) == (old.id, "outcome", "quality-review", "active")


def test_duplicate_ids_from_a_merge_both_survive(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(
        memory,
        [outcome_row(1, "2026-10-01", summary="from branch a"), outcome_row(1, "2026-10-02", summary="from branch b")],
    )
    report = sync(store, memory, P)
    assert report.totals["added"] == 2
    found = mirrored(store)
    a, b = found[("OUTCOMES.md", "O-001", 0)][0], found[("OUTCOMES.md", "O-001", 1)][0]
    assert a.content.startswith("from branch a") and b.content.startswith("from branch b")
    assert not sync(store, memory, P).changed
    # dropping the first one keeps the second one's memory (matched by content, not position)
    path.write_text(
        path.read_text().replace(outcome_row(1, "2026-10-01", summary="from branch a"), ""), encoding="utf-8"
    )
    report = sync(store, memory, P)
    assert report.file("OUTCOMES.md").removed == 1
    assert store.get(b.id).status == "active" and store.get(a.id).status == "superseded"


def test_rows_without_id_keep_their_identity(store: Store, memory: LegionMemory) -> None:
    header = "| Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n|--|--|--|--|--|--|--|--|--|\n"
    row = "| 2026-09-26 | 01 | 01-01 | dev | ci | success | 2 | x | {} |\n"
    path = write(memory, "OUTCOMES.md", "# Outcomes\n\n" + header + row.format("one") + row.format("two"))
    assert sync(store, memory, P).totals["added"] == 2
    identities = sorted(r.identity for r in mt.load_rows(store.db, P))
    assert identities == ["~2026-09-26|01-01|dev", "~2026-09-26|01-01|dev"]
    path.write_text(path.read_text().replace("| one |", "| one, edited |"), encoding="utf-8")
    report = sync(store, memory, P)
    assert (report.totals["added"], report.totals["updated"], report.totals["unchanged"]) == (0, 1, 1)


def test_unparseable_file_is_skipped_and_untouched(store: Store, memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01")])
    sync(store, memory, P)
    broken = path.read_text() + "<<<<<<< HEAD\n" + outcome_row(2, "2026-10-02") + ">>>>>>> other\n"
    path.write_text(broken, encoding="utf-8")
    seq = revision(store)
    report = sync(store, memory, P)
    entry = report.file("OUTCOMES.md")
    assert entry.skipped and entry.records == 0 and entry.removed == 0
    assert any("could not be parsed" in w for w in report.warnings)
    assert "skipped (did not parse): OUTCOMES.md" in report.summary()
    assert revision(store) == seq and memory_of(store, "O-001").status == "active"
    assert path.read_text() == broken


def test_missing_folder_is_nothing_to_sync(store: Store, memory: LegionMemory) -> None:
    report = sync(store, memory, P)
    assert not report.synced and "nothing to sync" in report.message and report.summary() == report.message
    assert not memory.memory_dir.exists()


def test_accepts_a_folder_path_and_repo_keyword(store: Store, full: LegionMemory) -> None:
    report = sync(store, full.memory_dir, repo=P)
    assert isinstance(report, SyncReport) and report.totals["added"] == 5
    assert report.to_json()["totals"]["added"] == 5 and report.summary().startswith("Legion sync: 5 added")
    with pytest.raises(MnemeError):
        sync(store, full, "  ")


def test_projects_are_separate(store: Store, full: LegionMemory) -> None:
    sync(store, full, "a")
    sync(store, full, "b")
    assert store.count(repo_id="a") == store.count(repo_id="b") == 5


# -------------------------------------------------------------------------------- export
def test_store_preference_is_appended_and_not_reimported(store: Store, memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(1, "2026-10-01")])
    saved = store.save("Prefer small PRs | one concern each", kind="preference", topic="workflow", repo_id=P)
    report = sync(store, memory, P)
    assert [(e.memory_id, e.action, e.file, e.record_id) for e in report.exports] == [
        (saved.id, "appended", "PREFERENCES.md", "PRF-001")
    ]
    assert report.file("PREFERENCES.md").exported == 1 and report.file("PREFERENCES.md").added == 0
    text = (memory.memory_dir / "PREFERENCES.md").read_text()
    record = parse(text, "PREFERENCES.md").records[0]
    assert record.context == "Prefer small PRs | one concern each" and record.tags == ["workflow"]
    # only what is known: no decision point, signal or agent was observed (a /legion:learn block, not a row)
    assert record.layout == "block" and (record.signal, record.decision_point, record.agent) == ("", "", "")
    assert record.branch == "main" and "manual-edit" not in text and "positive" not in text
    row = mt.row_for_memory(store.db, saved.id)
    assert row.origin == "store" and row.record_id == "PRF-001"
    assert store.get(saved.id).content == saved.content  # the person's words are kept
    seq = revision(store)
    again = sync(store, memory, P)
    assert not again.changed and again.exports == [] and revision(store) == seq
    assert store.count(repo_id=P) == 2
    assert len(parse((memory.memory_dir / "PREFERENCES.md").read_text()).records) == 1


def test_task_sync_pitfall_and_pattern_are_exported(store: Store, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    pitfall = store.mint(
        "Refactored app.py [Store.save]\nsplit the function",
        provenance=SYNCED,
        kind="pitfall",
        topic="complexity @ src",
        repo_id=P,
        task_id="INT-1",
    )
    pattern = store.mint(
        "Blueprint for src\nfiles: a.py, b.py",
        provenance=SYNCED,
        kind="pattern",
        topic="pattern:src",
        repo_id=P,
        task_id="INT-1",
    )
    report = sync(store, memory, P)
    assert sorted(e.action for e in report.exports) == ["appended", "appended"]
    error = parse((memory.memory_dir / "ERRORS.md").read_text()).records[0]
    assert error.error_signature == "complexity @ src" and error.fix == pitfall.content and error.resolved
    assert error.agent == ""  # no agent was observed: not "mneme"
    pat = parse((memory.memory_dir / "PATTERNS.md").read_text()).records[0]
    assert (pat.pattern, pat.context, pat.source) == ("Blueprint for src", "files: a.py, b.py", "mneme task INT-1")
    assert not sync(store, memory, P).changed
    assert store.count(repo_id=P) == 2 and {pitfall.id, pattern.id} == {m.id for m in store.list(repo_id=P)}


def test_only_project_active_exportable_memories_are_exported(store: Store, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    store.save("global preference", kind="preference", repo_id="global")
    store.save("other repo", kind="preference", repo_id="other")
    store.save("a reflection", kind="reflection", repo_id=P)
    dismissed = store.save("dismissed", kind="preference", repo_id=P)
    store.dismiss([dismissed.id])
    store.mint("a task", provenance=SYNCED, kind="task", repo_id=P)
    report = sync(store, memory, P)
    assert report.exports == [] and not (memory.memory_dir / "PREFERENCES.md").exists()


def test_known_error_signature_is_merged_not_appended(store: Store, memory: LegionMemory) -> None:
    write(memory, "ERRORS.md", ERRORS.template + ERROR_ROW)
    sync(store, memory, P)
    pitfall = store.mint(
        "guard x before use", provenance=SYNCED, kind="pitfall", topic="TypeError: X is undefined!", repo_id=P
    )
    report = sync(store, memory, P)
    assert [(e.action, e.record_id) for e in report.exports] == [("merged", "E-001")]
    assert len(parse((memory.memory_dir / "ERRORS.md").read_text()).records) == 1
    assert mt.row_for_memory(store.db, pitfall.id).state == "merged"
    again = sync(store, memory, P)
    assert again.exports == [] and not again.changed


def test_identical_unimported_record_is_linked_instead_of_duplicated(store: Store, memory: LegionMemory) -> None:
    write(memory, "ERRORS.md", ERRORS.template + ERROR_ROW)
    pitfall = store.mint("guard x", provenance=SYNCED, kind="pitfall", topic="TypeError: x is undefined", repo_id=P)
    report = sync(store, memory, P)
    assert [(e.memory_id, e.action, e.record_id) for e in report.exports] == [(pitfall.id, "linked", "E-001")]
    assert report.totals["added"] == 0 and store.count(repo_id=P) == 1
    assert len(parse((memory.memory_dir / "ERRORS.md").read_text()).records) == 1


def test_interrupted_export_is_linked_not_appended_twice(
    store: Store, memory: LegionMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.memory_dir.mkdir(parents=True)
    saved = store.save("Keep migrations reversible", kind="preference", repo_id=P)

    def boom(*args, **kwargs):
        raise RuntimeError("crash after the file write")

    monkeypatch.setattr(sync_module, "_write", boom)
    with pytest.raises(RuntimeError):
        sync(store, memory, P)
    assert mt.load_rows(store.db, P) == []  # the store transaction rolled back
    assert len(parse((memory.memory_dir / "PREFERENCES.md").read_text()).records) == 1
    monkeypatch.undo()
    report = sync(store, memory, P)
    assert [(e.memory_id, e.action) for e in report.exports] == [(saved.id, "linked")]
    assert len(parse((memory.memory_dir / "PREFERENCES.md").read_text()).records) == 1
    assert store.count(repo_id=P) == 1


def test_export_waits_while_memory_is_disabled(store: Store, memory: LegionMemory, project: Path) -> None:
    memory.memory_dir.mkdir(parents=True)
    (project / ".planning" / "settings.json").write_text('{"memory": {"enabled": false}}', encoding="utf-8")
    store.save("Prefer tabs", kind="preference", repo_id=P)
    report = sync(store, memory, P)
    assert report.exports == [] and any("memory.enabled is false" in w for w in report.warnings)
    assert not (memory.memory_dir / "PREFERENCES.md").exists()


def test_export_to_a_broken_file_fails_softly(store: Store, memory: LegionMemory) -> None:
    broken = "<<<<<<< HEAD\n| D-001 |\n>>>>>>> b\n"
    write(memory, "PREFERENCES.md", broken)
    saved = store.save("Prefer tabs", kind="preference", repo_id=P)
    report = sync(store, memory, P)
    assert [(e.memory_id, e.action) for e in report.exports] == [(saved.id, "failed")]
    assert (memory.memory_dir / "PREFERENCES.md").read_text() == broken
    assert mt.load_rows(store.db, P) == []


# -------------------------------------------------------------------------------- folder
def test_resolve_memory_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    assert resolve_memory_dir(start=repo / "sub") == repo.resolve() / ".planning" / "memory"
    monkeypatch.setenv("MNEME_LEGION_DIR", str(tmp_path / "env"))
    assert resolve_memory_dir(start=repo) == tmp_path / "env"
    assert resolve_memory_dir(str(tmp_path / "cli"), start=repo) == tmp_path / "cli"


# -------------------------------------------------------------------------------- corpus
def _corpus_target(name: str) -> str:
    return name.split("__")[-1].replace(".later", "")


def test_every_corpus_file_syncs_with_matching_counts(store: Store, corpus: Path, tmp_path: Path) -> None:
    files = sorted(p for p in corpus.glob("*.md") if p.name != "INDEX.md")
    assert files
    for source in files:
        folder = tmp_path / source.stem / ".planning" / "memory"
        folder.mkdir(parents=True)
        target = folder / _corpus_target(source.name)
        shutil.copy(source, target)
        legion = LegionMemory(folder, branch_provider=lambda root: "main")
        expected = legion.read_all().file(target.name)
        report = sync(store, legion, source.stem)
        entry = report.file(target.name)
        assert report.warnings == [], source.name
        assert (entry.records, entry.added) == (expected.record_count, expected.record_count), source.name
        assert entry.not_imported == expected.not_imported_count, source.name
        assert store.count(repo_id=source.stem) == expected.record_count
        assert not sync(store, legion, source.stem).changed, source.name
        assert target.read_bytes() == source.read_bytes()


def test_corpus_preferences_evolve_in_place(store: Store, corpus: Path, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    target = memory.memory_dir / "PREFERENCES.md"
    shutil.copy(corpus / "ace027__Dokapon-kingdom-2__PREFERENCES.md", target)
    sync(store, memory, P)
    first = {rid: memory_of(store, rid).id for rid in ("PRF-001", "PRF-002", "PRF-003")}
    shutil.copy(corpus / "ace027__Dokapon-kingdom-2__PREFERENCES.later.md", target)
    report = sync(store, memory, P)
    assert report.totals["added"] == 3
    assert {rid: memory_of(store, rid).id for rid in first} == first
    old, new = memory_of(store, "PRF-003"), memory_of(store, "PRF-006")
    assert (old.status, old.superseded_by) == ("superseded", new.id)


def test_corpus_nine_column_outcomes_map_reviews(store: Store, corpus: Path, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    shutil.copy(corpus / "ace027__Dokapon-kingdom-2__OUTCOMES.md", memory.memory_dir / "OUTCOMES.md")
    sync(store, memory, P)
    memories = store.list(repo_id=P, limit=None)
    assert [m.kind for m in memories] == ["outcome"] * 14
    assert {m.task_id for m in memories if m.topic == "quality-review"} == {"review"}


# --------------------------------------------------------------------------------- speed
def test_large_file_sync_imports_every_row_and_resync_writes_nothing(store: Store, memory: LegionMemory) -> None:
    """Its speed is `mneme bench`'s Legion figure (docs/speed.md); tests never assert a time."""
    rows = 3_000
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "OUTCOMES.md").write_text(synthetic_outcomes(rows), encoding="utf-8")
    report = sync(store, memory, P)
    assert report.totals["added"] == rows
    seq = revision(store)
    again = sync(store, memory, P)
    assert again.totals["unchanged"] == rows and revision(store) == seq


def test_a_record_over_the_content_limit_is_cut_with_a_warning(store: Store, memory: LegionMemory) -> None:
    from mneme_tui.validation import MAX_CONTENT_CHARS

    write_outcomes(memory, [outcome_row(1, "2026-10-01"), outcome_row(2, "2026-10-02", summary="s" * 120_000)])
    report = sync(store, memory, P)
    [warning] = [w for w in report.warnings if "characters" in w]
    assert warning.startswith("OUTCOMES.md line 11: record O-002 is 120,") and "first 100,000" in warning
    assert len(memory_of(store, "O-002").content) == MAX_CONTENT_CHARS
    again = sync(store, memory, P)
    assert again.totals["unchanged"] == 2 and not [w for w in again.warnings if "characters" in w]


def test_a_record_over_the_topic_and_task_id_limits_is_cut_with_a_warning(store: Store, memory: LegionMemory) -> None:
    """No row is lost to the size limits: the memory keeps the first bytes (PostgreSQL would refuse the rest)."""
    from mneme_tui.validation import MAX_TASK_ID_BYTES, MAX_TOPIC_BYTES

    long_type, long_phase = "€" * 1_000, "7" * 600  # 3,000 bytes of topic; a 604-byte plan (the task id)
    write_outcomes(
        memory, [outcome_row(1, "2026-10-01"), outcome_row(2, "2026-10-02", task_type=long_type, phase=long_phase)]
    )
    report = sync(store, memory, P)
    assert report.totals["added"] == 2
    topic_warning, task_warning = [w for w in report.warnings if " bytes; " in w]
    assert topic_warning.startswith("OUTCOMES.md line 11: record O-002 has a topic of 3,000 bytes; its memory keeps")
    assert task_warning.startswith("OUTCOMES.md line 11: record O-002 has a task id of 604 bytes; its memory keeps")
    cut = memory_of(store, "O-002")
    assert cut.topic.endswith("…") and len(cut.topic.encode()) <= MAX_TOPIC_BYTES and cut.topic.startswith("€" * 300)
    assert cut.task_id.endswith("…") and len(cut.task_id.encode()) <= MAX_TASK_ID_BYTES
    again = sync(store, memory, P)
    assert again.totals["unchanged"] == 2 and not [w for w in again.warnings if " bytes; " in w]
