"""The verification report of one task (the input of ``mneme task sync``): format and validation.

The report is one JSON object (see the README, "Task sync"). Validation is strict so that a typo is an
error instead of a silently lost field: unknown keys are rejected, except keys starting with ``x-``,
which are reserved for tool-specific extensions and ignored. Every problem raises ERR_VALIDATION_FAILED
naming the JSON path (e.g. ``runs[1].gates[0].passed``) before anything is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import secrets
from mneme_tui.memory.learning.scope import common_scope, repo_path
from mneme_tui.validation import (
    MAX_TASK_ID_BYTES,
    check_document,
    decode_utf8,
    json_int,
    read_file,
    read_stream,
    too_large,
)

REPORT_VERSION = 1
MAX_REPORT_BYTES = 10_000_000
MAX_WALKTHROUGH_CHARS = 50_000
MAX_NAME_CHARS = 200
_NOTHING = "; nothing was written"

_REPORT_KEYS = {
    "version": False,
    "task_id": True,
    "repo": True,
    "modified_files": True,
    "walkthrough": True,
    "runs": True,
    "scope": False,
}
_RUN_KEYS = {"gates": True, "label": False}
_GATE_KEYS = {"name": True, "passed": True, "message": False, "file": False}


@dataclass(frozen=True, slots=True)
class Gate:
    """One gate result in one run: its name, whether it passed, its message and the file it cites."""

    name: str
    passed: bool
    message: str = ""
    file: str | None = None


@dataclass(frozen=True, slots=True)
class GateRun:
    """One verification run: every gate it ran, in order."""

    gates: tuple[Gate, ...]
    label: str = ""

    @property
    def verified(self) -> bool:
        """True when every gate of the run passed."""
        return all(gate.passed for gate in self.gates)

    @property
    def failures(self) -> tuple[Gate, ...]:
        return tuple(gate for gate in self.gates if not gate.passed)


@dataclass(frozen=True, slots=True)
class TaskReport:
    """A validated task report."""

    task_id: str
    repo: str
    modified_files: tuple[str, ...]
    walkthrough: str
    runs: tuple[GateRun, ...]
    scope: str

    @property
    def final_run(self) -> GateRun:
        return self.runs[-1]

    @property
    def verified(self) -> bool:
        """True when the final run is fully verified (every gate passed)."""
        return self.final_run.verified


def screened_report(report: TaskReport, policy: str) -> tuple[TaskReport, int]:
    """``report`` with every text field screened for secrets (``secrets.screen``: ERR_SECRET naming the field,
    or redacted under the ``redact`` policy) and ``<private>`` spans removed; and how many were replaced."""
    replaced = 0

    def screen(text: str, where: str) -> str:
        nonlocal replaced
        text, count = secrets.screen(text, policy, where)
        replaced += count
        return text

    runs = tuple(
        GateRun(
            tuple(
                Gate(
                    screen(gate.name, f"runs[{r}].gates[{g}].name"),
                    gate.passed,
                    screen(gate.message, f"runs[{r}].gates[{g}].message"),
                    None if gate.file is None else screen(gate.file, f"runs[{r}].gates[{g}].file"),
                )
                for g, gate in enumerate(run.gates)
            ),
            screen(run.label, f"runs[{r}].label"),
        )
        for r, run in enumerate(report.runs)
    )
    files = tuple(screen(path, f"modified_files[{i}]") for i, path in enumerate(report.modified_files))
    screened = TaskReport(
        screen(report.task_id, "task_id"),
        screen(report.repo, "repo"),
        files,
        screen(report.walkthrough, "walkthrough"),
        runs,
        screen(report.scope, "scope"),
    )
    return screened, replaced


def load_report(path: str | Path) -> TaskReport:
    """Read and validate a report file (a regular file of at most MAX_REPORT_BYTES)."""
    return _parse_bytes(read_file(path, MAX_REPORT_BYTES, "report", "report size"), str(path))


def read_report(stream: BinaryIO, *, source: str = "standard input") -> TaskReport:
    """Read and validate a report from a byte stream, reading at most MAX_REPORT_BYTES + 1 bytes."""
    refusal = too_large(source, "report size", MAX_REPORT_BYTES)
    return _parse_bytes(read_stream(stream, MAX_REPORT_BYTES, refusal), source)


def _parse_bytes(data: bytes, source: str) -> TaskReport:
    return parse_report_text(decode_utf8(data, source), source=source)


def parse_report_text(text: str, *, source: str = "report") -> TaskReport:
    """Parse JSON text into a validated report."""
    try:
        document = json.loads(text, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}{_NOTHING}"
        ) from None
    except ValueError as exc:  # a number past the digit limit
        raise MnemeError(ERR_VALIDATION_FAILED, f"{source}: {exc}{_NOTHING}") from None
    except RecursionError:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{source} is nested too deeply") from None
    check_document(document, f"a string in {source}")
    return parse_report(document, source=source)


def parse_report(document: Any, *, source: str = "report") -> TaskReport:
    """Validate a decoded JSON document; raises ERR_VALIDATION_FAILED naming the first problem."""
    _object(document, source, _REPORT_KEYS)
    version = document.get("version", REPORT_VERSION)
    if type(version) is not int or version != REPORT_VERSION:
        _fail(source, "version", f"must be {REPORT_VERSION}")
    task_id = _name(document, "task_id", source)
    if len(task_id.encode("utf-8")) > MAX_TASK_ID_BYTES:  # the store's limit, refused with the report
        _fail(source, "task_id", f"is longer than {MAX_TASK_ID_BYTES} bytes of UTF-8")
    repo = _name(document, "repo", source)
    files = document["modified_files"]
    if not isinstance(files, list):
        _fail(source, "modified_files", "must be a list of file paths")
    modified = tuple(dict.fromkeys(_path(value, f"modified_files[{i}]", source) for i, value in enumerate(files)))
    walkthrough = _text(document["walkthrough"], "walkthrough", source, MAX_WALKTHROUGH_CHARS)
    if not walkthrough.strip():
        _fail(source, "walkthrough", "cannot be empty: say what was changed and why")
    runs = document["runs"]
    if not isinstance(runs, list) or not runs:
        _fail(source, "runs", "must be a non-empty list of gate runs")
    parsed_runs = tuple(_run(run, f"runs[{i}]", source) for i, run in enumerate(runs))
    scope = common_scope(modified)
    if "scope" in document:
        raw_scope = _text(document["scope"], "scope", source, 1000).strip().strip("/")
        scope = "." if raw_scope in ("", ".") else _path(raw_scope, "scope", source)
    return TaskReport(task_id, repo, modified, walkthrough.strip(), parsed_runs, scope)


def _run(value: Any, where: str, source: str) -> GateRun:
    _object(value, f"{source}: {where}", _RUN_KEYS)
    gates = value["gates"]
    if not isinstance(gates, list) or not gates:
        _fail(source, f"{where}.gates", "must be a non-empty list of gates")
    parsed = tuple(_gate(gate, f"{where}.gates[{i}]", source) for i, gate in enumerate(gates))
    seen: set[tuple[str, str | None]] = set()
    for gate in parsed:
        if (gate.name, gate.file) in seen:
            cited = f" citing {gate.file}" if gate.file else ""
            _fail(source, f"{where}.gates", f"gate {gate.name!r}{cited} appears twice in one run")
        seen.add((gate.name, gate.file))
    label = _text(value.get("label", ""), f"{where}.label", source, MAX_NAME_CHARS)
    return GateRun(parsed, label.strip())


def _gate(value: Any, where: str, source: str) -> Gate:
    _object(value, f"{source}: {where}", _GATE_KEYS)
    name = _name(value, "name", source, where)
    passed = value["passed"]
    if not isinstance(passed, bool):
        _fail(source, f"{where}.passed", f"must be true or false, not {json.dumps(passed)}")
    message = _text(value.get("message", ""), f"{where}.message", source, MAX_WALKTHROUGH_CHARS)
    cited = value.get("file")
    file = None if cited is None else _path(cited, f"{where}.file", source)
    return Gate(name, passed, message.strip(), file)


def _object(value: Any, where: str, keys: dict[str, bool]) -> None:
    if not isinstance(value, dict):
        raise MnemeError(ERR_VALIDATION_FAILED, f"{where}: must be a JSON object, not {_type(value)}{_NOTHING}")
    unknown = sorted(key for key in value if key not in keys and not key.startswith("x-"))
    if unknown:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"{where}: unknown key {', '.join(map(repr, unknown))} (allowed: {', '.join(keys)}, "
            f"or x-* extensions){_NOTHING}",
        )
    missing = [key for key, required in keys.items() if required and key not in value]
    if missing:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{where}: missing {', '.join(map(repr, missing))}{_NOTHING}")


def _name(document: dict, key: str, source: str, where: str = "") -> str:
    path = f"{where}.{key}" if where else key
    value = _text(document[key], path, source, MAX_NAME_CHARS).strip()
    if not value:
        _fail(source, path, "cannot be empty")
    if any(ch in value for ch in "\n\r\t\x00"):
        _fail(source, path, "must be one line")
    return value


def _text(value: Any, where: str, source: str, limit: int) -> str:
    if not isinstance(value, str):
        _fail(source, where, f"must be a string, not {_type(value)}")
    if len(value) > limit:
        _fail(source, where, f"is longer than {limit} characters")
    if "\x00" in value:
        _fail(source, where, "cannot contain NUL bytes")
    return value


def _path(value: Any, where: str, source: str) -> str:
    text = _text(value, where, source, 1000)
    try:
        return repo_path(text)
    except MnemeError as exc:
        _fail(source, where, exc.message)


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _fail(source: str, where: str, problem: str) -> NoReturn:
    raise MnemeError(ERR_VALIDATION_FAILED, f"{source}: {where} {problem}{_NOTHING}")
