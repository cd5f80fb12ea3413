"""An installed (non-editable) build carries its stylesheets and finds them at run time."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mneme_tui.tui.app import stylesheets
from mneme_tui.tui.styles import styles_dir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("mneme_tui-*.whl")
    return built


def test_every_stylesheet_is_in_the_source_tree():
    for name in stylesheets():
        assert (REPO / "styles" / name).is_file(), name


def test_the_wheel_carries_the_stylesheets(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in stylesheets():
        assert f"mneme_tui/styles/{name}" in names


def test_an_installed_layout_resolves_its_own_styles(wheel: Path, tmp_path: Path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    assert styles_dir(site / "mneme_tui") == site / "mneme_tui" / "styles"
    probe = (
        "import mneme_tui, mneme_tui.tui.app as a, sys;"
        "print(mneme_tui.__file__);"
        "print('\\n'.join(str(a.style_path(n)) for n in a.stylesheets()))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    lines = subprocess.run(
        [sys.executable, "-c", probe], env=env, check=True, capture_output=True, text=True, timeout=120
    ).stdout.splitlines()
    assert lines[0].startswith(str(site))  # the installed copy, not the source tree
    for path in map(Path, lines[1:]):
        assert path.is_file() and path.is_relative_to(site / "mneme_tui" / "styles")


def test_a_source_checkout_falls_back_to_the_repo_styles(tmp_path: Path):
    package = tmp_path / "repo" / "mneme_tui"
    package.mkdir(parents=True)
    assert styles_dir(package) == tmp_path / "repo" / "styles"
