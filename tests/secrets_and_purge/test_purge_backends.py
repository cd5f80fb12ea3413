"""Purge on both backends (SQLite and a real PostgreSQL): one transaction, all or nothing; the chain; the scan."""

from __future__ import annotations

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.memory import kinds as K
from mneme_tui.memory import secret_scan, secrets
from mneme_tui.memory.purge import PURGED, purge
from mneme_tui.memory.store import Store
from secrets_and_purge.corpus import SECRETS


def test_purge_replaces_the_text_and_audits_on_each_backend(db_target) -> None:
    store = Store(db_target)
    first = store.save("v1 with a leaked key")
    second = store.supersede(first.id, "v2 with a leaked key")
    kept = store.save("unrelated")
    result = purge(store, [second.id], reason="leaked", chain=True)
    assert [m.id for m in result.purged] == [first.id, second.id] and result.clean
    for memory_id in (first.id, second.id):
        memory = store.get(memory_id)
        assert (memory.content, memory.topic, memory.status) == (PURGED, PURGED, K.TOMBSTONED)
        assert store.history(memory_id)[-1].reason.startswith("purged: leaked (sha256 ")
    assert store.get(kept.id).content == "unrelated"
    assert [r.memory.id for r in store.recall("leaked key", repo="global")] == []


def test_a_purge_with_an_unknown_id_changes_nothing(db_target) -> None:
    store = Store(db_target)
    memory = store.save("keep me")
    with pytest.raises(MnemeError, match="ERR_NOT_FOUND"):
        purge(store, [memory.id, 999], reason="r")
    assert store.get(memory.id).content == "keep me" and store.history(memory.id) == []


def test_a_reason_that_holds_a_secret_is_refused(db_target) -> None:
    store = Store(db_target)
    memory = store.save("keep me")
    with pytest.raises(MnemeError, match="ERR_SECRET: reason: looks like an AWS access key"):
        purge(store, [memory.id], reason=SECRETS["aws-key"])


def test_the_scan_proposes_every_stored_secret_and_skips_purged_ones(db_target) -> None:
    store = Store(db_target)
    clean = store.save("nothing here")
    redacted = store.save(SECRETS["github-token"], secrets_policy=secrets.REDACT)
    leaked = store.save("later leaked")
    store.run_transaction(lambda: store.memories.update(leaked.id, content=SECRETS["stripe-key"]))
    assert [p.memory_id for p in secret_scan.scan(store)] == [leaked.id]
    purge(store, [leaked.id], reason="leaked")
    assert secret_scan.scan(store) == []
    assert {clean.id, redacted.id} <= {m.id for m in store.list(status="all", limit=None)}
