"""A throwaway PostgreSQL server for tests: ``initdb`` into a temp folder, serve on a private unix socket
folder only (``listen_addresses = ''``: no TCP, so no other host can reach it), stop and delete it at the end.

As root the server runs as the ``postgres`` system user (PostgreSQL refuses to run as root) on a folder
under /tmp that this user owns; otherwise it runs as the current user.

Stopping is robust: a watchdog process (its own session, so a signal to the test run's process group does
not reach it) blocks reading a pipe whose write end only this process holds. When this process ends in
any way (``stop()``, ``atexit``, an exception, SIGKILL), the pipe closes and the watchdog stops the server
and deletes the folder. ``stop()`` closes the pipe and waits for the watchdog, so there is one way down.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg2

BIN_GLOB = "/usr/lib/postgresql/*/bin"
"""Where Debian's packages put the server binaries, one folder per major version."""
SUPERUSER = "mneme"
PORT = 5432
"""Only names the socket file (``.s.PGSQL.5432``) in the private folder: the server opens no TCP port."""
OS_USER = "postgres"
STOP_TIMEOUT_S = 120

SETTINGS = {
    "listen_addresses": "''",
    "port": str(PORT),
    "max_connections": "40",
    # a throwaway server: durability buys nothing here
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


def find_bin_dir(pattern: str = BIN_GLOB) -> Path | None:
    """The newest PostgreSQL version's bin folder that has ``initdb`` and ``pg_ctl``, or None."""
    found = [
        Path(p)
        for p in glob.glob(pattern)
        if os.access(Path(p) / "initdb", os.X_OK) and os.access(Path(p) / "pg_ctl", os.X_OK)
    ]
    return max(found, key=lambda path: [int(n) for n in re.findall(r"\d+", path.parent.name)], default=None)


def unavailable_reason(bin_dir: Path | None) -> str | None:
    """Why no server can be started here (one line), or None when one can."""
    if bin_dir is None:
        return f"PostgreSQL server binaries not found ({BIN_GLOB}/initdb): install Debian's postgresql-15"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OS_USER)
        except KeyError:
            return f"running as root and there is no {OS_USER!r} system user to run PostgreSQL as"
    return None


@dataclass(frozen=True)
class PgDatabase:
    """One database on a test server, and how to reach it (a unix socket folder, trust authentication)."""

    name: str
    host: str
    port: int
    user: str

    @property
    def params(self) -> dict[str, str | int]:
        """Keyword arguments for ``psycopg2.connect`` / ``peewee.PostgresqlDatabase`` (besides the name)."""
        return {"host": self.host, "port": self.port, "user": self.user}

    @property
    def url(self) -> str:
        """A libpq ``postgresql://`` URL for this database (the socket folder as the ``host`` parameter)."""
        return f"postgresql://{self.user}@/{self.name}?host={quote(self.host, safe='/')}&port={self.port}"


@dataclass
class PgServer:
    """A running throwaway server; ``stop()`` (idempotent) shuts it down and deletes its folder."""

    bin_dir: Path
    root: Path
    watchdog: subprocess.Popen

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    @property
    def log_file(self) -> Path:
        return self.root / "server.log"

    def database(self, name: str) -> PgDatabase:
        """How to reach database ``name`` on this server (it need not exist yet)."""
        return PgDatabase(name, str(self.socket_dir), PORT, SUPERUSER)

    def create_database(self, name: str, template: str | None = None) -> PgDatabase:
        """Create database ``name`` (a plain identifier), empty or a copy of database ``template``, and
        return how to reach it. From PostgreSQL 15 on a copy copies the template's files (``FILE_COPY``):
        for a small template that takes about 60 % of the default block-by-block copy through the WAL."""
        copy = f' TEMPLATE "{template}"' if template else ""
        if template and self.major_version >= 15:
            copy += " STRATEGY = FILE_COPY"
        self._admin(f'CREATE DATABASE "{name}"{copy}')
        return self.database(name)

    @property
    def major_version(self) -> int:
        """The server's major version, from its bin folder (``/usr/lib/postgresql/<major>/bin``)."""
        return int(self.bin_dir.parent.name) if self.bin_dir.parent.name.isdigit() else 0

    def drop_database(self, name: str) -> None:
        """Drop database ``name``, disconnecting anyone still connected to it."""
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _admin(self, sql: str) -> None:
        connection = psycopg2.connect(dbname="postgres", **self.database("postgres").params)
        try:
            connection.autocommit = True  # CREATE/DROP DATABASE cannot run in a transaction
            with connection.cursor() as cursor:
                cursor.execute(sql)
        finally:
            connection.close()

    def restart(self) -> None:
        """Restart the server (``pg_ctl restart -m fast``): every open connection is closed by the server."""
        _run(
            os.geteuid() == 0,
            self.root,
            [
                str(self.bin_dir / "pg_ctl"),
                "restart",
                "-D",
                str(self.data_dir),
                "-l",
                str(self.log_file),
                "-m",
                "fast",
                "-w",
                "-t",
                str(STOP_TIMEOUT_S),
            ],
        )

    def terminate_connections(self, database: str) -> None:
        """Close every other connection to ``database`` from the server's side, as a restart does."""
        self._admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' "
            "AND pid <> pg_backend_pid()"
        )

    def stop(self) -> None:
        """Stop the server and delete its folder (through the watchdog); a second call does nothing."""
        if self.watchdog.stdin is not None and not self.watchdog.stdin.closed:
            self.watchdog.stdin.close()
        self.watchdog.wait(timeout=STOP_TIMEOUT_S)


def start(bin_dir: Path) -> PgServer:
    """Start a server from ``bin_dir``'s binaries in a new temp folder; wait until it accepts connections.

    Raises RuntimeError (with the failing command's output or the server log's end) when it cannot start;
    nothing is left behind then.
    """
    as_root = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="mneme-pg-", dir="/tmp" if as_root else None))
    if as_root:
        shutil.chown(root, OS_USER, OS_USER)
    server = PgServer(bin_dir, root, _start_watchdog(bin_dir, root, as_root))
    atexit.register(server.stop)
    try:
        _run(
            as_root,
            root,
            [
                str(bin_dir / "initdb"),
                "-D",
                str(server.data_dir),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--no-locale",
                "--encoding=UTF8",
                "--no-sync",
            ],
        )
        server.socket_dir.mkdir(mode=0o700)
        if as_root:
            shutil.chown(server.socket_dir, OS_USER, OS_USER)
        settings = {**SETTINGS, "unix_socket_directories": f"'{server.socket_dir}'"}
        with open(server.data_dir / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("".join(f"{key} = {value}\n" for key, value in settings.items()))
        _run(
            as_root,
            root,
            [
                str(bin_dir / "pg_ctl"),
                "start",
                "-D",
                str(server.data_dir),
                "-l",
                str(server.log_file),
                "-w",
                "-t",
                str(STOP_TIMEOUT_S),
            ],
        )
    except RuntimeError as exc:
        log = server.log_file.read_text(errors="replace")[-2000:] if server.log_file.exists() else ""
        server.stop()
        raise RuntimeError(f"{exc}\n{log}".strip()) from None
    return server


def _as_server_user(as_root: bool, command: list[str]) -> list[str]:
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return [runuser, "-u", OS_USER, "--", *command] if as_root else command


def _run(as_root: bool, cwd: Path, command: list[str]) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PG")}
    done = subprocess.run(
        _as_server_user(as_root, command), cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{Path(command[0]).name} failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}"
        )


def _start_watchdog(bin_dir: Path, root: Path, as_root: bool) -> subprocess.Popen:
    """A shell that waits for its stdin to close, then stops the server (if it runs) and deletes ``root``."""
    stop = shlex.join(
        _as_server_user(as_root, [str(bin_dir / "pg_ctl"), "stop", "-D", str(root / "data"), "-m", "immediate", "-w"])
    )
    script = f"cat >/dev/null; {stop} >/dev/null 2>&1; rm -rf {shlex.quote(str(root))}"
    return subprocess.Popen(
        ["sh", "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
        start_new_session=True,
    )
