"""Calibration figures checked against scikit-learn and scipy on fixed data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from schemas import EvaluationRecord
from sidecar.cli import cli
from sidecar.quality._stats import cohen_kappa, mean_interval, wilson_interval
from sidecar.quality.calibration import calibrate, compute_metrics, confusion_matrix
from sidecar.quality.labels import (
    LABELS,
    CalibrationError,
    LabelPair,
    join_evaluations,
    load_evaluations,
    load_labels,
    pairs_from_labels,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
LABELS_CSV = FIXTURES / "calibration" / "labels.csv"
MIXED = FIXTURES / "calibration" / "mixed.jsonl"
HUMAN = FIXTURES / "calibration" / "human_labels.csv"
EVALUATIONS = FIXTURES / "evaluations" / "week" / "2025-03-03.jsonl"


def _csv_rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _pairs(human: list[str], judge: list[str]) -> list[LabelPair]:
    return [
        LabelPair(case_id=str(i), claim_id="c", human=h, judge=j)  # type: ignore[arg-type]
        for i, (h, j) in enumerate(zip(human, judge, strict=True))
    ]


@pytest.fixture(scope="module")
def fixture_pairs() -> list[LabelPair]:
    return pairs_from_labels(load_labels(LABELS_CSV))


def test_kappa_and_matrix_match_scikit_learn(fixture_pairs: list[LabelPair]) -> None:
    rows = _csv_rows(LABELS_CSV)
    human = [r["human_label"] for r in rows]
    judge = [r["judge_label"] for r in rows]
    metrics = compute_metrics(fixture_pairs)
    expected_matrix = sk_confusion_matrix(human, judge, labels=list(LABELS)).tolist()
    assert [list(row) for row in metrics.matrix] == expected_matrix
    assert metrics.kappa == pytest.approx(cohen_kappa_score(human, judge, labels=list(LABELS)))
    # sklearn's weights follow label positions, so pass the ordered scale explicitly.
    assert metrics.weighted_kappa == pytest.approx(
        cohen_kappa_score(human, judge, labels=list(LABELS), weights="linear")
    )
    assert metrics.kappa != pytest.approx(metrics.weighted_kappa)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_on_small_fixed_tables(weights: str | None) -> None:
    human = [
        "supported",
        "partial",
        "unsupported",
        "supported",
        "partial",
        "supported",
        "unsupported",
        "unsupported",
        "partial",
        "supported",
    ]
    judge = [
        "supported",
        "supported",
        "partial",
        "supported",
        "partial",
        "partial",
        "unsupported",
        "supported",
        "unsupported",
        "supported",
    ]
    ours = cohen_kappa(confusion_matrix(_pairs(human, judge)), weights=weights)
    assert ours == pytest.approx(
        cohen_kappa_score(human, judge, labels=list(LABELS), weights=weights)
    )


def test_kappa_undefined_when_both_raters_use_one_label() -> None:
    pairs = _pairs(["supported"] * 4, ["supported"] * 4)
    assert cohen_kappa(confusion_matrix(pairs)) is None
    assert cohen_kappa(((0, 0), (0, 0))) is None


@pytest.mark.parametrize(("successes", "n"), [(0, 10), (3, 10), (10, 10), (17, 120), (1, 1)])
def test_wilson_matches_scipy(successes: int, n: int) -> None:
    ours = wilson_interval(successes, n)
    theirs = binomtest(successes, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (ours.value, ours.n, ours.successes) == (successes / n, n, successes)
    assert ours.low == pytest.approx(theirs.low)
    assert ours.high == pytest.approx(theirs.high)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
    assert wilson_interval(0, 0).value is None


def test_mean_interval_brackets_the_mean() -> None:
    values = [0.0, 0.5, 1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5]
    est = mean_interval(values)
    assert est.method == "bootstrap" and est.n == 10
    assert est.value == pytest.approx(0.65)
    assert est.low is not None and est.high is not None
    assert 0.0 <= est.low < 0.65 < est.high <= 1.0
    assert mean_interval(values) == est  # seeded: reproducible
    large = mean_interval([i % 3 / 2 for i in range(1000)])
    assert large.method == "normal" and large.low is not None and large.high is not None
    assert large.high - large.low < 0.1


def test_false_supported_rates_are_split_and_counted(fixture_pairs: list[LabelPair]) -> None:
    rows = _csv_rows(LABELS_CSV)
    u_total = sum(r["human_label"] == "unsupported" for r in rows)
    u_to_s = sum(
        r["human_label"] == "unsupported" and r["judge_label"] == "supported" for r in rows
    )
    p_total = sum(r["human_label"] == "partial" for r in rows)
    p_to_s = sum(r["human_label"] == "partial" and r["judge_label"] == "supported" for r in rows)
    metrics = compute_metrics(fixture_pairs)
    assert (metrics.unsupported_to_supported.successes, metrics.unsupported_to_supported.n) == (
        u_to_s,
        u_total,
    )
    assert (metrics.partial_to_supported.successes, metrics.partial_to_supported.n) == (
        p_to_s,
        p_total,
    )
    assert list(metrics.as_dict())[:3] == ["n", "unsupported_to_supported", "partial_to_supported"]


def test_report_slices_by_importance_and_columns(fixture_pairs: list[LabelPair]) -> None:
    (report,) = calibrate(fixture_pairs)
    rows = _csv_rows(LABELS_CSV)
    assert (report.rubric_version, report.judge_model) == ("r1", "model-a")
    assert {k: v.n for k, v in report.by_importance.items()} == {
        k: sum(r["importance"] == k for r in rows) for k in ("1", "2", "3")
    }
    assert set(report.by_slice) == {"doc_type", "failure_type", "language"}
    assert {k: v.n for k, v in report.by_slice["language"].items()} == {
        lang: sum(r["language"] == lang for r in rows) for lang in ("de", "en")
    }
    kappa_low, kappa_high = report.overall.kappa_low, report.overall.kappa_high
    assert kappa_low is not None and kappa_high is not None and report.overall.kappa is not None
    assert kappa_low < report.overall.kappa < kappa_high


def test_calibrate_refuses_mixed_rubric_versions() -> None:
    pairs = pairs_from_labels(load_labels(MIXED))
    with pytest.raises(CalibrationError, match="rubric r1.*rubric r2.*--compare"):
        calibrate(pairs)
    reports = calibrate(pairs, compare=True)
    assert sorted(r.rubric_version for r in reports) == ["r1", "r2"]
    assert [r.overall.n for r in reports] == [30, 30]


def test_bad_label_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "case_id,claim_id,human_label,judge_label\na,c1,supported,yes\n", encoding="utf-8"
    )
    with pytest.raises(CalibrationError, match=r"labels.csv:2 judge_label: label 'yes'"):
        load_labels(path)


def test_join_with_evaluations_takes_judge_series_from_records() -> None:
    labels = load_labels(HUMAN)
    records = load_evaluations(EVALUATIONS)
    pairs, unmatched = join_evaluations(labels, records)
    assert unmatched == 1
    assert len(pairs) == len(labels) - 1
    verdicts = {(r.trace_id, c.claim_id): c.verdict for r in records for c in r.claims}
    assert all(p.judge == verdicts[(p.case_id, p.claim_id)] for p in pairs)
    assert {p.series for p in pairs} == {("r1", "judge-model-a")}
    assert {dict(p.slices)["app"] for p in pairs} == {"support-bot", "billing"}


def test_cli_calibrate_writes_json_markdown_html(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["calibrate", str(LABELS_CSV), "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    (series,) = data["series"]
    rows = _csv_rows(LABELS_CSV)
    assert series["overall"]["n"] == len(rows)
    assert series["overall"]["kappa"] == pytest.approx(
        cohen_kappa_score([r["human_label"] for r in rows], [r["judge_label"] for r in rows])
    )
    markdown = (tmp_path / "calibration.md").read_text(encoding="utf-8")
    assert markdown.index("unsupported->supported") < markdown.index("partial->supported")
    html = (tmp_path / "calibration.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 1 and "human label" in html
    assert "unsupported->supported" in result.output


def test_cli_calibrate_mixed_is_one_line_error_unless_compare(tmp_path: Path) -> None:
    runner = CliRunner()
    refused = runner.invoke(cli, ["calibrate", str(MIXED), "--out-dir", str(tmp_path)])
    assert refused.exit_code == 2
    assert "Error: labels mix 2 judge series" in refused.output
    assert "Traceback" not in refused.output
    compared = runner.invoke(
        cli, ["calibrate", str(MIXED), "--compare", "--out-dir", str(tmp_path)]
    )
    assert compared.exit_code == 0, compared.output
    html = (tmp_path / "calibration.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 2 and "side by side" in html


def test_cli_calibrate_joins_evaluations(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["calibrate", str(HUMAN), "--evaluations", str(EVALUATIONS), "--out-dir", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    (series,) = data["series"]
    assert (series["rubric_version"], series["judge_model"]) == ("r1", "judge-model-a")
    assert series["unmatched_labels"] == 1
    assert set(series["by_slice"]["app"]) == {"billing", "support-bot"}


# -- abstentions and precision per verdict class --------------------------------------------


def test_abstentions_are_counted_apart_and_precision_is_per_verdict_class() -> None:
    human = [
        "supported",
        "supported",
        "unsupported",
        "unsupported",
        "partial",
        "supported",
        "unsupported",
        "partial",
        "supported",
        "unsupported",
        "supported",
        "partial",
    ]
    judge = [
        "supported",
        None,
        "unsupported",
        "supported",
        "partial",
        None,
        None,
        "unsupported",
        "supported",
        "unsupported",
        "partial",
        None,
    ]
    pairs = [
        LabelPair(case_id=str(i), claim_id="c", human=h, judge=j)  # type: ignore[arg-type]
        for i, (h, j) in enumerate(zip(human, judge, strict=True))
    ]
    metrics = compute_metrics(pairs)
    answered = [(h, j) for h, j in zip(human, judge, strict=True) if j is not None]
    assert metrics.n == len(answered) == 8
    assert (metrics.abstained.successes, metrics.abstained.n) == (4, 12)
    assert {label: (est.successes, est.n) for label, est in metrics.precision.items()} == {
        "supported": (2, 3),
        "partial": (1, 2),
        "unsupported": (2, 3),
    }
    assert metrics.kappa == pytest.approx(
        cohen_kappa_score([h for h, _ in answered], [j for _, j in answered], labels=list(LABELS))
    )
    assert sum(map(sum, metrics.matrix)) == 8
    data = metrics.as_dict()
    assert data["abstained"]["successes"] == 4
    assert set(data["precision"]) == set(LABELS)


def test_labels_file_may_say_the_judge_abstained(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "case_id,claim_id,human_label,judge_label\n"
        "a,c1,supported,supported\na,c2,unsupported,abstained\n"
        "a,c3,partial,unsupported\n",
        encoding="utf-8",
    )
    pairs = pairs_from_labels(load_labels(path))
    assert [p.judge for p in pairs] == ["supported", None, "unsupported"]
    (report,) = calibrate(pairs)
    assert (report.overall.n, report.overall.abstained.successes) == (2, 1)


def _record(
    trace_id: str,
    *,
    judged: bool,
    verdict: str | None,
    reason: str | None = None,
    outcome: str = "ok",
) -> EvaluationRecord:
    record = load_evaluations(EVALUATIONS)[0]
    claim = record.claims[0].model_copy(
        update={
            "claim_id": "c1",
            "verdict": verdict,
            "verdict_reason": reason,
            "citation_ids": ["S1"],
            "invalid_citation_ids": [],
        }
    )
    judge = record.judge.model_copy(update={"outcome": outcome}) if record.judge else None
    return record.model_copy(
        update={"trace_id": trace_id, "claims": [claim], "judged": judged, "judge": judge}
    )


def test_join_pairs_an_unjudged_cited_claim_as_an_abstention(tmp_path: Path) -> None:
    records = [
        _record("t-answered", judged=True, verdict="supported"),
        _record("t-abstained", judged=True, verdict=None),
        _record("t-said-so", judged=False, verdict=None, reason="abstained: content not found"),
        _record("t-not-sampled", judged=False, verdict=None),
        _record("t-judge-failed", judged=True, verdict=None, outcome="timeout"),
    ]
    path = tmp_path / "human.csv"
    path.write_text(
        "case_id,claim_id,human_label\n"
        + "".join(f"{r.trace_id},c1,unsupported\n" for r in records),
        encoding="utf-8",
    )
    pairs, unmatched = join_evaluations(load_labels(path), records)
    assert {p.case_id: p.judge for p in pairs} == {
        "t-answered": "supported",
        "t-abstained": None,
        "t-said-so": None,
    }
    assert unmatched == 2
    (report,) = calibrate(pairs)
    assert (report.overall.abstained.successes, report.overall.abstained.n) == (2, 3)
    assert report.overall.unsupported_to_supported.successes == 1


def test_cli_calibrate_shows_abstentions_and_precision(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "case_id,claim_id,human_label,judge_label\n"
        "a,c1,supported,supported\na,c2,unsupported,abstained\n"
        "a,c3,unsupported,unsupported\na,c4,supported,unsupported\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["calibrate", str(labels), "--out-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "abstained               25.0%" in result.output
    assert "precision unsupported   50.0%" in result.output
    markdown = (tmp_path / "calibration.md").read_text(encoding="utf-8")
    assert "| abstained | precision unsupported | precision partial |" in markdown
    data = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    overall = data["series"][0]["overall"]
    assert (overall["n"], overall["abstained"]["successes"]) == (3, 1)
    assert overall["precision"]["supported"]["value"] == 1.0


def test_agreement_is_reported_per_path() -> None:
    from schemas import ClaimResult
    from sidecar.quality.labels import path_slice

    def result(**fields: object) -> ClaimResult:
        return ClaimResult.model_validate(
            {
                "claim_id": "c1",
                "text": "t",
                "importance": 3,
                "kind": "factual",
                "status": "cited",
                "citation_ids": ["S1"],
                **fields,
            }
        )

    assert (
        path_slice(result(verdict="supported", resolved_by="screen", path={"screen": "supported"}))
        == "screen"
    )
    assert (
        path_slice(
            result(
                verdict="supported",
                resolved_by="llm",
                path={"screen": "suspect", "llm": "supported", "agreed": False},
            )
        )
        == "screen_disagreed"
    )
    assert (
        path_slice(
            result(
                verdict="unsupported",
                resolved_by="llm",
                path={"screen": "suspect", "llm": "unsupported", "agreed": True},
            )
        )
        == "screen_agreed"
    )
    assert (
        path_slice(
            result(
                verdict="supported",
                resolved_by="llm",
                path={"screen": "abstained", "llm": "supported"},
            )
        )
        == "llm"
    )
    assert (
        path_slice(
            result(
                verdict="supported",
                resolved_by="llm",
                path={"llm": "supported", "rejudge": "supported", "agreed": True},
            )
        )
        == "rejudged"
    )
    assert (
        path_slice(
            result(not_judged="suspect", not_judged_detail="date", path={"screen": "suspect"})
        )
        == "not_judged_suspect"
    )


def test_cli_calibrate_shows_agreement_per_path(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["calibrate", str(HUMAN), "--evaluations", str(EVALUATIONS), "--out-dir", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "calibration.json").read_text(encoding="utf-8"))
    (series,) = data["series"]
    paths = series["by_slice"]["path"]
    assert sum(group["n"] for group in paths.values()) == series["overall"]["n"]
    assert set(paths) <= {
        "screen",
        "llm",
        "cache",
        "screen_agreed",
        "screen_disagreed",
        "rejudged",
        "not_judged_abstained",
        "not_judged_suspect",
        "not_judged_unverified",
        "not_judged_judge_failed",
    }
    assert "path" in (tmp_path / "calibration.md").read_text(encoding="utf-8")
