"""Legion markdown memory: lossless parse/render of ``.planning/memory/*.md``, store, recall, prune.

Public entry point: :class:`mneme_tui.legion.skill.api.LegionMemory`. No Textual or Rich imports here. This
package module imports nothing, so a command that needs one Legion module does not load the whole API.
"""
