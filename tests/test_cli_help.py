"""Help and usage errors read for a user: no internal spec references, errors point at the right help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mneme_tui.cli import arguments, build_parser, main
from mneme_tui.cli.reference import commands


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_subcommand_error_points_at_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "legion", "recall", "QUERY")
    assert code == 2 and out == ""
    assert err.startswith("mneme legion recall: error: QUERY is not a record type")
    assert err.endswith("(see mneme legion recall --help)\n") and err.count("\n") == 1
    code, _, err = _run(capsys, "recall", "x", "--bogus")
    assert code == 2 and err.endswith("(see mneme recall --help)\n") and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv", [(), ("save",), ("recall",), ("list",), ("dismiss",), ("legion",), ("legion", "recall")]
)
def test_help_names_no_internal_references(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    code, out, _ = _run(capsys, *argv, "--help")
    assert code == 0 and out
    assert not re.search(r"\(spec [0-9§]|TC-MEM|issue \d", out), out


def test_recall_help_names_the_default_profile(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "recall", "--help")
    assert "or bm25)" in " ".join(out.split())


def test_no_parser_accepts_an_option_prefix() -> None:
    """Spec Law 6 (zero aliases): every parser refuses abbreviations, and every option is spelled in full."""
    found = list(commands(build_parser()))  # every (sub)command, as the CLI reference walks them
    assert len(found) > 20
    for path, parser in found:
        assert parser.allow_abbrev is False, path
        assert isinstance(parser, arguments.Parser), path


@pytest.mark.parametrize(
    "argv",
    [
        ("recall", "x", "--lim", "3"),
        ("recall", "x", "--cross"),
        ("list", "--js"),
        ("list", "--stat", "all"),
        ("--d", "x.db", "list"),
        ("db", "copy", "a.db", "b.db", "--mer"),
    ],
)
def test_an_option_prefix_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert ": error: " in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_a_deferred_command_keeps_argument_order_and_defaults_set_before_its_first_use() -> None:
    """A declared command's options are added on first use: an argument added after them comes after them, a
    ``set_defaults`` made before still wins, and a command never typed has no options built."""
    from mneme_tui.cli import arguments as cli_arguments

    parser = cli_arguments.Parser(prog="x")
    sub = parser.add_subparsers(dest="command", parser_class=cli_arguments.Parser)
    first = cli_arguments.add_command(sub, "first", "f", deferred=lambda p: p.add_argument("--n", type=int, default=1))
    first.set_defaults(n=5)
    first.add_argument("--late")
    never = cli_arguments.add_command(sub, "never", "n", deferred=lambda p: p.add_argument("--m"))
    assert [a.dest for a in first._actions] == ["help", "db", "json", "n", "late"]
    assert parser.parse_args(["first"]).n == 5
    assert parser.parse_args(["first", "--n", "2"]).n == 2
    assert [a.dest for a in never._actions] == ["help"]
