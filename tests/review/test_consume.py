"""consume(): review-topic records into the store, offsets committed after each batch."""

from __future__ import annotations

import threading
import warnings
from collections import namedtuple
from pathlib import Path
from typing import Any

from sidecar.review.consume import consume
from sidecar.review.store import ReviewStore, item_json
from tests.review._items import make_item

# kafka-python reads its protocol schemas with a deprecated importlib.resources call; import
# it once here so filterwarnings=error does not fail the test on consume()'s import of it.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.structs  # noqa: F401

TP = namedtuple("TP", "topic partition")
Message = namedtuple("Message", "offset value")


class FakeConsumer:
    """Hands out prepared batches, then sets ``stop``; records every commit."""

    def __init__(self, batches: list[dict[Any, list[Message]]], stop: threading.Event) -> None:
        self.batches = batches
        self.stop = stop
        self.commits: list[dict[Any, int]] = []

    def poll(self, timeout_ms: int, max_records: int) -> dict[Any, list[Message]]:
        if not self.batches:
            self.stop.set()
            return {}
        return self.batches.pop(0)

    def commit(self, offsets: dict[Any, Any]) -> None:
        self.commits.append({tp: meta.offset for tp, meta in offsets.items()})


def test_items_are_stored_once_and_offsets_follow_the_store(tmp_path: Path) -> None:
    a, b = TP("citewatch.review", 0), TP("citewatch.review", 1)
    one, two = make_item(1), make_item(2)
    batches = [
        {
            a: [Message(0, item_json(one)), Message(1, b"not a review item")],
            b: [Message(5, item_json(two))],
        },
        {a: [Message(2, item_json(one))]},  # a replay: stored already
    ]
    stop = threading.Event()
    fake = FakeConsumer(batches, stop)
    with ReviewStore(tmp_path / "review.sqlite") as store:
        summary = consume(fake, store, stop)
        assert sorted(i.item_id for i in store.items()) == sorted([one.item_id, two.item_id])
    assert (summary.records, summary.stored, summary.duplicates, summary.bad) == (4, 2, 1, 1)
    assert fake.commits == [{a: 2, b: 6}, {a: 3}]
