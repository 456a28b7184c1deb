"""The screen's passage cache is bounded in bytes, and large passages are prepared once."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from sidecar.judge import screen
from sidecar.judge._screen_text import prepare
from sidecar.judge.screen import (
    DEFAULT_CACHE_BYTES,
    clear_passage_cache,
    passage_cache_bytes,
    prepare_passage,
    screen_claim,
    set_passage_cache_bytes,
)


def _passage(n: int, chars: int) -> str:
    sentence = (
        f"Station {n} recorded {n % 97} millimetres of rain in March 2019, and the "
        f"river at gauge {n} rose by {n % 13} metres. "
    )
    return (sentence * (chars // len(sentence) + 1))[:chars]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    clear_passage_cache()
    yield
    set_passage_cache_bytes(DEFAULT_CACHE_BYTES)
    clear_passage_cache()


def test_a_passage_above_the_old_character_cap_is_prepared_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def counting(text: str) -> screen.PreparedPassage:
        calls.append(len(text))
        return prepare(text)

    monkeypatch.setattr(screen, "prepare", counting)
    passage = _passage(1, 64_000)
    for _ in range(20):
        screen_claim("Station 1 recorded 1 millimetres of rain in March 2019.", [passage])
    assert calls.count(64_000) == 1


def test_the_cache_holds_its_byte_bound() -> None:
    set_passage_cache_bytes(4 * 2**20)
    sizes = []
    for n in range(20):
        prepare_passage(_passage(n, 8_000))
        used, bound = passage_cache_bytes()
        sizes.append(used)
        assert used <= bound
    assert max(sizes) > 3 * 2**20  # it did fill up to near the bound
    assert len(screen._CACHE) < 20  # and evicted the oldest passages


def test_the_estimate_is_not_below_the_memory_a_preparation_holds() -> None:
    # what a prepared 64,000-character passage adds to the process, against the estimate
    import tracemalloc

    prepare(_passage(999, 2_000))  # caches warm
    tracemalloc.start()
    prepared = prepare(_passage(1000, 64_000))
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert prepared.nbytes() >= 0.9 * held


def test_the_default_bound_fits_the_pod_with_headroom() -> None:
    # the shipped pod limit is 512Mi; the largest accepted record's passages fit the bound
    set_passage_cache_bytes(DEFAULT_CACHE_BYTES)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for n in range(16):
        prepare_passage(_passage(n, 65_536))  # 1 MiB of passage text, one record's worth
    used, bound = passage_cache_bytes()
    assert len(screen._CACHE) == 16  # one record's passages all stay prepared
    assert used <= bound <= 192 * 2**20
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib * 1024 <= 1.5 * bound


def test_zero_turns_the_cache_off() -> None:
    set_passage_cache_bytes(0)
    prepare_passage(_passage(1, 10_000))
    assert passage_cache_bytes()[0] == 0
    assert len(screen._CACHE) == 0


def test_find_support_prepares_the_claim_once(monkeypatch: pytest.MonkeyPatch) -> None:
    claim = "Station 7 recorded 7 millimetres of rain in March 2019."
    calls: list[str] = []

    def counting(text: str) -> screen.PreparedPassage:
        calls.append(text)
        return prepare(text)

    sources = [(f"S{n}", _passage(n, 2_000)) for n in range(20)]
    monkeypatch.setattr(screen, "prepare", counting)
    assert screen.find_support(claim, sources) == "S7"
    assert calls.count(claim) == 1
