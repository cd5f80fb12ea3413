"""The committed CLI reference page is what the parser generates today (regenerate it when this fails)."""

from __future__ import annotations

from pathlib import Path

from mneme_tui.cli.reference import reference

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
