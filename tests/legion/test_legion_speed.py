"""The import speed-ups keep results bit for bit (batched embeddings, cell splitting, columns JSON), and the
import bench reports consistent figures."""

from __future__ import annotations

import dataclasses
import gc
import json
import random
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from provenances import SYNCED

from mneme_tui.bench.legion_bench import TARGET_SECONDS, bench_import, synthetic_outcomes
from mneme_tui.legion.markdown import cells
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.legion_records import RECORD_TYPES, ErrorRecord, PatternRecord, PreferenceRecord, Record
from mneme_tui.legion.mirror import record_mapping as mirror_module
from mneme_tui.legion.mirror.record_mapping import columns_json, memory_content, record_json
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.memory import vectors
from mneme_tui.memory.store import Store

_WORDS = [
    "alpha",
    "Beta",
    "\u212a",
    "KELVIN\u212a",
    "AbC9",
    "γάμμα",
    "ΣΊΣΥΦΟΣ",
    "x_y",
    "123",
    "日本語",
    "naïve",
    "İstanbul",
    "straße",
    "O-001",
    "é",
    "ﬁx",
    "",
    "!!",
    "\t",
    "\n",
    "a-b",
    "٣٤",
    "ǅ",
]


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    ascii_words = [word for word in _WORDS if word.isascii()] + ["_a_", "Z9-z", "a.b,c;d", "\x7f", "~`^"]
    texts = [" ".join(rng.choice(_WORDS) for _ in range(rng.randrange(0, 50))) for _ in range(count)]
    texts += ["".join(rng.choice(ascii_words) for _ in range(rng.randrange(0, 30))) for _ in range(count)]
    return [*texts, "", "   ", "...", "_", "a" * 500, "word " * 2000, "Σ σ ς"]


def _old_split_raw_cells(line: str) -> list[str] | None:
    """The character loop ``split_raw_cells`` used before its regex: the reference."""
    text = line.strip()
    if not text.startswith("|"):
        return None
    if "\\" not in text:
        parts = text.split("|")
        return None if parts[-1].strip() else [part.strip() for part in parts[1:-1]]
    found: list[str] = []
    current: list[str] = []
    index = 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            current.append(text[index : index + 2])
            index += 2
            continue
        if char == "|":
            found.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    return None if "".join(current).strip() else found


def test_batched_embeddings_are_bit_identical() -> None:
    texts = _random_texts(4000, seed=11)
    document = parse(synthetic_outcomes(1500), "OUTCOMES.md")
    texts += [memory_content(record) for record in document.records]
    assert vectors.embed_blobs(texts) == [vectors.to_blob(vectors.embed(text)) for text in texts]
    assert vectors.embed_blobs([]) == []
    # long texts (summed one by one), many lines, shared lines, empty lines and texts side by side
    odd = ["a\n" * 700, "alpha beta\n" * 3 + "gamma", "", "\n\n", "x " * 600 + "\ny", "Σ\nσ ς\nΣΣ"]
    assert vectors.embed_blobs(odd) == [vectors.to_blob(vectors.embed(text)) for text in odd]
    assert vectors.embed_blobs(["", "..."]) == [vectors.to_blob(np.zeros(64, dtype=np.float32))] * 2


def test_mint_many_stores_the_single_text_embedding(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    texts = [t for t in _random_texts(2000, seed=5) if t.strip()]
    minted = store.mint_many([dict(content=text, provenance=SYNCED, kind="task", repo_id="r") for text in texts])
    blobs = dict(store.db.execute_sql("SELECT id, embedding FROM memories").fetchall())
    assert [blobs[m.id] for m in minted] == [vectors.to_blob(vectors.embed(text)) for text in texts]


def test_split_raw_cells_matches_the_character_loop() -> None:
    rng = random.Random(3)
    alphabet = ["|", "\\", "a", " ", "\t", "\n", "é", "-", ":", "u{41}"]
    for _ in range(50_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 16)))
        line = "|" + line if rng.random() < 0.8 else line
        assert cells.split_raw_cells(line) == _old_split_raw_cells(line), repr(line)
        # is_separator_line's pre-check: "a character outside |-: and whitespace", now via str.strip
        assert bool(line.strip().strip(cells._SEPARATOR_TEXT)) == bool(set(line.strip()) - cells._SEPARATOR_CHARS)


def record_columns(record: Record) -> dict:
    """The record's Legion columns as a dict, the way the mirror defined them before ``record_json``: the reference."""
    columns = dict(vars(record))
    for name in mirror_module._NOT_COLUMNS:
        columns.pop(name, None)
    columns["tags"] = list(record.tags)
    columns["extra"] = dict(sorted(record.extra.items()))
    return columns


def test_columns_json_is_json_dumps() -> None:
    for record in parse(synthetic_outcomes(200), "OUTCOMES.md").records:
        columns = record_columns(record)
        assert columns_json(columns) == json.dumps(columns, ensure_ascii=False)
    odd = {"a": 'é\u2028\x00"', "b": [1, "x"], "c": {"z": None}, "d": True, "e": 1.5}
    assert columns_json(odd) == json.dumps(odd, ensure_ascii=False)


def test_sync_restores_the_garbage_collector(tmp_path: Path) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "OUTCOMES.md").write_text(synthetic_outcomes(20), encoding="utf-8")
    store = Store(tmp_path / "m.db")
    assert gc.isenabled()
    sync(store, memory_dir, repo="p")
    assert gc.isenabled()
    gc.disable()
    try:
        sync(store, memory_dir, repo="p")
        assert not gc.isenabled()
    finally:
        gc.enable()
    archived = store.db.execute_sql("SELECT DISTINCT typeof(archived) FROM legion_records").fetchall()
    assert archived == [("integer",)]


def test_bench_import_report_is_consistent() -> None:
    result = bench_import(rows=200, repeats=2)
    assert result["rows"] == result["records"] == 200  # every synthetic row parsed as a record
    assert result["bytes"] == len(synthetic_outcomes(200).encode("utf-8"))
    assert result["runs"] == 2 and result["target_seconds"] == TARGET_SECONDS
    # the median of two runs is their mean, never below the faster one
    assert result["first_sync_fastest_seconds"] <= result["first_sync_seconds"]
    within = max(result["parse_seconds"], result["first_sync_seconds"]) < TARGET_SECONDS
    assert result["within_target"] is within


def test_record_json_keeps_field_order_and_values() -> None:
    records: list = list(parse(synthetic_outcomes(50), "OUTCOMES.md").records)
    records += [
        PatternRecord(id="PAT-1", pattern="p", tags=["a"], extra={"z": "1", "b": "2"}),
        ErrorRecord(id="PIT-1", error_signature="e", resolved=True, line=4, occurrence=2),
        PreferenceRecord(id="PRF-1", context="c", recency_weight=0.5),
    ]
    for record in records:
        expected = {name: value for name, value in vars(record).items() if name not in mirror_module._NOT_COLUMNS}
        expected["tags"] = list(record.tags)
        expected["extra"] = dict(sorted(record.extra.items()))
        assert list(record_columns(record).items()) == list(expected.items())
        assert list(json.loads(record_json(record)).items()) == list(expected.items())


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def _records(draw) -> Record:
    """Any record of any kind: arbitrary unicode in every text field, tags, extra columns, numbers."""
    cls = draw(st.sampled_from(sorted(RECORD_TYPES.values(), key=lambda c: c.kind)))
    record = cls(tags=draw(st.lists(_TEXT, max_size=3)), extra=draw(st.dictionaries(_TEXT, _TEXT, max_size=3)))
    for spec in dataclasses.fields(cls):
        if spec.type == "str":
            setattr(record, spec.name, draw(_TEXT))
    if isinstance(record, ErrorRecord):
        record.resolved = draw(st.booleans())
    if hasattr(record, "importance"):
        record.importance = draw(st.integers(-3, 9))
    return record


@settings(max_examples=300, deadline=None)
@given(_records())
def test_record_json_is_json_dumps_of_record_columns(record: Record) -> None:
    assert record_json(record) == json.dumps(record_columns(record), ensure_ascii=False)


def test_mint_ids_returns_the_ids_mint_many_would(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    first = store.mint_many([dict(content="one", provenance=SYNCED, kind="task", repo_id="r")])
    ids = store.mint_ids(
        [dict(content=f"text {n}", provenance=SYNCED, kind="pitfall", repo_id="r", topic="T") for n in range(7)]
    )
    assert ids == list(range(first[0].id + 1, first[0].id + 8))
    found = store.get_many(ids)
    assert [found[i].content for i in ids] == [f"text {n}" for n in range(7)]
    assert store.mint_ids([]) == []
