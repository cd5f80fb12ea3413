"""Paths, the active repository and the clock: the only place that knows about the environment.

Nothing else in the package calls ``datetime.now()`` or reads ``MNEME_*`` variables directly.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mneme_tui.database_urls import redacted_url
from mneme_tui.errors import ERR_CONFIG, ERR_DATABASE, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.validation import check_text, decode_utf8, read_file, user_path

APP_NAME = "mneme"
GLOBAL_REPO = "global"
EARLIEST_NOW = datetime(1900, 1, 1)
LATEST_NOW = datetime(9999, 1, 1)
"""``MNEME_NOW`` must fall in [EARLIEST_NOW, LATEST_NOW): ages and windows subtract days from it."""
MAX_CONFIG_BYTES = 1_000_000
MAX_ACTOR_CHARS = 200
"""The longest name an audit row records as who made a change."""


def now() -> datetime:
    """The current time as a naive UTC datetime; ``MNEME_NOW`` (ISO-8601) fixes it for tests and demos."""
    fixed = os.environ.get("MNEME_NOW", "").strip()
    if not fixed:
        return datetime.now(UTC).replace(tzinfo=None)
    clock = parse_timestamp(fixed, source="MNEME_NOW")
    if not EARLIEST_NOW <= clock < LATEST_NOW:
        raise MnemeError(ERR_CONFIG, f"MNEME_NOW {fixed!r} is outside {EARLIEST_NOW.year}-{LATEST_NOW.year - 1}")
    return clock


def parse_timestamp(value: str, *, source: str = "timestamp") -> datetime:
    """Parse an ISO-8601 date or datetime into naive UTC; raises ERR_CONFIG when it is not one."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    except ValueError:
        raise MnemeError(ERR_CONFIG, f"{source} is not an ISO-8601 time: {value!r}") from None
    except OverflowError:
        raise MnemeError(ERR_CONFIG, f"{source} {value!r} is outside the years 1-9999 in UTC") from None
    return parsed


def default_db_path() -> Path:
    """The per-user database location (XDG data dir, e.g. ``~/.local/share/mneme/mneme.db``)."""
    from platformdirs import user_data_dir  # only when no --db or MNEME_DB names the database

    return Path(user_data_dir(APP_NAME, appauthor=False)) / "mneme.db"


DbTarget = Path | str
"""Where the store lives: a SQLite file path, or a ``postgresql://`` URL (kept as text)."""

URL_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """True when ``target`` is a PostgreSQL URL rather than a file path."""
    return isinstance(target, str) and target.strip().lower().startswith(URL_SCHEMES)


def describe_target(target: DbTarget) -> str:
    """How a database target is shown to people: a path as it is, a URL without its password."""
    return redacted_url(target) if isinstance(target, str) else str(target)


def resolve_db_path(cli_path: str | os.PathLike[str] | None = None) -> DbTarget:
    """Spec Law 5: ``--db`` > ``MNEME_DB`` > ``db`` in the config file > the user data dir. A
    ``postgresql://`` URL selects PostgreSQL (returned as text); anything else is a SQLite file path. A
    path that cannot even be looked at (a name too long for the file system) is ERR_DATABASE here, before
    anything tries to create it."""
    env = os.environ.get("MNEME_DB", "").strip()
    if cli_path is not None:
        if not str(cli_path).strip():
            raise MnemeError(ERR_VALIDATION_FAILED, "--db cannot be empty: give a database file path or URL")
        chosen, source = str(cli_path), "--db"
    elif env:
        chosen, source = env, "MNEME_DB"
    else:
        chosen, source = str(load_settings().get("db", "") or "").strip(), "db in the config file"
    if is_database_url(chosen):
        return check_text(chosen.strip(), source)
    path = user_path(chosen, source) if chosen else default_db_path()
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        pass  # opening the database reports these
    except OSError as exc:
        raise MnemeError(ERR_DATABASE, f"cannot use database path {path}: {exc.strerror or exc}") from None
    return path


def find_git_root(start: Path | None = None) -> Path | None:
    """The enclosing git work tree (the folder holding ``.git``), or None outside one."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def resolve_repo(cli_project: str | None = None, start: Path | None = None) -> str:
    """The active repository: ``-p`` > ``MNEME_REPO`` > git work-tree basename > ``global``."""
    for name, candidate in (("-p/--project", cli_project), ("MNEME_REPO", os.environ.get("MNEME_REPO"))):
        if candidate is not None and candidate.strip():
            return check_text(candidate.strip(), name)
    root = find_git_root(start)
    return root.name if root is not None else GLOBAL_REPO


def repo_defaulted_to_global(cli_project: str | None = None, start: Path | None = None) -> bool:
    """True when :func:`resolve_repo` falls back to ``global``: no ``-p``, no ``MNEME_REPO``, no git work tree."""
    named = (cli_project, os.environ.get("MNEME_REPO"))
    return not any(candidate is not None and candidate.strip() for candidate in named) and find_git_root(start) is None


def config_file_path() -> Path:
    """``MNEME_CONFIG`` or the per-user ``config.toml``."""
    env = os.environ.get("MNEME_CONFIG", "").strip()
    if env:
        return user_path(env, "MNEME_CONFIG")
    from platformdirs import user_config_dir  # only when MNEME_CONFIG names no file

    return Path(user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


def load_settings() -> dict[str, Any]:
    """The user's settings file as a dict (empty when absent); a broken file is ERR_CONFIG."""
    path = config_file_path()
    try:
        if not path.exists():
            return {}
    except OSError as exc:  # e.g. a name too long for the file system
        raise MnemeError(ERR_CONFIG, f"cannot use config file {path}: {exc.strerror or exc}") from None
    try:
        text = decode_utf8(read_file(path, MAX_CONFIG_BYTES, "config file", "config file size"), f"config file {path}")
    except MnemeError as exc:
        raise MnemeError(ERR_CONFIG, exc.message) from None
    import tomllib  # ~15 ms: only when a config file exists

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:  # ValueError: a 5,000-digit integer
        raise MnemeError(ERR_CONFIG, f"{path} is not valid TOML: {exc}") from None


def save_setting(key: str, value: str) -> Path:
    """Set the top-level ``key = "value"`` in the settings file, keeping every other line; the file is
    replaced atomically and only when the result is valid TOML (ERR_CONFIG otherwise, file untouched)."""
    path = config_file_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise MnemeError(ERR_CONFIG, f"cannot read {path}: {exc.strerror}") from None
    line = f"{key} = {json.dumps(value)}"
    lines = text.splitlines()
    top_end = next((i for i, raw in enumerate(lines) if raw.lstrip().startswith("[")), len(lines))
    found = [i for i in range(top_end) if re.match(rf"\s*{re.escape(key)}\s*=", lines[i])]
    if found:
        lines[found[0]] = line
    else:
        lines.insert(top_end, line)
    updated = "\n".join(lines) + "\n"
    import tomllib  # only when a setting is saved

    try:
        if tomllib.loads(updated).get(key) != value:
            raise tomllib.TOMLDecodeError("the setting did not read back")
    except tomllib.TOMLDecodeError as exc:
        raise MnemeError(ERR_CONFIG, f"{path} is not valid TOML, not changed: {exc}") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(updated)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except OSError as exc:
        raise MnemeError(ERR_CONFIG, f"cannot write {path}: {exc.strerror}") from None
    return path


def saved_theme() -> str | None:
    """The theme chosen in an earlier session (the settings file's ``theme``), or None."""
    theme = load_settings().get("theme")
    return theme if isinstance(theme, str) and theme else None


def key_bindings() -> dict[str, Any]:
    """The settings file's ``[keys]`` table (binding id -> keys, possibly nested by scope); ERR_CONFIG when
    ``keys`` is not a table. The TUI checks the ids and the values."""
    keys = load_settings().get("keys", {})
    if not isinstance(keys, dict):
        raise MnemeError(ERR_CONFIG, "keys in the config file must be a table ([keys])")
    return keys


def flag_setting(name: str, default: bool) -> bool:
    """A true/false setting of the settings file (``read_only``, ``confirm_sync``); ERR_CONFIG when it is
    something else."""
    value = load_settings().get(name, default)
    if not isinstance(value, bool):
        raise MnemeError(ERR_CONFIG, f"{name} in the config file must be true or false")
    return value


def use_settings_copy(path: Path) -> Path:
    """Read and write settings in ``path`` from now on (this process and its children), starting from a copy
    of the current settings file when there is one: the demo keeps its theme and keys away from the user's."""
    current = config_file_path()
    try:
        if current.is_file() and current.stat().st_size <= MAX_CONFIG_BYTES:
            path.write_bytes(current.read_bytes())
    except OSError:
        pass  # a settings file we cannot read starts the demo with none
    os.environ["MNEME_CONFIG"] = str(path)
    return path


def resolve_profile(cli_profile: str | None, default: str) -> str:
    """The ranking profile: ``--profile`` > ``MNEME_PROFILE`` > the config file's ``profile`` > ``default``."""
    chosen = cli_profile or os.environ.get("MNEME_PROFILE", "").strip()
    return chosen or str(load_settings().get("profile", "") or default)


def resolve_actor() -> str:
    """Who is making changes, recorded with every audit and provenance row: ``MNEME_ACTOR`` > ``actor`` in the
    config file > ``user@host`` of the operating system. A set name must be one line of printable text of at
    most ``MAX_ACTOR_CHARS`` characters (ERR_CONFIG naming where; text that is not UTF-8 is
    ERR_VALIDATION_FAILED, as everywhere)."""
    env = os.environ.get("MNEME_ACTOR", "").strip()
    if env:
        return _checked_actor(env, "MNEME_ACTOR")
    configured = load_settings().get("actor")
    if configured is not None:
        if not isinstance(configured, str) or not configured.strip():
            raise MnemeError(ERR_CONFIG, "actor in the config file must be a non-empty string")
        return _checked_actor(configured.strip(), "actor in the config file")
    return os_actor()


def os_actor() -> str:
    """``user@host`` of the operating system; ``unknown`` stands in for a part that cannot be found, and
    anything unprintable becomes ``?`` (the result is always a valid actor)."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name in the environment or the password database
        user = ""
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    actor = f"{user.strip() or 'unknown'}@{host.strip() or 'unknown'}"
    return "".join(char if char.isprintable() and not 0xD800 <= ord(char) <= 0xDFFF else "?" for char in actor)[
        :MAX_ACTOR_CHARS
    ]


def _checked_actor(value: str, source: str) -> str:
    check_text(value, source)
    if len(value) > MAX_ACTOR_CHARS:
        raise MnemeError(ERR_CONFIG, f"{source} is longer than {MAX_ACTOR_CHARS} characters")
    if not value.isprintable():
        raise MnemeError(
            ERR_CONFIG, f"{source} must be one line of printable text (no line breaks or control characters)"
        )
    return value


def cache_dir() -> Path:
    """Where derived, rebuildable files live (index snapshots): ``MNEME_CACHE_DIR`` or the user cache dir."""
    env = os.environ.get("MNEME_CACHE_DIR", "").strip()
    if env:
        return user_path(env, "MNEME_CACHE_DIR")
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME, appauthor=False))


def resolve_legion_dir(cli_dir: str | os.PathLike[str] | None = None, start: Path | None = None) -> Path:
    """A project's Legion memory folder: ``--dir`` > ``MNEME_LEGION_DIR`` > ``.planning/memory`` under the
    enclosing git work tree (or the current folder outside one)."""
    return project_legion_dir(cli_dir, start) or (start or Path.cwd()).resolve() / ".planning" / "memory"


def project_legion_dir(cli_dir: str | os.PathLike[str] | None = None, start: Path | None = None) -> Path | None:
    """Like ``resolve_legion_dir`` but None outside a git work tree when nothing names a folder."""
    if cli_dir:
        return user_path(cli_dir, "--dir")
    env = os.environ.get("MNEME_LEGION_DIR", "").strip()
    if env:
        return user_path(env, "MNEME_LEGION_DIR")
    root = find_git_root(start)
    return root / ".planning" / "memory" if root is not None else None
