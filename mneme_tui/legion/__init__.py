"""Legion markdown memory: lossless parse/render of ``.planning/memory/*.md``, store, recall, prune.

Public entry point: :class:`mneme_tui.legion.api.LegionMemory` (import it from ``mneme_tui.legion.api``: this
package imports nothing, so a command that needs one Legion module pays for that module only). No Textual or Rich.
"""
