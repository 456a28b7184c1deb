"""The collector settings of a long-running consumer."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from sidecar.runtime.heap import settle_heap


@pytest.fixture()
def restore_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("restore_gc")
def test_start_up_objects_are_frozen_and_young_collections_are_rarer() -> None:
    kept = [[i] for i in range(1000)]  # containers alive at start-up
    settle_heap(young_threshold=5000)
    assert gc.get_freeze_count() >= len(kept)
    assert gc.get_threshold()[0] == 5000
    # Objects made afterwards are still collected: a cycle dies.
    cycle: list[object] = []
    cycle.append(cycle)
    collected_before = gc.get_stats()[2]["collected"]
    del cycle
    gc.collect()
    assert gc.get_stats()[2]["collected"] > collected_before
