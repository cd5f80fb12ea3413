"""Where the ``.tcss`` files are: inside the installed package, or at the top of the source tree.

The wheel force-includes ``styles/`` as ``mneme_tui/styles``; a source checkout keeps them in
``<repo>/styles``. The app builds absolute stylesheet paths from here, so nothing depends on the
working directory or on the module that defines the App.
"""

from __future__ import annotations

from pathlib import Path

import mneme_tui


def styles_dir(package_dir: Path | None = None) -> Path:
    """The folder holding the stylesheets: ``<package>/styles`` when it exists, else ``<repo>/styles``."""
    package = Path(package_dir) if package_dir is not None else Path(mneme_tui.__file__).parent
    installed = package / "styles"
    if installed.is_dir():
        return installed
    return package.parent / "styles"


def style_path(name: str) -> Path:
    """The absolute path of one stylesheet, e.g. ``style_path("recall.tcss")``."""
    return styles_dir() / name
