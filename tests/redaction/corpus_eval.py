"""Precision and recall per entity type on the labelled corpus (shared with bench/redaction.py).

A prediction is a true positive when its type equals a gold entity's type and the spans
overlap; each gold entity is matched at most once. Overlap rather than exact spans keeps the
comparison fair between detectors that disagree about a trailing bracket or a "+1".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["TypeScore", "load_corpus", "score"]

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


def score(lines: Iterable[dict[str, Any]],
          predict: Callable[[str], Iterable[Span]]) -> dict[str, TypeScore]:
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
