"""Property-based fuzz of configuration: the config file (random bytes, random TOML: huge integers, deep
arrays, bad escapes, non-UTF-8) and the environment (``MNEME_NOW``, ``MNEME_REPO``, ``MNEME_PROFILE``).
Never a traceback, exit 0/1/2, one error line, and an unchanged database when the command fails."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # cli_harness, in any import mode

from cli_harness import assert_no_traceback, database_state, run

FUZZ = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

COMMANDS = [
    ["recall", "connection"],
    ["recall", "x", "-A", "--json"],
    ["save", "a new memory"],
    ["list", "-A"],
    ["handshake"],
]

toml_values = st.one_of(
    st.text(max_size=10).map(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    st.sampled_from(
        [
            '"spec"',
            '"bm25"',
            '"nope"',
            '"\\ud800"',
            '"\\uDCFF"',
            "'[bold]'",
            '"""a\nb"""',
            "5",
            "9" * 5000,
            "1e999",
            "nan",
            "inf",
            "true",
            "1979-05-27T07:32:00Z",
            "[1, [2, [3]]]",
            "[" * 2000 + "]" * 2000,
            "{ a = 1 }",
            "",
            '"\\x"',
        ]
    ),
)
toml_lines = st.tuples(st.sampled_from(["profile", "db", "x", "a.b", '"k"', "[t]", "[[t]]", ""]), toml_values).map(
    lambda kv: f"{kv[0]} = {kv[1]}"
)
config_files = st.one_of(
    st.lists(toml_lines, max_size=4).map(lambda lines: "\n".join(lines).encode()),
    st.binary(max_size=80),
    st.lists(toml_lines, min_size=1, max_size=3).map(lambda lines: "\n".join(lines).encode("utf-16")),
)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    assert run(["save", "one connection per thread", "-p", "acme"]).code == 0
    return tmp_path


@FUZZ
@given(content=config_files, argv=st.sampled_from(COMMANDS))
def test_config_files(workspace: Path, isolated_environment: Path, content: bytes, argv: list[str]) -> None:
    (isolated_environment / "config.toml").write_bytes(content)
    before = database_state()
    result = run(argv)
    assert_no_traceback(result, before, database_state())


@st.composite
def clocks(draw) -> str:
    value = draw(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
    offset = draw(st.integers(-14 * 60, 14 * 60))
    text = value.isoformat()
    if draw(st.booleans()):
        sign = "+" if offset >= 0 else "-"
        text += f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    return draw(
        st.one_of(
            st.just(text),
            st.sampled_from(
                ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "yesterday", "", " ", "2026-13-01", "\udcff"]
            ),
            st.text(st.characters(blacklist_characters="\x00"), max_size=20),
        )
    )


@FUZZ
@given(
    now=clocks(),
    repo=st.one_of(st.none(), st.sampled_from(["acme", " ", "[bold]", "a|b", "\udcff", "\x1b[2J"])),
    profile=st.one_of(st.none(), st.sampled_from(["bm25", "spec", "nope", "\udcff", "[/x]"])),
    paths=st.dictionaries(
        st.sampled_from(["MNEME_DB", "MNEME_CONFIG", "MNEME_LEGION_DIR", "MNEME_CACHE_DIR"]),
        st.sampled_from(["", " ", "~nobody-here/x", "x\udcff", "sub/dir/file", "x" * 300, "[bold]", "/dev/null", "."]),
        max_size=2,
    ),
    argv=st.sampled_from([*COMMANDS, ["legion", "recall"]]),
)
def test_environment(
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    now: str,
    repo: str | None,
    profile: str | None,
    paths: dict[str, str],
    argv: list[str],
) -> None:
    before = database_state()
    with monkeypatch.context() as env:
        env.setenv("MNEME_NOW", now)
        for name, value in (("MNEME_REPO", repo), ("MNEME_PROFILE", profile), *paths.items()):
            if value is not None:
                env.setenv(name, value)
        result = run(argv)
    assert_no_traceback(result, before, database_state())
