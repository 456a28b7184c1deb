"""The labels people give review items: their rows, the values a label may take, and how
an item's labels settle (each reviewer's latest label counts; an adjudication decides)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import get_args

from schemas import FailureType, HumanLabelValue, ReviewItem, VerdictLabel
from sidecar.review.errors import LabelValueError

__all__ = [
    "MAX_NOTE_CHARS",
    "FinalLabel",
    "LabelRow",
    "Latest",
    "agreement",
    "answered",
    "checked_label",
    "latest_labels",
    "settled_label",
]

_LABELS = frozenset(get_args(HumanLabelValue))
_FAILURE_TYPES = frozenset(get_args(FailureType))
MAX_NOTE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One label as written (never changed)."""

    label_id: int
    item_id: str
    reviewer: str
    label: HumanLabelValue
    failure_type: str | None
    note: str | None
    adjudication: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class FinalLabel:
    """The label an item ends with: agreed by its reviewers, or decided by adjudication."""

    item: ReviewItem
    label: VerdictLabel
    reviewers: tuple[str, ...]
    failure_type: str | None
    adjudicated: bool


Latest = tuple[dict[str, LabelRow], LabelRow | None]
"""Of one item: each reviewer's latest label, and the latest adjudication (or None)."""


def checked_label(
    *, label: str, reviewer: str, failure_type: str | None, note: str | None
) -> tuple[str, str, str | None, str | None]:
    """(label, reviewer, failure_type, note) as stored: trimmed, the label lower-cased,
    empty ones None. Raises :class:`LabelValueError` for a value that is not acceptable."""
    label = label.strip().lower()
    if label not in _LABELS:
        raise LabelValueError(f"label {label!r} is not one of {', '.join(sorted(_LABELS))}")
    reviewer = reviewer.strip()
    if not reviewer or len(reviewer) > 64:
        raise LabelValueError("a reviewer name (1 to 64 characters) is required")
    failure_type = (failure_type or "").strip() or None
    if failure_type is not None and failure_type not in _FAILURE_TYPES:
        raise LabelValueError(
            f"failure type {failure_type[:40]!r} is not one of {', '.join(sorted(_FAILURE_TYPES))}"
        )
    note = (note or "").strip() or None
    if note is not None and len(note) > MAX_NOTE_CHARS:
        raise LabelValueError(f"note longer than {MAX_NOTE_CHARS} characters")
    return label, reviewer, failure_type, note


def latest_labels(rows: Iterable[LabelRow]) -> dict[str, Latest]:
    """Per labelled item, of ``rows`` oldest first: each reviewer's latest label, and the
    latest adjudication."""
    found: dict[str, Latest] = {}
    for row in rows:
        reviewers, decided = found.get(row.item_id, ({}, None))
        if row.adjudication:
            decided = row
        else:
            reviewers[row.reviewer] = row
        found[row.item_id] = (reviewers, decided)
    return found


def answered(reviewers: dict[str, LabelRow]) -> dict[str, LabelRow]:
    """The reviewers' labels that are not skips."""
    return {name: row for name, row in reviewers.items() if row.label != "skip"}


def settled_label(latest: Latest, required: int) -> LabelRow | None:
    """The label that settles an item: its adjudication, or the label ``required`` or more
    reviewers gave alike (skips do not count); None while it is open."""
    reviewers, decided = latest
    given = answered(reviewers)
    if decided is not None and decided.label != "skip":
        return decided
    if (
        decided is None
        and len(given) >= required
        and len({row.label for row in given.values()}) == 1
    ):
        return max(given.values(), key=lambda row: row.label_id)
    return None


def agreement(items: Iterable[Latest]) -> tuple[int, int]:
    """(items whose reviewers agree, items labelled by two or more reviewers); skips do not
    count."""
    agree = total = 0
    for reviewers, _ in items:
        given = [row.label for row in answered(reviewers).values()]
        if len(given) >= 2:
            total += 1
            agree += len(set(given)) == 1
    return agree, total


def adjudication_refusal(latest: Latest | None, adjudicator: str) -> str | None:
    """Why ``adjudicator`` may not decide an item whose labels are ``latest`` (None: none
    yet), or None when they may: the item is disputed (its reviewers' latest labels differ),
    they did not label it themselves, and no one else has decided it."""
    reviewers, decided = latest or ({}, None)
    if adjudicator in reviewers:
        return "you labelled this item yourself: another adjudicator decides it"
    if decided is not None:
        if decided.reviewer == adjudicator:
            return None  # a correction of their own decision
        return f"this item was already decided by {decided.reviewer}"
    if len({row.label for row in answered(reviewers).values()}) < 2:
        return "this item is not disputed: only items whose reviewers disagree are adjudicated"
    return None
