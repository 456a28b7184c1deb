"""The window a clause is aligned with: the first of the most complete ones, whatever the
passage's size or how often it repeats a value."""

from __future__ import annotations

import pytest

from sidecar.judge._screen_clauses import split_clauses
from sidecar.judge._screen_text import prepare
from sidecar.judge._screen_window import best_window
from sidecar.judge.screen import screen_claim

# a value stated in more sentences than the value index is read for
_REPEATED = " ".join(f"Item {k} costs 7 USD in 2020." for k in range(400))
_COUNTED = " ".join(f"Batch {k} has 12 units." for k in range(300))


def _window(claim: str, passages: list[str]) -> tuple[int, int, int, int]:
    """(passage, first sentence, last sentence, score) of the claim's only clause."""
    (clause,) = split_clauses(prepare(claim))
    prepared = [prepare(p) for p in passages]
    found = best_window(clause, prepared)
    assert found is not None
    return prepared.index(found.passage), found.first, found.last, found.score


def test_the_first_of_the_most_complete_windows_is_kept() -> None:
    passages = [
        "The fee is 10 USD. The fee was set in 2020.",
        "The fee is 10 USD. It was set in 2020. The fee is 10 USD, set in 2020.",
    ]
    # the first passage's two sentences hold all of it; the second passage's last one too
    assert _window("The fee of 10 USD was set in 2020.", passages) == (0, 0, 1, 4)


def test_a_window_is_not_widened_by_a_sentence_that_adds_nothing() -> None:
    passage = "The fee is 10 USD. The weather was fine. The fee was set in 2020."
    assert _window("The fee of 10 USD was set in 2020.", [passage]) == (0, 0, 2, 4)
    assert _window("The fee is 10 USD.", [passage + " Nothing else."]) == (0, 0, 0, 2)


@pytest.mark.parametrize(
    ("claim", "passage", "expected"),
    [
        pytest.param(
            "The annual fee is 7 USD.",
            _REPEATED + " The annual fee is 7 USD since 2019.",
            "supported",
            id="repeated-value-found",
        ),
        pytest.param(
            "The annual fee is 9 USD.",
            _REPEATED + " The annual fee is 7 USD since 2019.",
            "unsupported",
            id="repeated-value-rival",
        ),
        pytest.param(
            "Item 12 costs 8 USD in 2020.",
            _REPEATED,
            "unsupported",
            id="repeated-value-other-number",
        ),
        pytest.param(
            "The annual fee is 12 units.",
            _COUNTED + " The annual fee is 12 units in March.",
            "supported",
            id="repeated-count-found",
        ),
        pytest.param("Batch 7 has 13 units.", _COUNTED, "unsupported", id="repeated-count-rival"),
    ],
)
def test_a_value_stated_hundreds_of_times_is_matched_as_any_other(
    claim: str, passage: str, expected: str
) -> None:
    assert screen_claim(claim, [passage]).verdict == expected
