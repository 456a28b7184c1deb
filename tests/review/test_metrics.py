"""The review queue's metrics: what the code exposes is what docs/metrics.md documents."""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client import CollectorRegistry

from sidecar.review.metrics import ReviewRunMetrics, StoreCollector
from sidecar.review.store import ReviewStore
from tests.review._items import make_item

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
_ROW = re.compile(r"^\| `(citewatch_review_\w+)` \| (\w+) \| (.*?) \| `?([\w ]+)`? \| .*\|$")


def _documented() -> dict[str, tuple[str, frozenset[str]]]:
    text = DOC.read_text()
    section = text[text.index("## Review queue\n") :]
    rows = {}
    for line in section.splitlines():
        match = _ROW.match(line)
        if match:
            name, kind, labels, _ = match.groups()
            rows[name] = (kind, frozenset(re.findall(r"`(\w+)`", labels)))
    return rows


def _exposed(registry: CollectorRegistry) -> dict[str, tuple[str, frozenset[str]]]:
    found = {}
    for family in registry.collect():
        name = family.name + ("_total" if family.type == "counter" else "")
        labels = frozenset(k for s in family.samples for k in s.labels)
        found[name] = (family.type, labels)
    return found


def test_every_review_metric_is_documented(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    ReviewRunMetrics(registry=registry)
    with ReviewStore(tmp_path / "review.sqlite") as store:
        registry.register(StoreCollector(store))
        assert _exposed(registry) == _documented()


def test_the_collector_reads_depth_labels_and_agreement(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    with ReviewStore(tmp_path / "review.sqlite", reviewers=2, caps={"audit": 1}) as store:
        registry.register(StoreCollector(store))
        a, b, c = (
            make_item(1, reasons=["suspect", "audit"]),
            make_item(2, reasons=["suspect"]),
            make_item(3),
        )
        store.add([a, b, c])
        for item_id, reviewer, label in [
            (a.item_id, "ann", "supported"),
            (a.item_id, "bob", "supported"),
            (b.item_id, "ann", "partial"),
        ]:
            store.add_label(item_id=item_id, reviewer=reviewer, label=label, form_token=None)
        value = registry.get_sample_value
        assert value("citewatch_review_queue_items", {"reason": "suspect"}) == 1
        assert value("citewatch_review_queue_items", {"reason": "audit"}) == 0
        assert value("citewatch_review_labels_total", {"label": "supported"}) == 2
        assert value("citewatch_review_items_stored_total", {"reason": "audit"}) == 1
        assert value("citewatch_review_items_dropped_by_cap_total", {"reason": "audit"}) == 1
        assert value("citewatch_review_reviewer_agreement_ratio") == 1.0
        assert value("citewatch_review_disagreements") == 0
