"""Graduation candidates: TC-MEM-08 (recurrence and access rules) and TC-MEM-09 (dismissed never appear)."""

from __future__ import annotations

import json

import pytest
from provenances import SYNCED

from mneme_tui.memory.learning.graduation import graduation_candidates
from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.learning.task_report import parse_report
from mneme_tui.memory.learning.tasksync import sync_task


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", "2026-03-01T09:00:00")


def _pitfall(store, root, make_report, task, gate="Cognitive Complexity", file="src/store/store.py", repo="acme"):
    result = sync_task(store, parse_report(make_report(task, repo=repo, files=(file,), trapped=((gate, file),))), root)
    return result.ids("pitfall")[0]


def test_tc_mem_08_structural_pitfall_recurring_in_two_tasks_graduates(store, repo_root, make_report):
    first = _pitfall(store, repo_root, make_report, "INT-1")
    assert graduation_candidates(store, "acme") == []  # one occurrence is not enough
    second = _pitfall(store, repo_root, make_report, "INT-2", file="src/store/models.py")  # same scope, other file
    [candidate] = graduation_candidates(store, "acme")
    assert candidate.rule == "recurrence" and candidate.structural
    assert (candidate.recurrence, candidate.tasks, candidate.scope) == (2, ("INT-1", "INT-2"), "src/store")
    assert candidate.memory.id == second and candidate.related_ids == (first, second)
    assert (
        candidate.reason
        == "Cognitive Complexity (structural gate) recurs in 2 tasks (INT-1, INT-2) within scope src/store"
    )
    assert graduation_candidates(store, "other") == []
    assert [c.memory.id for c in graduation_candidates(store)] == [second]


def test_tc_mem_08_policy_pitfall_graduates_at_three_task_accesses(store, repo_root, make_report):
    policy = _pitfall(store, repo_root, make_report, "INT-1", gate="No Raw SQL")
    structural = _pitfall(store, repo_root, make_report, "INT-1", gate="File Length", file="src/schema/table.go")
    for _ in range(4):
        orientation(store, "acme", task_id="T-1")  # the same task counts once
        orientation(store, "acme")  # passive views count nothing
    assert store.get(policy).access_count == 1 and graduation_candidates(store, "acme") == []
    orientation(store, "acme", task_id="T-2")
    orientation(store, "acme", task_id="T-3")
    [candidate] = graduation_candidates(store, "acme")
    assert (candidate.memory.id, candidate.rule, candidate.access_count) == (policy, "access_count", 3)
    assert candidate.accessed_by == ("T-1", "T-2", "T-3") and candidate.tasks == ("INT-1",)
    assert "policy pitfall reinforced by 3 tasks" in candidate.reason
    assert store.get(structural).access_count == 3  # structural gates graduate only on recurrence


def test_tc_mem_08_patterns_other_scopes_and_superseded_never_appear(store, repo_root, make_report):
    _pitfall(store, repo_root, make_report, "INT-1")
    _pitfall(store, repo_root, make_report, "INT-2", file="src/schema/table.go")  # same gate, other scope
    for task in ("INT-3", "INT-4"):  # two patterns for one scope, read by many tasks
        sync_task(store, parse_report(make_report(task, files=("setup.py",), trapped=())), repo_root)
    for task in ("A", "B", "C"):
        store.reinforce(task, [m.id for m in store.list(kind="pattern", status="all", limit=None)])
    assert graduation_candidates(store, "acme") == []


def test_tc_mem_08_cli_lists_candidates_and_rules(cli, write_report, make_report, repo_root):
    for task, file in (("INT-1", "src/store/store.py"), ("INT-2", "src/store/models.py")):
        document = make_report(task, files=(file,), trapped=(("Statement Coverage", file),))
        cli("task", "sync", str(write_report(document)), "--root", str(repo_root))
    code, out, _ = cli("handshake", "-p", "acme", "--json")
    [candidate] = json.loads(out)["graduation_candidates"]
    assert code == 0 and candidate["rule"] == "recurrence" and candidate["tasks"] == ["INT-1", "INT-2"]
    assert candidate["memory"]["topic"] == "Statement Coverage @ src/store"
    code, out, _ = cli("task", "candidates", "-p", "acme")
    assert code == 0 and out.startswith(
        "#3 [acme] Statement Coverage @ src/store\n   recurrence: Statement Coverage (structural gate) recurs in 2 tasks"
    )
    code, out, _ = cli("task", "candidates", "-p", "acme", "--rules")
    assert '  gate: "Statement Coverage"\n  scope: "src/store"\n  kind: structural' in out
    assert "  guidance: |-\n    Refactored src/store/models.py [Row]\n" in out
    code, out, _ = cli("task", "candidates", "-p", "nobody")
    assert out == "No graduation candidates.\n"


def test_tc_mem_09_dismissed_pitfalls_leave_the_candidates(store, repo_root, make_report, cli, write_report):
    first = _pitfall(store, repo_root, make_report, "INT-1")
    second = _pitfall(store, repo_root, make_report, "INT-2")
    assert len(graduation_candidates(store, "acme")) == 1
    store.dismiss([first])
    assert graduation_candidates(store, "acme") == []  # recurrence counts active pitfalls only
    store.dismiss([second])
    assert orientation(store, "acme").learned_pitfalls == ()


def test_rule_text_is_a_block_or_a_quoted_scalar(store, repo_root, make_report):
    for task in ("INT-1", "INT-2"):
        sync_task(
            store, parse_report(make_report(task, walkthrough="ok: fine\n  indented\n# not a comment")), repo_root
        )
    for task in ("INT-3", "INT-4"):
        document = make_report(
            task, files=("setup.py",), trapped=(("Lint", "setup.py"),), walkthrough="trailing  \n\x1b[31mred"
        )
        sync_task(store, parse_report(document), repo_root)
    block, quoted = sorted(graduation_candidates(store, "acme"), key=lambda c: c.gate)
    text = block.rule_text()
    assert text.startswith("# graduated from mneme pitfall #1, #3: Cognitive Complexity (structural gate) recurs")
    assert '- id: "mneme-acme-3"' in text and "  enforcement: block" in text
    assert "  guidance: |-\n    Refactored src/store/store.py [" in text
    assert "\n    ok: fine\n      indented\n    # not a comment\n" in text
    assert block.to_json()["rule_text"] == text
    assert '  guidance: "Refactored setup.py [main]\\n\\ntrailing  \\n\\u001b[31mred' in quoted.rule_text()


def test_rule_text_comment_cannot_be_broken_out_of_by_a_newline_in_the_topic(tmp_path):
    """A gate name with a newline must not inject a YAML line into the pasted rule."""
    from mneme_tui.memory.learning.graduation import graduation_candidates
    from mneme_tui.memory.store import Store

    store = Store(tmp_path / "m.db")
    for task in ("T-1", "T-2"):
        store.mint(
            "Refactored a.py [f]",
            provenance=SYNCED,
            kind="pitfall",
            topic="Bad\ngate: evil @ src",
            repo_id="r",
            task_id=task,
        )
    (candidate,) = graduation_candidates(store, "r")
    text = candidate.rule_text()
    top_level = [line for line in text.splitlines() if line and not line.startswith((" ", "#", "- "))]
    assert top_level == []
    assert text.splitlines()[0].startswith("# graduated")
