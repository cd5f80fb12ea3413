"""The fast paths give the proposals a plain computation gives: a review kept up to date across changes (the
catalogue's rows read by revision, proposals found again only in the partitions a change touched) equals a review
by a new store that computes everything from nothing, on a generated store of a few thousand memories with every
kind; and claims worked out from the words equal the regular expressions they replaced."""

from __future__ import annotations

import random
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from mneme_tui import config
from mneme_tui.bench.synthetic import PATHS, generate
from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.choices import KINDS
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.curation.review import decide
from mneme_tui.memory.store import Store

from .test_stale import STORE_PY, Repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SIZE = 2_500
REPO = "ledger"
"""The repo the work tree is of (the stale kind judges its memories)."""


def _copies(now: datetime) -> list[dict]:
    """Exact copies (other case and spacing) and near copies (one word added) of generated memories."""
    copies = []
    for number, item in enumerate(generate(60, seed=11, now=now)):
        text = item["content"].replace(f"(ref {number})", f"(copy {number})")
        copies.append({**item, "content": text, "access_count": 0})
        if number % 2:
            copies.append({**item, "content": "  " + text.upper(), "created_at": now - timedelta(days=3)})
        else:
            copies.append({**item, "content": text.replace(" the ", " the same ", 1)})
    return copies


@pytest.fixture
def work_tree(tmp_path: Path) -> Path:
    """A git work tree of ``REPO`` where one of the generated memories' paths is and one was deleted."""
    repo = Repo(tmp_path / REPO)
    repo.write(PATHS[0], STORE_PY)
    repo.write(PATHS[1], STORE_PY)
    repo.commit(1)
    repo.delete(PATHS[1], day=5)
    return repo.root


def _reviews_agree(live: Store, path: Path, root: Path) -> list:
    """The live store's proposals (every repo, and ``REPO`` alone) equal those of a new store; returns them."""
    fresh = Store(path)
    try:
        for repo in (None, REPO):
            assert open_proposals(live, repo, root=root) == open_proposals(fresh, repo, root=root)
        return open_proposals(live, None, root=root)
    finally:
        fresh.close()


def test_kept_up_to_date_equals_computed_afresh(tmp_path: Path, work_tree: Path) -> None:
    now = config.now()
    path = tmp_path / "generated.db"
    live = Store(path)
    live.mint_ids(generate(SIZE, now=now))
    live.mint_ids(_copies(now))
    proposals = _reviews_agree(live, path, work_tree)
    assert {p.kind for p in proposals} == set(KINDS)
    duplicate = next(p for p in proposals if p.kind == "duplicate")
    decide(live, duplicate.id, "accept", root=work_tree)  # a merge: statuses change
    _reviews_agree(live, path, work_tree)
    conflict = open_proposals(live, None, kinds=frozenset({"conflict"}))[0]
    decide(live, conflict.id, "accept", root=work_tree)
    _reviews_agree(live, path, work_tree)
    text = live.get(conflict.memory_ids[0]).content
    live.mint_ids(
        [
            {**next(generate(1, now=now)), "content": text, "repo_id": REPO},  # a new exact copy
            {**next(generate(1, seed=3, now=now)), "repo_id": REPO},
        ]
    )
    live.dismiss([proposals[-1].memory_ids[0]])
    proposals = _reviews_agree(live, path, work_tree)
    assert any(p.kind == "duplicate" and p.repo_id == REPO for p in proposals)
    decide(live, proposals[0].id, "reject", root=work_tree)
    _reviews_agree(live, path, work_tree)
    moved = next(p for p in proposals if p.kind == "conflict" and len(p.memory_ids) == 2).memory_ids[0]
    live.update_content(moved, content=live.get(moved).content, topic="Elsewhere")  # out of its conflict's topic
    live.reinforce("INT-1", [proposals[-1].memory_ids[0], next(p for p in proposals if p.kind == "cold").memory_ids[0]])
    assert moved not in {m for p in _reviews_agree(live, path, work_tree) if p.kind == "conflict" for m in p.memory_ids}
    live.close()


_NUMBER_WORD = re.compile(r"\b\d+\b")
_NEGATION = re.compile(r"\b(?:(?:do|does|did|should|must) )?(?:" + "|".join(sorted(T.NEGATORS)) + r")\b")


def _regex_claim(normal: str) -> T.Claim:
    """The claim as the regular expressions worked it out before claims were made from the words."""
    negations = _NEGATION.findall(normal)
    numbers = tuple(_NUMBER_WORD.findall(normal))
    if not negations and not numbers:
        return T.Claim(normal, (), False)
    skeleton = " ".join(_NUMBER_WORD.sub("#", _NEGATION.sub(" ", normal)).split())
    return T.Claim(skeleton, numbers, len(negations) % 2 == 1)


def test_claims_from_words_equal_the_regular_expressions() -> None:
    vocabulary = [
        "do",
        "does",
        "did",
        "should",
        "must",
        "not",
        "never",
        "no",
        "don't",
        "can't",
        "avoid",
        "stop",
        "use",
        "undo",
        "donot",
        "timeout",
        "5",
        "10",
        "٣",
        "²",
        "½",
        "Ⅻ",
        "İ",
        "ß",
        "a_b",
        "--",
        "  ",
    ]
    rng = random.Random(20261201)
    texts = [" ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 9))) for _ in range(20_000)]
    texts += [item["content"] for item in generate(2_000, now=config.now())]
    words = [T.words_of(text) for text in texts]
    claims = []
    for text, its_words in zip(texts, words):
        normal = " ".join(its_words)
        claims.append(T.claim(normal))
        assert claims[-1] == _regex_claim(normal), text
    skeletons, stances, counts = T.claim_hashes(words)  # the catalogue's batch: equal hashes for equal claims
    assert counts.tolist() == [len(claim.skeleton.split()) for claim in claims]
    assert _same_is_same([claim.skeleton for claim in claims], skeletons.tolist())
    assert _same_is_same([(claim.numbers, claim.negated) for claim in claims], stances.tolist())


def _same_is_same(values: list, hashes: list[int]) -> bool:
    """Two of ``values`` are equal exactly when their ``hashes`` are."""
    return len(set(values)) == len(set(hashes)) == len(set(zip(values, hashes)))
