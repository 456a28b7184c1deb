"""The broader public labelled set (tests/fixtures/screen/broad.jsonl): its shape and its split."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest

from bench.screen import BROAD, LABELS, load

SOURCES = {
    "frank-news": False,
    "climatefever-wiki": True,
    "scifact-science": True,
    "contractnli-contract": True,
}  # source -> binary (labels only supported or not)
FIELDS = {
    "id",
    "source",
    "doc",
    "label",
    "claim",
    "passages",
    "author",
    "split",
    "binary",
    "origin",
}


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return load(BROAD)


def test_shape(pairs: list[dict[str, Any]]) -> None:
    assert len(pairs) >= 1000
    assert len({pair["id"] for pair in pairs}) == len(pairs)
    for pair in pairs:
        assert FIELDS <= set(pair) <= FIELDS | {"claim_id"}, pair["id"]
        assert pair["label"] in LABELS
        assert pair["split"] in ("dev", "test")
        assert pair["binary"] is SOURCES[pair["source"]]
        assert pair["author"] == "human" or pair["author"].startswith("model:")
        assert isinstance(pair["claim"], str) and pair["claim"].strip()
        assert pair["passages"] and all(isinstance(p, str) and p.strip() for p in pair["passages"])
        if pair["binary"]:
            assert pair["label"] != "partial", pair["id"]


def test_each_source_has_both_splits_and_both_answers(pairs: list[dict[str, Any]]) -> None:
    counts = Counter((pair["source"], pair["split"], pair["label"]) for pair in pairs)
    for source in SOURCES:
        assert sum(n for (s, _, _), n in counts.items() if s == source) >= 250, source
        for split in ("dev", "test"):
            for label in ("supported", "unsupported"):
                assert counts[(source, split, label)] >= 20, (source, split, label)
    assert counts[("frank-news", "test", "partial")] >= 10


@pytest.mark.parametrize("key", ["doc", "claim_id"])
def test_dev_and_test_share_no_document(pairs: list[dict[str, Any]], key: str) -> None:
    sides: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pair in pairs:
        if key in pair:
            sides[(pair["source"], str(pair[key]))].add(pair["split"])
    assert sides
    assert {k: v for k, v in sides.items() if len(v) > 1} == {}


def test_every_source_is_documented(pairs: list[dict[str, Any]]) -> None:
    readme = (BROAD.parent / "BROAD.md").read_text(encoding="utf-8")
    assert all(f"`{source}`" in readme for source in {pair["source"] for pair in pairs})
