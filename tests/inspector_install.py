"""The MCP Inspector's npm install, started in the background when the test session starts.

``npm install`` spends most of its 15-30 s waiting on the registry. Run inside the Inspector test's fixture,
that wait held one of the two workers idle; started by the session's controller before the workers exist
(:func:`start`), it downloads while both workers run other tests, and the fixture (:func:`launchers`) only
waits for what is left. The folder is named to the workers by ``FOLDER_VARIABLE`` (they inherit the
controller's environment); the npm cache is inside it, so the user's ``~/.npm`` is neither read nor written.
Without a prefetch (a run that did not include the Inspector tests at its start), the fixture installs itself.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"  # the release whose --cli and mcpdo the tests were written for
TEST_FILE = Path(__file__).parent / "mcp" / "test_inspector.py"
FOLDER_VARIABLE = "MNEME_TEST_INSPECTOR_PREFIX"
RESULT = "install.rc"  # written (atomically) with npm's exit status when the install ends
LOG = "install.log"
TIMEOUT = 600.0

_started: subprocess.Popen[bytes] | None = None


def install_command(npm: str, prefix: Path) -> list[str]:
    """``npm install`` of the Inspector into ``prefix``, with an npm cache of its own inside it."""
    return [
        npm, "install", "--prefix", str(prefix), "--cache", str(prefix / "npm-cache"),
        "--no-audit", "--no-fund", "--silent", INSPECTOR,
    ]  # fmt: skip


def wanted(config: pytest.Config) -> bool:
    """Whether this run may collect the Inspector tests: a path argument covers their file and the mark
    expression does not leave out the slow tests (a guess; a wrong one costs one background install or one
    install in the fixture)."""
    if config.option.collectonly or "not slow" in (config.option.markexpr or "") or shutil.which("npm") is None:
        return False
    paths = [Path(config.invocation_params.dir, arg.split("::")[0]).resolve() for arg in config.args]
    return any(TEST_FILE.resolve().is_relative_to(path) for path in paths)


def start(config: pytest.Config) -> None:
    """In the session's controller: start the install in the background and name its folder to the workers."""
    global _started
    if hasattr(config, "workerinput") or FOLDER_VARIABLE in os.environ or not wanted(config):
        return
    npm = shutil.which("npm")
    assert npm is not None
    prefix = Path(tempfile.mkdtemp(prefix="mneme-inspector-"))
    script = '"$@" >"$0/install.log" 2>&1; echo $? >"$0/install.rc.tmp" && mv "$0/install.rc.tmp" "$0/install.rc"'
    environment = {**os.environ, "HOME": str(prefix)}  # no ~/.npmrc, as in the isolated tests
    _started = subprocess.Popen(
        ["sh", "-c", script, str(prefix), *install_command(npm, prefix)], env=environment, start_new_session=True
    )
    os.environ[FOLDER_VARIABLE] = str(prefix)


def finish() -> None:
    """In the controller, at the session's end: stop an install still running and delete its folder."""
    global _started
    if _started is None:
        return
    if _started.poll() is None:
        os.killpg(_started.pid, signal.SIGTERM)  # the shell and npm under it (their own session)
    _started.wait(timeout=30)
    shutil.rmtree(os.environ.pop(FOLDER_VARIABLE), ignore_errors=True)
    _started = None


def launchers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the Inspector's launchers (``mcp-inspector``, ``mcpdo``): the background install's once
    it has ended, or an install of this worker's own; skips, saying why, without npm or the registry."""
    prefetched = os.environ.get(FOLDER_VARIABLE)
    if prefetched:
        prefix = Path(prefetched)
        deadline = time.monotonic() + TIMEOUT
        while not (prefix / RESULT).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        status = (prefix / RESULT).read_text().strip() if (prefix / RESULT).exists() else "timed out"
        error = (prefix / LOG).read_text(errors="replace") if (prefix / LOG).exists() else ""
    else:
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: the MCP Inspector (an npm package) cannot be installed")
        prefix = tmp_path_factory.mktemp("inspector")
        done = subprocess.run(
            install_command(npm, prefix), capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
        status, error = str(done.returncode), done.stderr
    if status != "0":
        pytest.skip(f"npm could not install {INSPECTOR} (no registry?): {error.strip()[-300:]}")
    return prefix / "node_modules" / ".bin"
