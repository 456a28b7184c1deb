"""Calibration pairs from the review store (`citewatch calibrate --from-review STORE`).

Each settled item (agreed by its reviewers, or adjudicated) is one pair: the people's label
against the verdict the judge gave, or None where it gave none, with the state the item
was in (abstained: the screen was not sure; suspect: it saw a conflict no LLM resolved;
unverified: the verdict was not trusted; judge_failed: the judge did not answer). Every
state is counted; judge_failed pairs are kept out of the abstention rate (the judge did not
look at them). The item's rubric version and judge model make the series; its app, the
reason it was routed, whether it is in the audit slice, and what resolved it are slices.
"""

from __future__ import annotations

from pathlib import Path

from sidecar.quality.labels import UNKNOWN, CalibrationError, LabelPair, path_name
from sidecar.review.errors import StoreError
from sidecar.review.store import FinalLabel, ReviewStore

__all__ = ["pairs_from_review", "pairs_from_store"]


def pairs_from_store(store: ReviewStore) -> list[LabelPair]:
    """The calibration pairs of the store's settled labels."""
    return [pair for label in store.final_labels() if (pair := _pair(label)) is not None]


def pairs_from_review(path: str | Path) -> list[LabelPair]:
    """Open the store at ``path`` and read its pairs. Raises CalibrationError when it cannot
    be opened."""
    if not Path(path).is_file():
        raise CalibrationError(f"no review store at {path}")
    try:
        with ReviewStore(path) as store:
            return pairs_from_store(store)
    except StoreError as exc:
        raise CalibrationError(str(exc)) from None


def _pair(label: FinalLabel) -> LabelPair | None:
    item = label.item
    if item.verdict is None and item.not_judged is None:
        return None
    slices = {
        "app": item.app,
        "route": next((r for r in item.reasons if r != "audit"), "audit"),
        "sample": "audit" if item.audit else "flagged",
        "resolved_by": item.resolved_by or (item.not_judged or "none"),
        "path": path_name(
            item.not_judged,
            item.resolved_by,
            rejudge=item.path.get("rejudge"),
            agreed=item.path.get("agreed"),
        ),
    }
    return LabelPair(
        case_id=item.trace_id,
        claim_id=item.claim_id,
        human=label.label,
        judge=item.verdict,
        importance=item.importance,
        failure_type=label.failure_type,
        rubric_version=item.rubric_version or UNKNOWN,
        judge_model=item.judge_model or UNKNOWN,
        slices=tuple(sorted(slices.items())),
        not_judged=item.not_judged if item.verdict is None else None,
    )
