"""`python -m mneme_tui` runs the `mneme` command line."""

from mneme_tui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
