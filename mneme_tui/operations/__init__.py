"""One declaration per operation: its parameters, checks, work, JSON result and effect, from which the CLI's
argparse commands, the MCP tools and the CLI reference page are built (no argparse, MCP, Textual or Rich here)."""
