"""A rebuildable on-disk copy of the in-memory index, so a cold process skips re-tokenising every memory.

The snapshot lives in the cache folder (``config.cache_dir()``), is keyed by the database's ``db_uuid``
and records the revision ``seq`` it reflects; loading it and then applying the rows changed since that
seq gives exactly the index a full load would. A missing, foreign or damaged snapshot is ignored, and so
is one written by another format version or with another text analysis (``TermFeatures.key``).

Format 2 adds the ``bm25`` profile's analysed terms: the term vocabulary, the row-major term lists with
their frequencies (``term_start``/``term_ids``/``term_tf``) and each row's analysed length.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from mneme_tui import config
from mneme_tui.memory.index import MemoryIndex

FORMAT_VERSION = 3
MIN_ROWS = 5_000
"""Smaller stores load from SQLite fast enough; no snapshot is written for them."""


def snapshot_path(db_path: Path) -> Path:
    digest = hashlib.sha256(str(Path(db_path).resolve()).encode("utf-8")).hexdigest()[:16]
    return config.cache_dir() / f"index-{digest}.npz"


def save(index: MemoryIndex, path: Path, db_uuid: str) -> bool:
    """Write the snapshot atomically; False (and nothing written) when the folder is not writable."""
    with index.lock:
        lengths = np.fromiter((t.size for t in index._row_tokens), dtype=np.int64, count=index.size)
        tokens = np.concatenate(index._row_tokens) if index.size else np.zeros(0, dtype=np.int32)
        vocab = sorted(index.vocab, key=index.vocab.__getitem__)
        terms = index.terms
        term_vocab = sorted(terms.vocab, key=terms.vocab.__getitem__)
        arrays = {
            "meta": np.array([FORMAT_VERSION, index.seq, index.size, index.update_seq], dtype=np.int64),
            "db_uuid": np.array(db_uuid),
            "ids": index.ids,
            "vectors": index.vectors,
            "repo_codes": index.repo_codes,
            "kind_codes": index.kind_codes,
            "status_codes": index.status_codes,
            "created_days": index.created_days,
            "access": index.access,
            "repos": _names(index.repos),
            "kinds": _names(index.kinds),
            "vocab": np.array("\n".join(vocab)),
            "token_lengths": lengths,
            "tokens": tokens,
            "term_key": np.array(terms.key),
            "term_vocab": np.array("\n".join(term_vocab)),
            "term_start": terms.doc_start,
            "term_ids": terms.doc_terms,
            "term_tf": terms.doc_tf,
            "term_len": terms.doc_len,
        }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=".index-", suffix=".npz", dir=path.parent)
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **arrays)
        os.replace(temp_name, path)
        return True
    except OSError:
        return False


def load(path: Path, db_uuid: str) -> MemoryIndex | None:
    """The index stored at ``path`` for this database, or None when there is no usable snapshot."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = [int(v) for v in data["meta"]]
            if meta[0] != FORMAT_VERSION or str(data["db_uuid"]) != db_uuid:
                return None
            _, seq, size, update_seq = meta
            index = MemoryIndex()
            index.seq, index.size, index.update_seq = seq, size, update_seq
            for name in ("ids", "vectors", "repo_codes", "kind_codes", "status_codes", "created_days", "access"):
                setattr(index, name, np.array(data[name]))
            index.repos = {str(name): code for code, name in enumerate(data["repos"])}
            for code, kind in enumerate(data["kinds"]):
                if index._kind_code(str(kind)) != code:
                    return None
            vocab = str(data["vocab"]).split("\n") if str(data["vocab"]) else []
            index.vocab = defaultdict(itertools.count(len(vocab)).__next__, zip(vocab, range(len(vocab))))
            lengths = data["token_lengths"]
            index._row_tokens = np.split(np.array(data["tokens"]), np.cumsum(lengths)[:-1]) if size else []
            index._postings_stale = True
            terms = index.terms
            if str(data["term_key"]) != terms.key:
                return None
            term_vocab = str(data["term_vocab"]).split("\n") if str(data["term_vocab"]) else []
            terms.vocab = dict(zip(term_vocab, range(len(term_vocab))))
            for name, attribute in (("term_start", "doc_start"), ("term_ids", "doc_terms"), ("term_tf", "doc_tf"),
                                    ("term_len", "doc_len")):
                setattr(terms, attribute, data[name])  # np.load gives fresh, writable arrays
            terms._stale = True
            if index.ids.size != size or index.vectors.shape[0] != size or len(index._row_tokens) != size:
                return None
            if terms.size != size or terms.doc_start.size != size + 1 or terms.doc_terms.size != terms.doc_start[-1]:
                return None
            return index
    except (OSError, ValueError, KeyError, EOFError):
        return None


def _names(codes: dict[str, int]) -> np.ndarray:
    return np.array(sorted(codes, key=codes.__getitem__), dtype=str)
