"""The redaction corpora and how they are scored, for tests/redaction and bench/redaction.py.

The labelled corpus (built by tests/redaction/build_corpus.py): precision and recall per
entity type. A prediction is a true positive when its type equals a gold entity's type and
the spans overlap; each gold entity is matched at most once. Overlap rather than exact spans
keeps the comparison fair between detectors that disagree about a trailing bracket or a "+1".

The written-forms corpus (tests/fixtures/redaction/written_forms.jsonl): per class, the
values redacted whole and the hard negatives left clean.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sidecar.config import RedactionSettings
from sidecar.redaction import Redactor, build_redactor

__all__ = ["WRITTEN_FORMS", "TypeScore", "class_scores", "load_corpus", "score", "written_forms"]

WRITTEN_FORMS = Path(__file__).parents[1] / "fixtures" / "redaction" / "written_forms.jsonl"

Span = tuple[str, int, int]


@dataclass(frozen=True)
class TypeScore:
    """Counts and ratios for one entity type."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load_corpus(split: str = "dev") -> list[dict[str, Any]]:
    """The corpus lines of a split ("dev" or "heldout", see build_corpus)."""
    from tests.redaction.build_corpus import build

    return build(split)


def score(
    lines: Iterable[dict[str, Any]], predict: Callable[[str], Iterable[Span]]
) -> dict[str, TypeScore]:
    """Scores per type of ``predict`` (text -> (type, start, end) spans) on the corpus."""
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for line in lines:
        gold = [(e["type"], e["start"], e["end"]) for e in line["entities"]]
        matched = [False] * len(gold)
        for kind, start, end in predict(line["text"]):
            for i, (g_kind, g_start, g_end) in enumerate(gold):
                if not matched[i] and g_kind == kind and start < g_end and g_start < end:
                    matched[i] = True
                    tp[kind] += 1
                    break
            else:
                fp[kind] += 1
        for (g_kind, _, _), hit in zip(gold, matched, strict=True):
            if not hit:
                fn[g_kind] += 1
    kinds = set(tp) | set(fp) | set(fn)
    return {k: TypeScore(tp[k], fp[k], fn[k]) for k in sorted(kinds)}


def written_forms() -> list[dict[str, Any]]:
    """The lines of the written-forms corpus, both splits."""
    return [json.loads(line) for line in WRITTEN_FORMS.read_text(encoding="utf-8").splitlines()]


@cache
def _default_redactor() -> Redactor:
    return build_redactor(RedactionSettings())


def class_scores(
    lines: list[dict[str, Any]], redactor: Redactor | None = None
) -> dict[str, tuple[int, int]]:
    """Per class: values redacted (or negatives left clean) and values (or negatives).

    A value counts as redacted when every letter and digit of it lies inside a detected
    entity of ``redactor`` (by default the one of the default settings); an IBAN read as a
    card number anywhere inside it counts as a miss."""
    detector = redactor if redactor is not None else _default_redactor()
    scores: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        text = line["text"]
        entities = detector.detect(text) or []
        covered = {i for e in entities for i in range(e.start, e.end)}
        score = scores[line["class"]]
        if not line["spans"]:
            score[0] += not entities
            score[1] += 1
        for kind, start, end in line["spans"]:
            whole = all(i in covered for i in range(start, end) if text[i].isalnum())
            split = kind == "IBAN" and any(
                e.type == "CREDIT_CARD" and e.start < end and e.end > start for e in entities
            )
            score[0] += whole and not split
            score[1] += 1
    return {name: (ok, n) for name, (ok, n) in scores.items()}
