"""``db copy`` of a store that already holds a secret (saved before secrets were checked): refused, or copied
redacted with ``--redact`` (and no byte of it in the destination's files)."""

from __future__ import annotations

import json
from pathlib import Path

from reliability.cli_harness import run

from mneme_tui.memory import secrets
from mneme_tui.memory.store import Store
from secrets_and_purge.corpus import SECRETS

AWS = SECRETS["aws-key"]
KEY = next(word for word in AWS.split() if word.startswith("AKIA"))


def _old_store(path: Path) -> Store:
    """A store with one memory that holds a secret, as a store written before this check could."""
    store = Store(path)
    store.save("harmless first memory")
    store.save("second: " + AWS, secrets_policy=secrets.REDACT)
    leaked = store.save("third, to be leaked")
    store.run_transaction(lambda: store.memories.update(leaked.id, content="third: " + AWS))
    return store


def test_a_source_with_a_secret_is_refused(tmp_path: Path) -> None:
    _old_store(tmp_path / "old.db")
    result = run(["db", "copy", str(tmp_path / "old.db"), str(tmp_path / "new.db")])
    column = len("third: ") + AWS.index(KEY) + 1
    err = result.assert_one_error_line(
        1,
        "ERR_SECRET: memory 3 of the source looks like it holds an AWS access key "
        f"(content line 1, column {column}); nothing was copied",
    )
    assert KEY not in err
    assert Store(tmp_path / "new.db").count() == 0

    scan = run(["secrets", "scan", "-A", "--db", str(tmp_path / "old.db"), "--json"])
    (proposal,) = json.loads(scan.out)["proposals"]
    assert proposal["memory_id"] == 3 and proposal["command"].startswith("mneme purge 3 --chain")
    assert KEY not in scan.out


def test_redact_copies_it_redacted_and_leaves_no_byte_of_it(tmp_path: Path) -> None:
    _old_store(tmp_path / "old.db")
    Store(tmp_path / "new.db").save("already there")
    result = run(["db", "copy", str(tmp_path / "old.db"), str(tmp_path / "new.db"), "--merge", "--redact"])
    assert result.code == 0, result.err
    assert result.err == "mneme: 1 secret replaced with [REDACTED:<type>] before saving\n"
    copied = Store(tmp_path / "new.db").list(status="all", order="id", limit=None)
    assert [m.content.split(":")[0] for m in copied] == ["already there", "harmless first memory", "second", "third"]
    assert copied[-1].content == "third: " + secrets.redact(AWS)[0]
    files = [p for p in tmp_path.iterdir() if p.name.startswith("new.db")]
    assert files and not [p for p in files if KEY.encode() in p.read_bytes()]


def test_the_scan_lists_each_proposal_without_the_secret(tmp_path: Path) -> None:
    _old_store(tmp_path / "old.db")
    result = run(["secrets", "scan", "-A", "--db", str(tmp_path / "old.db")])
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "memory 3 (reflection, active, repo global): an AWS access key (content line 1, column "
        f"{len('third: ') + AWS.index(KEY) + 1})",
        '  to remove it: mneme purge 3 --chain --reason "leaked secret"',
    ]
    Store(tmp_path / "new.db").close()  # an empty store (a scan, a read, creates none)
    clean = run(["secrets", "scan", "-A", "--db", str(tmp_path / "new.db")])
    assert clean.out == "No stored memory holds a secret.\n"
