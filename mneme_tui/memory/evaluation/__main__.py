"""``python -m mneme_tui.memory.evaluation``: the evaluation table without the CLI."""

from mneme_tui.memory.evaluation import main

raise SystemExit(main())
