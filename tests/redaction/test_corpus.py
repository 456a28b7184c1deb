"""Precision and recall per entity type on the generated labelled corpus.

The rules were tuned on the ``dev`` split only; the ``heldout`` split (another seed) is
measured, never looked into, so its figures say how the rules do on texts they were not
fitted to. Both must meet the floors.
"""

from __future__ import annotations

import pytest

from sidecar.config import RedactionSettings
from sidecar.redaction import BUILTIN_TYPES, build_redactor
from tests.support.redaction_corpus import TypeScore, load_corpus, score

PRECISION_FLOOR = 0.95
RECALL_FLOOR = 0.95
REDACTOR = build_redactor(RedactionSettings())


def _scores(split: str) -> dict[str, TypeScore]:
    return score(
        load_corpus(split),
        lambda text: [(e.type, e.start, e.end) for e in (REDACTOR.detect(text) or [])],
    )


def test_the_corpus_is_large_and_varied() -> None:
    lines = load_corpus("dev")
    assert len(lines) >= 2000
    counts = {
        t: sum(e["type"] == t for line in lines for e in line["entities"]) for t in BUILTIN_TYPES
    }
    assert min(counts.values()) >= 150, counts
    assert sum(line["kind"] == "negative" for line in lines) >= 400
    assert load_corpus("heldout") != lines


@pytest.mark.parametrize("split", ["dev", "heldout"])
def test_precision_and_recall_per_type_meet_the_floors(split: str) -> None:
    scores = _scores(split)
    # The table is part of the test's purpose (see it with pytest -s).
    print(f"\n{split}: type          precision  recall    tp   fp   fn")  # noqa: T201
    for entity_type, s in scores.items():
        row = (
            f"{split}: {entity_type:<13} {s.precision:9.3f} {s.recall:7.3f} "
            f"{s.tp:5d} {s.fp:4d} {s.fn:4d}"
        )
        print(row)  # noqa: T201
    assert sorted(scores) == sorted(BUILTIN_TYPES)
    below = {
        t: (round(s.precision, 3), round(s.recall, 3))
        for t, s in scores.items()
        if s.precision < PRECISION_FLOOR or s.recall < RECALL_FLOOR
    }
    assert below == {}


def test_hard_negatives_produce_no_entity() -> None:
    negatives = [line["text"] for line in load_corpus("dev") if line["kind"] == "negative"]
    flagged = [text for text in negatives if REDACTOR.detect(text)]
    assert flagged == []
