"""``mneme setup AGENT``: register ``mneme mcp`` (and, where the agent runs SessionStart hooks whose output
becomes context, the handshake recipe) in the configuration file each coding agent documents for it."""
