"""Symlink checks for memory paths: a folder or file whose symlink leaves the project (or its folder) is refused.

Used by every read and write of :mod:`mneme_tui.legion.markdown.storage` and by the folder lock.
"""

from __future__ import annotations

from pathlib import Path

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError


def safe_folder(folder: Path) -> Path:
    """``folder`` when neither it nor ``.planning`` above it is a symlink leaving the project; else an error.

    The project is the folder above ``.planning`` (or ``folder``'s parent for any other folder name).
    """
    parent = folder.parent
    root = parent.parent if parent.name == ".planning" else parent
    if not (folder.is_symlink() or parent.is_symlink()):
        return folder
    target = folder.resolve()
    if not target.is_relative_to(root.resolve()):
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{folder} is a symlink to {target}, outside {root}; refusing to follow it"
        )
    return folder


def safe_path(path: Path) -> Path:
    """``path`` itself, or the target of a symlink that stays inside its folder; else an error.

    The folder itself is checked too (:func:`safe_folder`).
    """
    safe_folder(path.parent)
    if not path.is_symlink():
        return path
    folder = path.parent.resolve()
    target = path.resolve()
    if not target.is_relative_to(folder):
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{path} is a symlink to {target}, outside {folder}; refusing to follow it"
        )
    if not target.exists():
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{path} is a dangling symlink (to {target}); refusing to create a file through it"
        )
    return target
