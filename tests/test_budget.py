"""Token budgets (issue 23): the token estimate, fitting whole items, ``--budget`` on recall and handshake (a
budgeted handshake never exceeds its budget: property test), and its one-line errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from provenances import SYNCED

from mneme_tui.cli import main as cli_main
from mneme_tui.display import json_document
from mneme_tui.errors import MnemeError
from mneme_tui.memory import budget
from mneme_tui.memory.budget import Omission, estimate_tokens
from mneme_tui.memory.learning.orientation import Orientation, orientation, within_budget
from mneme_tui.memory.records import LEGION_IMPORT, Provenance
from mneme_tui.memory.store import Store

NOW = datetime(2026, 11, 29, 12, 0, 0)  # tests/conftest.py fixes MNEME_NOW to this


# --------------------------------------------------------------------------- the estimate


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("hello world", 2),
        ("connection_context", 5),  # 10 letters → 2, "_" → 1, 7 letters → 2
        ("2026-11-29", 6),
        ("| O-001 |", 5),
        ("  indented\nline", 5),
        ("─" * 100, 50),
        ("é中文😀", 4),
    ],
)
def test_the_estimate_follows_its_documented_rule(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


# --------------------------------------------------------------------------- fitting


def _lines(kept: Sequence[str], omission: Omission) -> str:
    return "".join(f"{item}\n" for item in kept) + omission.line("item") + "\n"


def test_fit_keeps_the_best_whole_items_and_skips_one_that_does_not_fit() -> None:
    items = ["alpha beta", "a much longer item with very many words in it, far too long " * 3, "gamma"]
    fitted = budget.fit(items, 40, _lines)
    assert fitted.kept == ["alpha beta", "gamma"]
    assert fitted.omission.left_out == 1
    assert estimate_tokens(_lines(fitted.kept, fitted.omission)) <= 40
    everything = budget.fit(items, fitted.omission.needed, _lines)  # the budget the note names holds them all
    assert everything.kept == items and everything.omission.left_out == 0


def test_a_budget_below_the_empty_output_is_a_clear_error() -> None:
    with pytest.raises(MnemeError, match=r"ERR_VALIDATION_FAILED: --budget 3 is below the \d+ tokens"):
        budget.fit(["x"], 3, _lines)


# --------------------------------------------------------------------------- recall --budget


IMPORTED = Provenance(LEGION_IMPORT, "ERRORS.md#E-001")


def _mint(store: Store, content: str, kind: str = "fact", topic: str = "General", days: float = 0.0) -> int:
    provenance = IMPORTED if kind in ("practice", "error") else SYNCED
    return store.mint(
        content, provenance=provenance, kind=kind, repo_id="app", topic=topic, created_at=NOW - timedelta(days=days)
    ).id


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def recall_store(isolated_environment) -> Store:
    store = Store(isolated_environment / "mneme.db")
    for n in range(8):
        _mint(store, f"The upload worker retries job {n} with jitter; " + "and logs the failure " * n)
    return store


def test_recall_budget_prints_the_best_results_that_fit_and_says_what_was_left_out(recall_store, capsys) -> None:
    code, full, _ = _cli(capsys, "recall", "upload worker", "-p", "app", "-n", "8")
    code, out, _ = _cli(capsys, "recall", "upload worker", "-p", "app", "-n", "8", "--budget", "250")
    assert code == 0 and estimate_tokens(out) <= 250
    note = out.splitlines()[-1]
    assert note.startswith("(") and "left out to fit --budget 250; --budget " in note
    needed = int(note.split("--budget ")[2].split()[0])
    code, everything, _ = _cli(capsys, "recall", "upload worker", "-p", "app", "-n", "8", "--budget", str(needed))
    assert everything.splitlines()[:-1] == full.splitlines() and estimate_tokens(everything) <= needed


def test_recall_budget_as_json(recall_store, capsys) -> None:
    code, out, _ = _cli(capsys, "recall", "upload worker", "-p", "app", "-n", "8", "--budget", "600", "--json")
    document = json.loads(out)
    assert code == 0 and set(document) == {"results", "budget"} and estimate_tokens(out) <= 600
    assert document["budget"]["tokens"] == 600
    assert len(document["results"]) + document["budget"]["left_out"] == 8


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_bad_budget_is_a_usage_error(recall_store, capsys, value: str) -> None:
    code, out, err = _cli_exit(capsys, "recall", "upload", "--budget", value)
    assert code == 2 and out == "" and "--budget" in err


def test_a_budget_too_small_for_anything_is_one_error_line(recall_store, capsys) -> None:
    code, out, err = _cli(capsys, "recall", "upload worker", "-p", "app", "--budget", "5")
    assert code == 1 and out == ""
    assert err.startswith("mneme: ERR_VALIDATION_FAILED: --budget 5 is below the ") and err.count("\n") == 1


def _cli_exit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        cli_main(list(argv))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


# --------------------------------------------------------------------------- handshake --budget


def _as_text(view: Orientation) -> str:
    return view.to_text()


def _as_json(view: Orientation) -> str:
    return json_document(view.to_json()) + "\n"


WORDS = st.sampled_from(["lock", "WAL", "retry", "src/store.py", "Store.save()", "—", "p95", "ok", "|", "café"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    memories=st.lists(
        st.tuples(
            st.sampled_from(["pitfall", "pattern", "practice", "error"]),
            st.lists(WORDS, min_size=1, max_size=60),
            st.integers(0, 30),
        ),
        max_size=12,
    ),
    tokens=st.integers(1, 3000),
    as_json=st.booleans(),
)
def test_a_budgeted_handshake_never_exceeds_its_budget(tmp_path_factory, memories, tokens: int, as_json: bool) -> None:
    store = Store(tmp_path_factory.mktemp("budget") / "mneme.db")
    try:
        for kind, words, days in memories:
            topic = "pattern:src" if kind == "pattern" else "Cognitive Complexity @ src/store.py"
            _mint(store, " ".join(words), kind=kind, topic=topic, days=days)
        view = orientation(store, "app")
        render = _as_json if as_json else _as_text
        try:
            fitted = within_budget(view, tokens, render)
        except MnemeError as error:  # only when the output with no entry at all is over the budget
            empty = within_budget(view, 100_000, render)
            assert "is below the" in str(error) and estimate_tokens(render(empty)) > 0
            return
        assert estimate_tokens(render(fitted)) <= tokens
        assert fitted.budget is not None
        shown = sum(
            len(fitted.to_json()[name])
            for name in ("learned_pitfalls", "verified_patterns", "graduation_candidates", "imported")
        )
        assert shown + fitted.budget.left_out == sum(
            len(view.to_json()[name])
            for name in ("learned_pitfalls", "verified_patterns", "graduation_candidates", "imported")
        )
    finally:
        store.close()


def test_handshake_budget_on_the_command_line(isolated_environment, capsys) -> None:
    store = Store(isolated_environment / "mneme.db")
    for n in range(6):
        _mint(
            store,
            f"Pitfall {n}: hold the lock briefly. " * 5,
            kind="pitfall",
            topic=f"Cognitive Complexity @ src/m{n}.py",
        )
    store.close()
    code, out, _ = _cli(capsys, "handshake", "-p", "app", "--budget", "200")
    assert code == 0 and estimate_tokens(out) <= 200
    assert out.rstrip().splitlines()[-1].endswith("holds all.)") and "entries left out" in out
    code, out, _ = _cli(capsys, "handshake", "-p", "app", "--budget", "400", "--json")
    document = json.loads(out)
    assert document["budget"]["tokens"] == 400 and estimate_tokens(out) <= 400


# --------------------------------------------------------------------------- legion recall / briefing --budget


@pytest.fixture
def legion_dir(tmp_path, monkeypatch) -> str:
    from mneme_tui.legion.markdown.schemas import OUTCOMES

    folder = tmp_path / "memory"
    folder.mkdir()
    rows = "".join(
        f"| O-{n:03d} | 2026-11-{n + 1:02d} | main | 1 | 01-0{n % 9 + 1} | agent-{n % 3} | backend | "
        f"success | 3 | api | Shipped change {n}: the retry queue now backs off |\n"
        for n in range(20)
    )
    (folder / "OUTCOMES.md").write_text(OUTCOMES.template + rows, encoding="utf-8")
    monkeypatch.setenv("MNEME_NOW", "2026-11-29T12:00:00")
    return str(folder)


@pytest.mark.parametrize("as_json", [False, True])
def test_legion_recall_budget(legion_dir: str, capsys, as_json: bool) -> None:
    argv = ["legion", "recall", "outcomes", "--dir", legion_dir, "--budget", "700", *(["--json"] if as_json else [])]
    code, out, err = _cli(capsys, *argv)
    assert code == 0 and err == "" and estimate_tokens(out) <= 700
    if as_json:
        document = json.loads(out)
        assert len(document["records"]) + document["budget"]["left_out"] == 20 and document["records"]
    else:
        assert "records left out to fit --budget 700" in out.splitlines()[-1] and "O-0" in out


@pytest.mark.parametrize("as_json", [False, True])
def test_legion_briefing_budget(legion_dir: str, capsys, as_json: bool) -> None:
    tokens = "2000" if as_json else "200"
    code, out, err = _cli(
        capsys, "legion", "briefing", "--dir", legion_dir, "--budget", tokens, *(["--json"] if as_json else [])
    )
    assert code == 0 and err == "" and estimate_tokens(out) <= int(tokens)
    if as_json:
        document = json.loads(out)
        assert document["budget"]["left_out"] > 0 and document["total_records"] == 20
    else:
        assert out.startswith("Session briefing: 20 outcome records") and "left out to fit" in out


def test_a_list_the_budget_emptied_says_so(isolated_environment) -> None:
    store = Store(isolated_environment / "mneme.db")
    for n in range(6):
        _mint(
            store,
            f"Pitfall {n}: hold the lock briefly. " * 5,
            kind="pitfall",
            topic=f"Cognitive Complexity @ src/m{n}.py",
        )
    view = orientation(store, "app")
    store.close()
    smallest = next(tokens for tokens in range(1, 1000) if _fits(view, tokens))
    text = within_budget(view, smallest, _as_text).to_text()
    assert "## Learned pitfalls (0)\nNone within the budget (6 left out).\n" in text
    assert "## Verified patterns (0)\nNone.\n" in text


def _fits(view: Orientation, tokens: int) -> bool:
    try:
        within_budget(view, tokens, _as_text)
    except MnemeError:
        return False
    return True
