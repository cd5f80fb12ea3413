"""``mneme mcp``: the store and the Legion memory as Model Context Protocol tools, prompts and resources,
built from the operation declarations (:mod:`mneme_tui.operations`)."""
