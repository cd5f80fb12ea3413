"""mneme_tui: long-lived memory for coding agents, with a CLI and a Textual TUI."""

__version__ = "0.1.0"
