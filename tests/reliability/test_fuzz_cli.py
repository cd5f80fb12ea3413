"""Property-based fuzz of every command's arguments (issue 11): random text, unicode, markup-looking
``[bold]`` / ``[/x]``, pipes, backslashes, control characters, huge numbers and undecodable bytes (lone
surrogates, as Python decodes argv). Whatever the arguments: no exception escapes ``main``, the exit status
is 0, 1 or 2, an error is one line on stderr, and a failed command leaves the database and the Legion
files as they were. Seeded (derandomized) and bounded, so the file runs in seconds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # cli_harness, in any import mode

from cli_harness import assert_no_traceback, database_state, folder_state, run

from mneme_tui.memory.kinds import ALL_KINDS, STATUSES

FUZZ = settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HUGE = "9" * 5000
SPECIAL = [
    "[bold]",
    "[/x]",
    "[@click=app.quit]",
    "[/]",
    "a|b",
    "|",
    "\\",
    "\\|",
    "\\n",
    "\x1b[31mred",
    "\x07",
    "\r\n",
    "\t",
    "💥 ünïcödé",
    "a\udcff",
    "\udcff",
    "\ud800",
    HUGE,
    "-" + HUGE,
    "-1",
    "0",
    "1",
    "1e308",
    "nan",
    "",
    " ",
    "global",
    "../x",
    "/etc/passwd",
    "~",
    "x" * 300,
]
text = st.one_of(
    st.sampled_from(SPECIAL),
    st.text(st.characters(blacklist_characters="\x00"), max_size=24),  # argv can never hold NUL
    st.tuples(st.text(max_size=6), st.sampled_from(["\udcff", "\udc80", "\ud800"])).map("".join),
)
number = st.one_of(st.integers(-3, 60).map(str), st.sampled_from([HUGE, "1e3", "x", "", "0x10", "٣", "²"]))


def choice(values) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(list(values)), text)


VALUES = {
    "text": text,
    "number": number,
    "kind": choice(ALL_KINDS),
    "status": choice([*STATUSES, "all"]),
    "profile": choice(["spec", "bm25"]),
    "outcome": choice(["success", "failed", "partial"]),
    "signal": choice(["positive", "negative", "corrective"]),
    "id": choice(["1", "2", "3", "4"]),
    "decision": choice(["architecture", "naming", "testing", "tooling", "style", "scope"]),
    "flag": st.none(),
}
RECORD_COMMON = {"--tags": "text", "--branch": "text", "--json": "flag"}
COMMANDS: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, str]]] = {
    ("save",): (("text",), {"--topic": "text", "--kind": "kind", "-p": "text", "--task": "text", "--json": "flag"}),
    ("recall",): (
        ("text",),
        {"-A": "flag", "-p": "text", "-n": "number", "--kind": "kind", "--profile": "profile", "--json": "flag"},
    ),
    ("list",): (
        (),
        {"--status": "status", "-A": "flag", "-p": "text", "-n": "number", "--kind": "kind", "--json": "flag"},
    ),
    ("dismiss",): (("id", "id"), {"--json": "flag"}),
    ("task", "candidates"): ((), {"-p": "text", "-A": "flag", "--rules": "flag", "--json": "flag"}),
    ("handshake",): (
        (),
        {"-p": "text", "--task": "text", "--modified": "text", "-n": "number", "--root": "text", "--json": "flag"},
    ),
    ("legion", "recall"): (
        (),
        {
            "--tags": "text",
            "--agent": "text",
            "--task-type": "text",
            "--branch": "text",
            "-n": "number",
            "--json": "flag",
        },
    ),
    ("legion", "agents"): ((), {"--task-types": "text", "--json": "flag"}),
    ("legion", "briefing"): ((), {"--json": "flag"}),
    ("legion", "prune"): ((), {"--apply": "flag", "--json": "flag"}),
    ("legion", "sync"): ((), {"-p": "text", "--json": "flag"}),
    ("legion", "compact"): (("text",), {"--json": "flag"}),
    ("task", "sync"): (("text",), {"--root": "text", "--dry-run": "flag", "--json": "flag"}),
    ("eval",): (("text",), {"--profile": "profile", "--held-out-from": "text", "--json": "flag"}),
    ("legion", "record", "outcome"): (
        (),
        {
            "--agent": "text",
            "--outcome": "outcome",
            "--summary": "text",
            "--phase": "text",
            "--plan": "text",
            "--task-type": "text",
            "--importance": "number",
            "--review-cycles": "number",
            **RECORD_COMMON,
        },
    ),
    ("legion", "record", "pattern"): (
        (),
        {"--pattern": "text", "--context": "text", "--reuse-criteria": "text", "--source": "text", **RECORD_COMMON},
    ),
    ("legion", "record", "error"): (
        (),
        {"--error-signature": "text", "--fix": "text", "--agent": "text", "--unresolved": "flag", **RECORD_COMMON},
    ),
    ("legion", "record", "preference"): (
        (),
        {
            "--decision-point": "decision",
            "--context": "text",
            "--proposed": "text",
            "--user-choice": "text",
            "--signal": "signal",
            "--agent": "text",
            **RECORD_COMMON,
        },
    ),
}


@st.composite
def arguments(draw, command: tuple[str, ...]) -> list[str]:
    positionals, options = COMMANDS[command]
    argv = list(command)
    argv += [draw(VALUES[kind]) for kind in positionals]
    for option in draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=5)):
        value = draw(VALUES[options[option]])
        argv += [option] if value is None else [option, value]
    return argv


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store with memories in two repos (one dismissed) and a Legion folder with a few records."""
    monkeypatch.chdir(tmp_path)
    legion = tmp_path / ".planning" / "memory"
    for argv in (
        ["save", "peewee keeps one connection per thread", "-p", "acme", "--topic", "Architecture"],
        ["save", "[bold]markup[/bold] | pipes \\ backslashes", "-p", "global", "--kind", "axiom"],
        ["save", "an old note", "-p", "acme"],
        ["dismiss", "3"],
        [
            "legion",
            "record",
            "outcome",
            "--agent",
            "a1",
            "--outcome",
            "success",
            "--summary",
            "did it",
            "--branch",
            "main",
            "--dir",
            str(legion),
        ],
        [
            "legion",
            "record",
            "outcome",
            "--agent",
            "a1",
            "--outcome",
            "failed",
            "--summary",
            "a | b",
            "--branch",
            "main",
            "--dir",
            str(legion),
        ],
        [
            "legion",
            "record",
            "error",
            "--error-signature",
            "TypeError x",
            "--fix",
            "check x",
            "--branch",
            "main",
            "--dir",
            str(legion),
        ],
    ):
        assert run(argv).code == 0, run(argv).err
    return legion


@pytest.mark.parametrize("command", list(COMMANDS), ids=[" ".join(c) for c in COMMANDS])
def test_any_arguments_give_no_traceback(seeded: Path, command: tuple[str, ...]) -> None:
    @FUZZ
    @given(argv=arguments(command), folder=st.one_of(st.none(), st.none(), text))
    def check(argv: list[str], folder: str | None) -> None:
        if command[0] == "legion" and command[-1] != "compact":
            argv = [*argv, "--dir", str(seeded) if folder is None else folder]
        before, files = database_state(), folder_state(seeded)
        result = run(argv)
        failed = result.code != 0
        assert_no_traceback(result, before, database_state() if failed else before)
        if failed:
            assert folder_state(seeded) == files, "a failed command changed the Legion files"
        if any("\udc80" <= ch <= "\udfff" or "\ud800" <= ch <= "\udbff" for arg in argv for ch in arg):
            assert failed, "an argument that is not UTF-8 was accepted"

    check()


@FUZZ
@given(db=st.sampled_from(["", " ", "\udcff.db", "a\x1b.db", "[bold].db"]), command=st.sampled_from(["list", "save"]))
def test_db_option_values(seeded: Path, db: str, command: str) -> None:
    argv = ["--db", db, command] + (["x"] if command == "save" else [])
    before = database_state()
    result = run(argv)
    assert_no_traceback(result, before, database_state())


@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=64),
        st.text(max_size=40).map(str.encode),
        st.sampled_from([b"\xff", b"a\xc3", b"\xef\xbb\xbf", b"\x00", b"x" * 400_001, b"  \n"]),
    ),
    argv=st.sampled_from([["save", "-"], ["save", "-", "--json", "-p", "acme"], ["task", "sync", "-"]]),
)
def test_standard_input_bytes(seeded: Path, data: bytes, argv: list[str]) -> None:
    before = database_state()
    result = run(argv, stdin=data)
    assert_no_traceback(result, before, database_state())
    if result.code == 0 and argv[0] == "save":
        assert data.decode("utf-8-sig").strip()


SECRET = "wS3cr3t"
PASSWORD_PIECES = [SECRET, "@", ":", "/", "?", "#", "%40", "%", "[", "]", "p", "ss", "&", "=", "x"]
passwords = st.lists(st.sampled_from(PASSWORD_PIECES), max_size=5).flatmap(
    lambda pieces: st.permutations([*pieces, SECRET]).map("".join)
)
hosts = st.sampled_from(["127.0.0.1:1", "127.0.0.1:abc", "127.0.0.1:99999", "[::1", "[::1]:1", "127.0.0.1:1,"])
queries = st.sampled_from(
    ["", "?sslmode=bogus", f"?password={SECRET}", f"?sslmode=disable&password={SECRET}x", "?connect_timeout=1"]
)
database_urls = st.builds(
    lambda user, password, host, db, query: f"postgresql://{user}:{password}@{host}/{db}{query}",
    st.sampled_from(["alice", "a:b", ""]),
    passwords,
    hosts,
    st.sampled_from(["db", "d@b", ""]),
    queries,
)


def _commands_taking_db() -> list[list[str]]:
    """Every command with a ``--db`` option, its required positionals filled with ``1``."""
    from mneme_tui.cli import arguments as cli_arguments
    from mneme_tui.cli import build_parser

    found: list[list[str]] = []

    def walk(parser, path: list[str]) -> None:
        if isinstance(parser, cli_arguments.Parser):
            parser.complete()
        children = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        if path and not children and any("--db" in a.option_strings for a in parser._actions):
            positionals = [a for a in parser._actions if not a.option_strings and a.nargs not in ("?", "*")]
            found.append([*path, *["1"] * len(positionals)])
        for action in children:
            for name, child in action.choices.items():
                walk(child, [*path, name])

    walk(build_parser(), [])
    return [argv for argv in found if argv[0] != "mcp"]  # mcp serves stdio: tests/mcp drives it


DB_COMMANDS = _commands_taking_db()


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(url=database_urls, command=st.sampled_from(DB_COMMANDS), where=st.sampled_from(["--db", "MNEME_DB", "copy"]))
def test_no_command_prints_a_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, command: list[str], where: str
) -> None:
    """Whatever the URL's shape (an unencoded ``@``, ``:`` or ``/`` in the password, a bad port, an unclosed
    IPv6 bracket, a ``password=`` parameter), no command that takes ``--db`` prints any part of the password."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MNEME_DB", raising=False)
    if where == "MNEME_DB":
        monkeypatch.setenv("MNEME_DB", url)
        argv = command
    elif where == "copy":
        argv = ["db", "copy", url, str(tmp_path / "b.db")] if len(url) % 2 else ["db", "copy", "missing.db", url]
    else:
        argv = [*command, "--db", url]
    result = run(argv)
    shown = result.out + result.err
    assert result.code in (0, 1, 2), (argv, shown)
    assert "Traceback" not in shown
    assert SECRET not in shown, (argv, shown)


def test_the_issue_url_hides_its_password() -> None:
    result = run(["db", "info", "--db", f"postgresql://alice:p@ss:{SECRET}@127.0.0.1:1/db"])
    err = result.assert_one_error_line(1, "ERR_DATABASE", "postgresql://alice@127.0.0.1:1/db")
    assert SECRET not in err and "ss:" not in err
