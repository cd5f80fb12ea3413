"""Symbols of a cited file's post-fix state, directory scopes and topics."""

from __future__ import annotations

import os

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.memory.learning.scope import (
    below,
    common_scope,
    directory_scope,
    in_scope,
    is_structural,
    pitfall_topic,
    repo_path,
    split_topic,
)
from mneme_tui.memory.learning.symbols import MAX_SYMBOLS, SymbolScan, python_symbols, scan_file, scan_text


def test_python_symbols_through_ast(repo_root):
    scan = scan_file(repo_root, "src/store/store.py")
    assert scan.method == "ast" and scan.note == ""
    assert scan.symbols == ("Store", "Store.save", "Store._validate", "Store._insert", "open_store")
    source = "class A:\n    class B:\n        def c(self):\n            def inner():\n                pass\nif True:\n    def d():\n        pass\n"
    assert python_symbols(source) == ("A", "A.B", "A.B.c", "d")


def test_python_syntax_error_falls_back_to_a_line_scan(tmp_path):
    (tmp_path / "broken.py").write_text("def ok():\n    pass\nclass Half(\n")
    scan = scan_file(tmp_path, "broken.py")
    assert scan.symbols == ("ok", "Half") and scan.method == "scan:python" and "did not parse" in scan.note


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "go",
            "func (t *Table) Columns() []string {\nfunc Parse(s string) {\ntype Table struct {\n",
            ("Table.Columns", "Parse", "Table"),
        ),
        (
            "rust",
            "pub fn parse() {}\nstruct Row {}\n  pub(crate) async fn load() {}\nimpl Row {}\n",
            ("parse", "Row", "load"),
        ),
        (
            "js",
            "export async function load() {}\nexport default class View {}\nconst f = (a) => a\nconst n = 3\n",
            ("load", "View", "f"),
        ),
        ("java", "public final class Store {\n  public void save() {\ninterface Repo {\n", ("Store", "Repo")),
        (
            "ruby",
            "module Mneme\n  class Store\n    def save!\n    def self.open\n",
            ("Mneme", "Store", "save!", "open"),
        ),
        ("shell", "function setup {\nteardown() {\n", ("setup", "teardown")),
        ("c", "static int parse_line(char *s) {\nstruct row {\n    if (x) {\n", ("parse_line", "row")),
    ],
)
def test_best_effort_scan_for_other_languages(language, source, expected):
    assert scan_text(source, language) == expected


def test_files_without_symbols_give_a_note_not_an_error(tmp_path, repo_root):
    (tmp_path / "notes.md").write_text("# class Nope\n")
    (tmp_path / "blob.py").write_bytes(b"\x00\x01def x(): pass")
    (tmp_path / "dir.py").mkdir()
    cases = {
        "notes.md": "no symbol scanner for .md",
        "blob.py": "binary file",
        "gone.py": "was not found",
        "dir.py": "was not found",
    }
    for name, note in cases.items():
        scan = scan_file(tmp_path, name)
        assert scan.symbols == () and note in scan.note and scan.label() == "[]"
    os.symlink(tmp_path / "notes.md", repo_root / "escape.md")
    assert "outside the repository root" in scan_file(repo_root, "escape.md").note


def test_label_caps_long_symbol_lists():
    scan = SymbolScan("a.py", tuple(f"f{i}" for i in range(MAX_SYMBOLS + 5)), "ast")
    assert scan.label().endswith(f"f{MAX_SYMBOLS - 1}, +5 more]")


def test_directory_scopes():
    assert directory_scope("src/store/store.py") == "src/store"
    assert directory_scope("./setup.py") == "."
    assert directory_scope("src\\win\\x.py") == "src/win"
    assert common_scope(["src/a/x.py", "src/a/b/y.py"]) == "src/a"
    assert common_scope(["src/a/x.py", "lib/y.py"]) == "." == common_scope([])
    assert below("src/a/b/y.py", "src/a") and not below("src/ab/y.py", "src/a") and below("x/y.py", ".")
    assert in_scope("src/a/b/y.py", "src/a") and in_scope("setup.py", ".") and not in_scope("src/y.py", ".")
    for bad in ("/abs.py", "../up.py", "a/../../b.py", "", "C:/x.py"):
        with pytest.raises(MnemeError):
            repo_path(bad)


def test_topics_round_trip_and_structural_gates():
    assert split_topic(pitfall_topic("Function Length", "src/a")) == ("Function Length", "src/a")
    assert split_topic("pattern:src/a") == ("pattern", "src/a")
    assert split_topic("Verification") == ("Verification", None)
    assert (
        is_structural("cognitive_complexity")
        and is_structural("Statement-Coverage")
        and not is_structural("No Raw SQL")
    )
