"""calibrate counts every not-judged state (abstained, suspect, unverified, judge_failed),
from evaluation records and from the review store alike: a screen that abstains on nearly
every claim reads as such."""

from __future__ import annotations

import asyncio
from pathlib import Path

from click.testing import CliRunner

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.cli import cli
from sidecar.config import load_settings
from sidecar.quality.calibration import calibrate
from sidecar.quality.labels import join_evaluations, load_labels
from sidecar.quality.review_labels import pairs_from_store
from sidecar.review.store import ReviewStore
from tests.review._items import make_item
from tests.support.factories import claim, make_trace, source


def _screened(n: int, text: str) -> EvaluationRecord:
    pipeline = build_pipeline(
        load_settings(overrides={"judge.backend": "lexical", "sampling.rate": 1.0})
    )
    trace = make_trace(
        trace_id=f"{n + 1:032x}",
        answer="See [S1].",
        sources=[source("S1", "The Basic plan costs 20 EUR a month.")],
        claims=[claim("c1", text, ["S1"], 2)],
    )
    return asyncio.run(pipeline.evaluate(trace))


def test_the_screens_abstentions_are_counted_from_the_evaluations(tmp_path: Path) -> None:
    records = [_screened(n, f"Cats number {n} are purple animals.") for n in range(9)]
    records.append(_screened(9, "The Basic plan costs 20 EUR a month."))
    assert [r.claims[0].not_judged for r in records[:9]] == ["abstained"] * 9
    assert not any(r.judged for r in records[:9])  # the screen gave no verdict at all
    failed = records[0].model_copy(
        update={
            "trace_id": f"{99:032x}",
            "claims": [records[0].claims[0].model_copy(update={"not_judged": "judge_failed"})],
        }
    )
    suspect = records[1].model_copy(
        update={
            "trace_id": f"{98:032x}",
            "claims": [
                records[1]
                .claims[0]
                .model_copy(update={"not_judged": "suspect", "not_judged_detail": "number"})
            ],
        }
    )
    records += [failed, suspect]
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "case_id,claim_id,human_label\n"
        + "".join(f"{r.trace_id},c1,unsupported\n" for r in records),
        encoding="utf-8",
    )
    pairs, unmatched = join_evaluations(load_labels(labels), records)
    assert unmatched == 0
    (report,) = calibrate(pairs)
    overall = report.overall
    assert overall.not_judged == {"abstained": 9, "suspect": 1, "judge_failed": 1}
    assert (overall.abstained.successes, overall.abstained.n) == (10, 11)
    assert overall.n == 1

    evaluations = tmp_path / "evaluations.jsonl"
    evaluations.write_text("".join(r.model_dump_json() + "\n" for r in records), "utf-8")
    result = CliRunner().invoke(
        cli,
        ["calibrate", str(labels), "--evaluations", str(evaluations), "--out-dir", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "not judged              abstained 9, suspect 1, judge_failed 1" in result.output
    markdown = (tmp_path / "calibration.md").read_text(encoding="utf-8")
    assert "by state: abstained 9, suspect 1, judge_failed 1." in markdown


def test_every_state_is_counted_from_the_review_store(tmp_path: Path) -> None:
    states = ["abstained", "abstained", "suspect", "unverified", "judge_failed"]
    items = [
        make_item(n, reasons=["disagreement"], verdict=None, not_judged=state)
        for n, state in enumerate(states)
    ]
    items.append(make_item(9, verdict="supported"))
    with ReviewStore(tmp_path / "review.sqlite") as store:
        store.add(items)
        for item in items:
            store.add_label(
                item_id=item.item_id, reviewer="ann", label="unsupported", form_token=None
            )
        pairs = pairs_from_store(store)
    (report,) = calibrate(pairs)
    assert report.overall.not_judged == {
        "abstained": 2,
        "suspect": 1,
        "unverified": 1,
        "judge_failed": 1,
    }
    assert (report.overall.abstained.successes, report.overall.abstained.n) == (4, 5)
