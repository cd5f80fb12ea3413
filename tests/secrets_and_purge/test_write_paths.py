"""Every way text enters the store refuses a secret by default (one line, never the secret) and redacts it with
``--redact`` or ``secrets = "redact"`` in the config file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from reliability.cli_harness import run

from mneme_tui.memory.store import Store
from secrets_and_purge.corpus import SECRETS

AWS = SECRETS["aws-key"]
SECRET_VALUE = next(word for word in AWS.split() if word.startswith("AKIA"))  # the key, for the "never printed" checks


def _stored_texts() -> str:
    store = Store(os.environ["MNEME_DB"])
    return "\n".join(f"{m.topic}\n{m.content}" for m in store.list(status="all", limit=None))


def test_the_secret_value_is_the_key() -> None:
    assert SECRET_VALUE.startswith("AKIA") and len(SECRET_VALUE) == 20


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_save_refuses_a_secret_in_one_line_without_echoing_it(json_flag: list[str]) -> None:
    result = run(["save", "line one\n" + AWS, *json_flag])
    err = result.assert_one_error_line(
        1,
        "ERR_SECRET: looks like an AWS access key (line 2, column",
        "nothing was saved; --redact stores it as [REDACTED:aws-key]",
    )
    assert SECRET_VALUE not in err + result.out
    assert result.out == ""
    assert _stored_texts() == ""


def test_save_refuses_a_secret_in_the_topic() -> None:
    result = run(["save", "harmless", "--topic", SECRETS["github-token"]])
    assert "topic: looks like a GitHub token" in result.assert_one_error_line(1)


def test_save_redact_stores_it_redacted_and_says_how_many() -> None:
    result = run(["save", AWS + "\n" + SECRETS["stripe-key"], "--redact", "--json"])
    assert result.code == 0, result.err
    assert result.err == "mneme: 2 secrets replaced with [REDACTED:<type>] before saving\n"
    saved = json.loads(result.out)
    assert "[REDACTED:aws-key]" in saved["content"] and "[REDACTED:stripe-key]" in saved["content"]
    assert SECRET_VALUE not in _stored_texts()


def test_the_config_file_can_make_redact_the_default() -> None:
    Path(os.environ["MNEME_CONFIG"]).write_text('secrets = "redact"\n')
    assert run(["save", AWS]).code == 0
    assert "[REDACTED:aws-key]" in _stored_texts()
    Path(os.environ["MNEME_CONFIG"]).write_text('secrets = "ignore"\n')
    run(["save", AWS]).assert_one_error_line(1, "ERR_CONFIG: secrets in the config file must be one of refuse, redact")


def test_private_spans_never_reach_the_store() -> None:
    assert run(["save", "keep <private>the customer's name</private>this"]).code == 0
    assert "customer" not in _stored_texts()


def test_supersede_refuses_and_redacts() -> None:
    assert run(["save", "first text"]).code == 0
    refused = run(["supersede", "1", AWS])
    assert SECRET_VALUE not in refused.assert_one_error_line(1, "ERR_SECRET")
    assert run(["supersede", "1", AWS, "--redact"]).code == 0
    texts = _stored_texts()
    assert "[REDACTED:aws-key]" in texts and SECRET_VALUE not in texts


def test_edit_refuses_a_secret_typed_in_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(["save", "first text"]).code == 0
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nprintf '%s' '{AWS}' > \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    assert SECRET_VALUE not in run(["edit", "1"]).assert_one_error_line(1, "ERR_SECRET")
    assert run(["edit", "1", "--redact"]).code == 0
    assert SECRET_VALUE not in _stored_texts()


def _report(walkthrough: str, message: str = "Cognitive Complexity over the limit") -> dict:
    trapped = {"name": "Cognitive Complexity", "file": "src/app.py"}
    return {
        "task_id": "INT-9",
        "repo": "acme",
        "modified_files": ["src/app.py"],
        "walkthrough": walkthrough,
        "runs": [
            {"gates": [{**trapped, "passed": False, "message": message}]},
            {"gates": [{**trapped, "passed": True, "message": "ok"}]},
        ],
    }


def test_task_sync_screens_every_text_field_of_the_report(tmp_path: Path) -> None:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    pass\n")
    report = tmp_path / "report.json"
    report.write_text(json.dumps(_report("Split main.", message="failed with " + AWS)))
    refused = run(["task", "sync", str(report), "--root", str(root), "--json"])
    err = refused.assert_one_error_line(1, "ERR_SECRET: runs[0].gates[0].message: looks like an AWS access key")
    assert SECRET_VALUE not in err + refused.out
    done = run(["task", "sync", str(report), "--root", str(root), "--json", "--redact"])
    assert done.code == 0, done.err
    assert SECRET_VALUE not in done.out + done.err + _stored_texts()


def test_legion_record_refuses_and_redacts(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    args = ["legion", "record", "pattern", "--dir", str(folder), "--pattern", "deploy with " + AWS]
    assert SECRET_VALUE not in run(args).assert_one_error_line(1, "ERR_SECRET: --pattern: looks like an AWS")
    assert not any(folder.iterdir())
    assert run([*args, "--redact"]).code == 0
    text = (folder / "PATTERNS.md").read_text()
    assert "[REDACTED:aws-key]" in text and SECRET_VALUE not in text
