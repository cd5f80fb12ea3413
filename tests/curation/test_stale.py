"""The stale-by-code detector on real temp git repositories (fixed author, committer and dates)."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.curation import stale
from mneme_tui.memory.curation.stale import CodeRef, StaleChecker, code_refs
from mneme_tui.memory.learning.symbols import SymbolScan

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "legion-corpus"
CREATED = datetime(2026, 6, 1)
STORE_PY = """class Store:
    def save(self):
        return 1

    def load(self):
        return 2


MAX_ROWS = 10
"""


class Repo:
    """A temp git work tree; each commit is dated ``day`` days after 2026-01-01."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        self.git("init", "-q", "-b", "main")

    def git(self, *arguments: str, day: int = 0) -> None:
        stamp = _date(day)
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.invalid",
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        subprocess.run(["git", *arguments], cwd=self.root, env=env, check=True, capture_output=True)

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def delete(self, path: str, day: int) -> None:
        (self.root / path).unlink()
        self.commit(day)

    def commit(self, day: int, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, day=day)


def _date(day: int) -> str:
    """A git date ``day`` days after 2026-01-01 00:00 UTC."""
    return f"@{1767225600 + day * 86400} +0000"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "project")


def test_code_refs_finds_paths_symbols_directories_and_bare_file_names() -> None:
    text = (
        "Refactored src/store/store.py [Store.save, load, +2 more]\n"
        "See ./docs/guide.md, the scope src/store/ and setup.py. Also src/store/store.py again."
    )
    assert code_refs(text) == [
        CodeRef("src/store/store.py", ("Store.save", "load")),
        CodeRef("docs/guide.md"),
        CodeRef("src/store/"),
        CodeRef("setup.py"),
    ]


def test_code_refs_takes_whole_tokens_with_their_punctuation() -> None:
    text = 'In (`src/a.py`), **lib/b.go**, "c/d.ts" and src/e.py:12 and [f/g.rs]; also x/y.py.'
    assert [ref.path for ref in code_refs(text)] == ["src/a.py", "lib/b.go", "c/d.ts", "src/e.py", "f/g.rs", "x/y.py"]


def test_code_refs_reads_the_label_task_sync_writes() -> None:
    label = SymbolScan("src/a.py", ("Store", "Store.save", "load_rows"), "ast").label()
    content = f"Refactored src/a.py {label}\n\nwalkthrough\n\nTrapped by Function Length in run 1 of 2."
    assert code_refs(content) == [CodeRef("src/a.py", ("Store", "Store.save", "load_rows"))]


@pytest.mark.parametrize(
    "text",
    [
        "Docs at https://example.com/guide/setup.py and http://x.org/a/b",
        "Upgrade to 1.2.3, e.g. v2.0.1 or 10.4",
        "Mail ops@example.com about it",
        "Edit /etc/hosts or ~/.config/mneme/config.toml",
        "Nothing here: a sentence. Another one.",
        "../outside/file.py is not ours",
    ],
)
def test_code_refs_ignores_ordinary_text(text: str) -> None:
    assert code_refs(text) == []


def test_a_long_token_that_names_no_code_is_skipped_whole() -> None:
    blob = "https://example.com/" + "/".join(["a"] * 20_000) + "/x.py"
    assert code_refs(f"{blob} then src/a.py") == [CodeRef("src/a.py")]


def test_brackets_that_are_not_symbol_lists_are_not_symbols() -> None:
    assert code_refs("Fixed ci.yml [skip ci] and notes.md [see](http://x) and a.py [1]") == [
        CodeRef("ci.yml"),
        CodeRef("notes.md"),
        CodeRef("a.py"),
    ]


def test_a_deleted_file_is_missing(repo: Repo) -> None:
    repo.write("src/store/models.py", "x = 1\n")
    repo.write("src/keep.py", "y = 1\n")
    repo.commit(1)
    repo.delete("src/store/models.py", 200)
    found = StaleChecker(repo.root).evidence("Pitfall in src/store/models.py: keep it small", CREATED)
    assert [(item.reason, item.ref.path, item.score) for item in found] == [
        ("missing_path", "src/store/models.py", 1.0)
    ]
    assert found[0].detail == (
        "src/store/models.py no longer exists in the work tree; last touched by a commit on 2026-07-20"
    )


def test_a_renamed_file_is_missing_under_its_old_name(repo: Repo) -> None:
    repo.write("src/old_name.py", "x = 1\n")
    repo.commit(1)
    repo.git("mv", "src/old_name.py", "src/new_name.py")
    repo.commit(2)
    checker = StaleChecker(repo.root)
    assert [item.reason for item in checker.evidence("src/old_name.py is tricky", CREATED)] == ["missing_path"]
    assert checker.evidence("src/new_name.py is tricky", CREATED) == []


def test_a_file_that_still_exists_and_changed_once_is_not_stale(repo: Repo) -> None:
    repo.write("src/store/store.py", STORE_PY)
    repo.commit(1)
    repo.write("src/store/store.py", STORE_PY + "\n# one change\n")
    repo.commit(200)
    checker = StaleChecker(repo.root)
    assert checker.evidence("Refactored src/store/store.py [Store.save, Store.load]", CREATED) == []


def test_paths_git_never_knew_are_not_judged(repo: Repo) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.commit(1)
    text = (
        "Use read/write locks and/or TCP/IP; other/repo/main.py belongs elsewhere; "
        "Node.js and README.md are not here; see www.example.com/a/b.py"
    )
    assert StaleChecker(repo.root).evidence(text, CREATED) == []


def test_a_removed_directory_scope_is_missing_and_a_present_one_is_not(repo: Repo) -> None:
    repo.write("src/store/a.py", "x = 1\n")
    repo.write("src/legacy/b.py", "x = 1\n")
    repo.commit(1)
    shutil.rmtree(repo.root / "src/legacy")
    repo.commit(2)
    checker = StaleChecker(repo.root)
    assert [item.ref.path for item in checker.evidence("Scope src/legacy/ and src/store/", CREATED)] == ["src/legacy/"]
    assert [item.ref.path for item in checker.evidence("Cognitive Complexity @ src/legacy", CREATED)] == ["src/legacy"]


def test_python_symbols_are_checked_with_ast(repo: Repo) -> None:
    repo.write("src/store/store.py", STORE_PY)
    repo.commit(1)
    repo.write("src/store/store.py", STORE_PY.replace("def save", "def persist"))
    repo.commit(2)
    checker = StaleChecker(repo.root)
    found = checker.evidence("Refactored src/store/store.py [Store.save, Store.load, MAX_ROWS]", CREATED)
    assert [(item.reason, item.detail) for item in found] == [
        ("missing_symbol", "Store.save is no longer defined in src/store/store.py (parsed with ast)")
    ]
    assert checker.evidence("src/store/store.py [load, Store, persist]", CREATED) == []


def test_a_python_method_still_called_but_no_longer_defined_is_missing(repo: Repo) -> None:
    repo.write("a.py", "class Store:\n    def run(self):\n        return self.save()\n")
    repo.commit(1)
    found = StaleChecker(repo.root).evidence("a.py [Store.save]", CREATED)
    assert [item.reason for item in found] == ["missing_symbol"]


def test_other_languages_keep_a_symbol_while_its_word_is_in_the_file(repo: Repo) -> None:
    repo.write("server/store.go", "package store\n\nfunc (s *Store) Save() error {\n\treturn nil\n}\n")
    repo.write("web/app.ts", "export function render() {}\n")
    repo.commit(1)
    checker = StaleChecker(repo.root)
    assert checker.evidence("server/store.go [Store.Save] web/app.ts [render]", CREATED) == []
    found = checker.evidence("server/store.go [Store.Load, Store.Save]", CREATED)
    assert [(item.reason, item.detail) for item in found] == [
        ("missing_symbol", "Store.Load is no longer defined in server/store.go (no word of that name is left in it)")
    ]


def test_python_that_does_not_parse_falls_back_to_the_word_match(repo: Repo) -> None:
    repo.write("broken.py", "def save(:\n")
    repo.commit(1)
    checker = StaleChecker(repo.root)
    assert checker.evidence("broken.py [save]", CREATED) == []
    assert [item.reason for item in checker.evidence("broken.py [load]", CREATED)] == ["missing_symbol"]


def test_a_binary_file_is_not_judged_for_symbols(repo: Repo) -> None:
    (repo.root / "blob.json").write_bytes(b"\x00\x01binary")
    repo.commit(1)
    assert StaleChecker(repo.root).evidence("blob.json [anything]", CREATED) == []


def _churn(repo: Repo, path: str, days: range) -> None:
    for day in days:
        repo.write(path, f"x = {day}\n")
        repo.commit(day)


def test_a_file_changed_in_many_commits_since_the_memory_is_churned(repo: Repo) -> None:
    _churn(repo, "src/hot.py", range(1, 3))  # before the memory
    _churn(repo, "src/hot.py", range(160, 172))  # twelve after it
    found = StaleChecker(repo.root).evidence("Careful with src/hot.py", CREATED)
    assert [(item.reason, item.detail) for item in found] == [
        ("churned", "src/hot.py changed in 12 commits since the memory was created (the threshold is 10)")
    ]
    assert 0.4 < found[0].score < 0.7


def test_churn_counts_only_commits_after_the_memory(repo: Repo) -> None:
    _churn(repo, "src/hot.py", range(1, 30))
    checker = StaleChecker(repo.root)
    assert checker.evidence("Careful with src/hot.py", CREATED) == []
    assert [item.reason for item in checker.evidence("Careful with src/hot.py", datetime(2026, 1, 1))] == ["churned"]


def test_the_churn_threshold_is_a_setting(repo: Repo) -> None:
    _churn(repo, "src/hot.py", range(160, 163))
    assert StaleChecker(repo.root).evidence("src/hot.py", CREATED) == []
    assert len(StaleChecker(repo.root, churn_commits=3).evidence("src/hot.py", CREATED)) == 1
    with pytest.raises(MnemeError) as refused:
        StaleChecker(repo.root, churn_commits=0)
    assert refused.value.code == ERR_VALIDATION_FAILED


def test_directories_are_never_churned(repo: Repo) -> None:
    for day in range(160, 175):
        repo.write(f"src/store/f{day}.py", "x = 1\n")
        repo.commit(day)
    assert StaleChecker(repo.root).evidence("scope src/store/", CREATED) == []


def test_evidence_is_ordered_strongest_first(repo: Repo) -> None:
    repo.write("gone.py", "x = 1\n")
    repo.write("a.py", "def f():\n    pass\n")
    repo.commit(1)
    repo.delete("gone.py", 2)
    _churn(repo, "hot.py", range(160, 175))
    found = StaleChecker(repo.root).evidence("hot.py then a.py [g] then gone.py", CREATED)
    assert [item.reason for item in found] == ["missing_path", "missing_symbol", "churned"]


def test_a_bare_file_name_is_found_anywhere_and_missing_only_when_none_is_left(repo: Repo) -> None:
    repo.write("docs/guide.md", "# Guide\n")
    repo.write("pkg/models.py", "class A:\n    pass\n")
    repo.write("a/util.py", "x = 1\n")
    repo.write("b/util.py", "x = 1\n")
    repo.commit(1)
    checker = StaleChecker(repo.root)
    assert checker.evidence("guide.md, models.py [A] and util.py [nothing]", CREATED) == []
    assert [item.reason for item in checker.evidence("models.py [B]", CREATED)] == ["missing_symbol"]
    repo.delete("docs/guide.md", 2)
    found = StaleChecker(repo.root).evidence("Read guide.md first", CREATED)
    assert [item.detail for item in found] == [
        "no file named guide.md is left in the work tree (it was docs/guide.md); last touched by a commit on 2026-01-03"
    ]


def test_the_work_tree_decides_not_the_last_commit(repo: Repo) -> None:
    repo.write("src/tracked.py", "x = 1\n")
    repo.commit(1)
    repo.write("src/untracked.py", "x = 1\n")
    repo.write(".gitignore", "build/\n")
    repo.write("build/out.py", "x = 1\n")
    (repo.root / "src/tracked.py").unlink()  # deleted, not yet committed
    checker = StaleChecker(repo.root)
    text = "src/tracked.py src/untracked.py build/out.py"
    assert [item.ref.path for item in checker.evidence(text, CREATED)] == ["src/tracked.py"]


def test_a_subfolder_is_checked_against_the_whole_work_tree(repo: Repo) -> None:
    repo.write("src/a.py", "x = 1\n")
    repo.commit(1)
    repo.delete("src/a.py", 2)
    checker = StaleChecker(repo.root / "src")
    assert checker.root == repo.root.resolve()
    assert [item.reason for item in checker.evidence("src/a.py", CREATED)] == ["missing_path"]


def test_since_bounds_the_history_read(repo: Repo) -> None:
    repo.write("old.py", "x = 1\n")
    repo.commit(1)
    repo.delete("old.py", 2)
    assert StaleChecker(repo.root, since=datetime(2026, 3, 1)).evidence("old.py", CREATED) == []
    assert len(StaleChecker(repo.root, since=datetime(2026, 1, 1)).evidence("old.py", CREATED)) == 1


def test_a_repository_without_commits_has_files_but_no_history(repo: Repo) -> None:
    repo.write("src/a.py", "def f():\n    pass\n")
    checker = StaleChecker(repo.root)
    assert checker.evidence("src/a.py [f] and src/b.py", CREATED) == []
    assert [item.reason for item in checker.evidence("src/a.py [g]", CREATED)] == ["missing_symbol"]


def test_outside_a_git_work_tree_is_a_clear_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    for root in (plain, tmp_path / "absent"):
        with pytest.raises(MnemeError) as refused:
            StaleChecker(root)
        assert refused.value.code == ERR_VALIDATION_FAILED
        assert str(root) in refused.value.message


def test_one_ls_files_and_one_log_per_checker(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("src/a.py", STORE_PY)
    repo.write("src/gone.py", "x = 1\n")
    repo.commit(1)
    repo.delete("src/gone.py", 2)
    calls: list[str] = []
    real_run = subprocess.run

    def counting_run(command, *args, **kwargs):  # the real git, counted
        calls.append(command[3])
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(stale.subprocess, "run", counting_run)
    checker = StaleChecker(repo.root)
    for number in range(500):
        checker.evidence(f"#{number} src/a.py [Store.save] src/gone.py and/or other/x{number}.py", CREATED)
    assert calls == ["rev-parse", "ls-files", "log"]


def test_evidence_json() -> None:
    item = stale.StaleEvidence(CodeRef("a.py", ("f",)), "missing_symbol", "f is no longer defined in a.py", 0.8)
    assert item.to_json() == {
        "path": "a.py",
        "symbols": ["f"],
        "reason": "missing_symbol",
        "detail": "f is no longer defined in a.py",
        "score": 0.8,
    }


@pytest.mark.skipif(
    not CORPUS.is_dir(), reason="the Legion corpus (../shared/legion-corpus) is not beside the repository"
)
def test_real_legion_files_name_paths_but_are_no_evidence_in_an_unrelated_repository(repo: Repo) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.commit(1)
    checker = StaleChecker(repo.root)
    texts = [path.read_text(encoding="utf-8") for path in sorted(CORPUS.glob("*.md"))]
    assert texts, f"the Legion corpus was not found at {CORPUS}"
    named = {ref.path for text in texts for ref in code_refs(text)}
    assert "backend/app/models.py" in named
    assert all(checker.evidence(text, CREATED) == [] for text in texts)
