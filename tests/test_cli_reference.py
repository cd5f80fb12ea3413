"""The committed CLI reference page is what the parser generates today (regenerate it when this fails)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.cli.reference import main, reference

PAGE = Path(__file__).parent.parent / "docs" / "reference" / "cli.md"


def test_the_cli_reference_page_is_up_to_date() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/reference/cli.md is out of date: run `python -m mneme_tui.cli.reference docs/reference/cli.md`"
    )


def test_it_names_every_command_and_option() -> None:
    page = reference()
    for heading in ("## mneme recall", "## mneme legion record outcome", "## mneme task sync", "## mneme db copy"):
        assert f"\n{heading}\n" in page
    assert "| `-n LIMIT`, `--limit LIMIT` | result limit (default: 5) |  |" in page
    assert "`success`, `partial`, `failed`" in page


def test_the_generator_writes_the_page_it_is_given_and_help_is_not_a_page(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["out/cli.md"]) == 0
    assert (tmp_path / "out" / "cli.md").read_text(encoding="utf-8") == reference()
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    assert "where to write it" in capsys.readouterr().out
    assert not (tmp_path / "--help").exists()
