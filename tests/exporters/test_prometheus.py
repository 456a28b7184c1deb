"""CitewatchMetrics on a fresh registry, read back with get_sample_value."""

from __future__ import annotations

import time

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics_latest

from exporters.prometheus import (
    CRITICAL_REASONS,
    JUDGE_LATENCY_BUCKETS,
    RATIO_BUCKETS,
    CitewatchMetrics,
)
from schemas import FindingRecord
from tests.exporters._records import TRACE_ID, claim, record


def _metrics(apps: tuple[str, ...] = ("shop",)) -> tuple[CollectorRegistry, CitewatchMetrics]:
    registry = CollectorRegistry()
    return registry, CitewatchMetrics(
        registry=registry, apps=apps, version="0.1.0", rubric_version="r1", judge_model="gpt-test"
    )


def _series(registry: CollectorRegistry) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    return {
        (sample.name, tuple(sorted(sample.labels.items())))
        for family in registry.collect()
        for sample in family.samples
    }


def test_judged_record_counts_claims_verdicts_and_ratios() -> None:
    registry, metrics = _metrics()
    metrics.observe_record(
        record(
            claims=[
                claim("c1", importance=2, verdict="supported"),
                claim("c2", importance=3, verdict="partial"),
                claim("c3", importance=2, status="uncited"),
            ],
            validity=0.5,
            correctness=0.75,
            completeness=0.4286,
            invalid_ids=["S9"],
            sampled_by="base",
            judge="openai-responses",
            redactions={"EMAIL": 2, "PHONE": 0},
        )
    )
    get = registry.get_sample_value
    assert get("citewatch_traces_total", {"app": "shop", "outcome": "evaluated"}) == 1
    assert get("citewatch_claims_total", {"app": "shop", "importance": "2", "status": "cited"}) == 1
    assert get("citewatch_claims_total", {"app": "shop", "importance": "3", "status": "cited"}) == 1
    assert (
        get("citewatch_claims_total", {"app": "shop", "importance": "2", "status": "uncited"}) == 1
    )
    verdict_labels = {"app": "shop", "judge": "openai-responses", "sampled_by": "base"}
    assert (
        get(
            "citewatch_claim_verdicts_total",
            {**verdict_labels, "importance": "3", "verdict": "partial"},
        )
        == 1
    )
    assert (
        get(
            "citewatch_claim_verdicts_total",
            {**verdict_labels, "importance": "2", "verdict": "supported"},
        )
        == 1
    )
    assert get("citewatch_correctness_ratio_sum", verdict_labels) == 0.75
    assert get("citewatch_correctness_ratio_count", verdict_labels) == 1
    assert get("citewatch_correctness_ratio_bucket", {**verdict_labels, "le": "0.7"}) == 0
    assert get("citewatch_correctness_ratio_bucket", {**verdict_labels, "le": "0.8"}) == 1
    assert get("citewatch_completeness_ratio_sum", verdict_labels) == 0.4286
    assert get("citewatch_citation_validity_ratio_sum", {"app": "shop"}) == 0.5
    assert get("citewatch_citation_validity_ratio_bucket", {"app": "shop", "le": "0.5"}) == 1
    assert get("citewatch_citation_validity_ratio_bucket", {"app": "shop", "le": "0.4"}) == 0
    assert get("citewatch_invalid_citation_ids_total", {"app": "shop"}) == 1
    assert get("citewatch_redactions_total", {"entity_type": "EMAIL"}) == 2
    assert get("citewatch_redactions_total", {"entity_type": "PHONE"}) is None
    for reason in CRITICAL_REASONS:
        assert (
            get("citewatch_critical_unsupported_claims_total", {"app": "shop", "reason": reason})
            == 0
        )


def test_unjudged_record_leaves_judge_series_empty() -> None:
    registry, metrics = _metrics()
    metrics.observe_record(record(claims=[claim("c1", status="uncited")], validity=0.0))
    names = {name for name, _ in _series(registry)}
    assert "citewatch_correctness_ratio_count" not in names
    assert "citewatch_completeness_ratio_count" not in names
    assert "citewatch_claim_verdicts_total" not in names
    # validity 0.0 falls in the lowest bucket
    get = registry.get_sample_value
    assert get("citewatch_citation_validity_ratio_bucket", {"app": "shop", "le": "0.1"}) == 1


def test_critical_claim_counts_reason_with_trace_id_exemplar() -> None:
    registry, metrics = _metrics()
    metrics.observe_record(
        record(
            claims=[
                claim("c1", importance=3, status="uncited", critical_reason="uncited"),
                claim(
                    "c2",
                    importance=3,
                    status="invalid_citation",
                    critical_reason="invalid_citation",
                ),
            ]
        )
    )
    get = registry.get_sample_value
    labels = {"app": "shop", "reason": "uncited"}
    assert get("citewatch_critical_unsupported_claims_total", labels) == 1
    assert (
        get("citewatch_critical_unsupported_claims_total", {**labels, "reason": "invalid_citation"})
        == 1
    )
    assert (
        get("citewatch_critical_unsupported_claims_total", {**labels, "reason": "quote_not_found"})
        == 0
    )
    text = openmetrics_latest(registry).decode()
    lines = [
        line
        for line in text.splitlines()
        if line.startswith(
            'citewatch_critical_unsupported_claims_total{app="shop",reason="uncited"}'
        )
    ]
    assert len(lines) == 1
    assert f'# {{trace_id="{TRACE_ID}"}} 1.0' in lines[0]


@pytest.mark.parametrize(
    ("outcome", "skip_reason", "reason"),
    [
        pytest.param("id_mismatch", None, "id_mismatch", id="judge-error"),
        pytest.param(None, "budget_tokens_per_minute", "budget_tokens_per_minute", id="budget"),
        pytest.param("something_new", None, "other", id="unknown-kind"),
    ],
)
def test_critical_unjudged_claims_count_the_failure_with_an_exemplar(
    outcome: str | None, skip_reason: str | None, reason: str
) -> None:
    registry, metrics = _metrics()
    metrics.observe_record(
        record(
            claims=[
                claim("c1", importance=3, not_judged="judge_failed", critical_unjudged=True),
                claim("c2", importance=2, not_judged="judge_failed"),
            ],
            judge="openai-chat" if outcome else None,
            outcome=outcome or "ok",
            skip_reason=skip_reason,
            sampled_by="priority",
        )
    )
    get = registry.get_sample_value
    assert get("citewatch_critical_unjudged_claims_total", {"app": "shop", "reason": reason}) == 1
    assert (
        sum(
            get("citewatch_critical_unsupported_claims_total", {"app": "shop", "reason": r}) or 0
            for r in CRITICAL_REASONS
        )
        == 0
    )
    text = openmetrics_latest(registry).decode()
    [line] = [
        line
        for line in text.splitlines()
        if line.startswith(
            f'citewatch_critical_unjudged_claims_total{{app="shop",reason="{reason}"}}'
        )
    ]
    assert f'# {{trace_id="{TRACE_ID}"}} 1.0' in line
    # Created at zero for every app and reason, so the alert's increase() sees the first one.
    assert (
        get("citewatch_critical_unjudged_claims_total", {"app": "other", "reason": "timeout"}) == 0
    )


def test_abstentions_findings_and_screen_verdicts() -> None:
    registry, metrics = _metrics()
    metrics.observe_record(
        record(
            claims=[
                claim("c1", importance=2, verdict="supported", resolved_by="screen"),
                claim("c2", importance=3, verdict="supported", resolved_by="llm"),
                claim("c3", importance=3, not_judged="abstained"),
            ],
            findings=[
                FindingRecord(code="injection_suspect", severity="warning", source_id="S1"),
                FindingRecord(
                    code="misattributed", severity="warning", claim_id="c2", source_id="S3"
                ),
                FindingRecord(code="injection_suspect", severity="warning"),
            ],
            correctness=1.0,
            completeness=1.0,
            sampled_by="base",
            judge="openai-chat",
        )
    )
    get = registry.get_sample_value
    assert get("citewatch_claims_abstained_total", {"app": "shop", "importance": "3"}) == 1
    assert (
        get(
            "citewatch_findings_total",
            {"app": "shop", "code": "injection_suspect", "severity": "warning"},
        )
        == 2
    )
    assert (
        get(
            "citewatch_findings_total",
            {"app": "shop", "code": "misattributed", "severity": "warning"},
        )
        == 1
    )
    verdicts = {"app": "shop", "verdict": "supported", "sampled_by": "base"}
    assert (
        get("citewatch_claim_verdicts_total", {**verdicts, "importance": "2", "judge": "lexical"})
        == 1
    )
    assert (
        get(
            "citewatch_claim_verdicts_total",
            {**verdicts, "importance": "3", "judge": "openai-chat"},
        )
        == 1
    )


def test_unlisted_apps_become_other_and_series_stay_bounded() -> None:
    registry, metrics = _metrics(apps=("shop", "docs"))
    before = len(_series(registry))
    for index in range(10_000):
        metrics.observe_record(
            record(
                app=f"app-{index}",
                claims=[claim("c1", importance=3, status="uncited", critical_reason="uncited")],
                validity=(index % 10) / 10,
                correctness=0.5,
                completeness=0.5,
                sampled_by="base",
                judge="lexical",
                invalid_ids=["S9"],
            )
        )
    series = _series(registry)
    apps = {dict(labels).get("app") for _, labels in series} - {None}
    assert apps == {"shop", "docs", "other"}
    # one app value ("other") adds a fixed set of series, whatever the number of app names
    assert len(series) - before < 120
    get = registry.get_sample_value
    assert get("citewatch_traces_total", {"app": "other", "outcome": "evaluated"}) == 10_000
    assert metrics.app_label("shop") == "shop"
    assert metrics.app_label("app-1") == "other"


def test_duplicates_and_dead_letters() -> None:
    registry, metrics = _metrics()
    metrics.trace_duplicate("shop")
    metrics.trace_duplicate("elsewhere")
    metrics.dead_letter("not_json")
    metrics.dead_letter("invalid_trace", app="shop")
    get = registry.get_sample_value
    assert get("citewatch_traces_total", {"app": "shop", "outcome": "duplicate"}) == 1
    assert get("citewatch_traces_total", {"app": "other", "outcome": "duplicate"}) == 1
    assert get("citewatch_traces_total", {"app": "unknown", "outcome": "dead_lettered"}) == 1
    assert get("citewatch_traces_total", {"app": "shop", "outcome": "dead_lettered"}) == 1
    assert get("citewatch_dead_letters_total", {"reason": "not_json"}) == 1
    assert get("citewatch_dead_letters_total", {"reason": "invalid_trace"}) == 1


def test_judge_metrics() -> None:
    registry, metrics = _metrics()
    metrics.judge_request(
        model="gpt-test", outcome="ok", latency_seconds=1.7, input_tokens=900, output_tokens=120
    )
    metrics.judge_request(
        model="gpt-test", outcome="timeout", latency_seconds=30.0, input_tokens=0, output_tokens=0
    )
    metrics.judge_skip("budget_tokens_per_minute")
    metrics.judge_cache_hit(3)
    metrics.judge_cache_hit()
    metrics.quote_not_found()
    get = registry.get_sample_value
    assert get("citewatch_judge_requests_total", {"model": "gpt-test", "outcome": "ok"}) == 1
    assert get("citewatch_judge_requests_total", {"model": "gpt-test", "outcome": "timeout"}) == 1
    assert get("citewatch_judge_latency_seconds_count", {"model": "gpt-test"}) == 2
    assert get("citewatch_judge_latency_seconds_sum", {"model": "gpt-test"}) == 31.7
    assert get("citewatch_judge_latency_seconds_bucket", {"model": "gpt-test", "le": "2.5"}) == 1
    assert get("citewatch_judge_latency_seconds_bucket", {"model": "gpt-test", "le": "40.0"}) == 2
    assert get("citewatch_judge_tokens_total", {"model": "gpt-test", "type": "input"}) == 900
    assert get("citewatch_judge_tokens_total", {"model": "gpt-test", "type": "output"}) == 120
    assert get("citewatch_judge_skips_total", {"reason": "budget_tokens_per_minute"}) == 1
    assert get("citewatch_judge_cache_hits_total") == 4
    assert get("citewatch_judge_quote_not_found_total") == 1


def test_buckets_match_the_contract() -> None:
    assert RATIO_BUCKETS == pytest.approx([round(0.1 * i, 1) for i in range(1, 11)])
    assert JUDGE_LATENCY_BUCKETS[0] == 0.01
    assert 60 <= JUDGE_LATENCY_BUCKETS[-1] <= 100


def test_circuit_state_is_one_hot_and_ignores_unknown_states(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry, metrics = _metrics()
    get = registry.get_sample_value

    def states() -> dict[str, float | None]:
        return {
            s: get("citewatch_judge_circuit_state", {"state": s})
            for s in ("closed", "open", "half_open")
        }

    assert states() == {"closed": 1, "open": 0, "half_open": 0}
    metrics.set_circuit_state("open")
    assert states() == {"closed": 0, "open": 1, "half_open": 0}
    metrics.set_circuit_state("broken")
    assert "unknown judge circuit state 'broken'" in caplog.text
    assert states() == {"closed": 0, "open": 1, "half_open": 0}


def test_last_processed_starts_at_creation_time() -> None:
    before = time.time()
    registry, _ = _metrics()
    value = registry.get_sample_value("citewatch_last_processed_timestamp_seconds")
    assert value is not None
    assert before <= value <= time.time()


def test_lag_processed_stage_and_build_info() -> None:
    registry, metrics = _metrics()
    metrics.set_lag("rag.traces", 0, 12)
    metrics.set_lag("rag.traces", 1, 0)
    metrics.set_lag("rag.traces", 0, 7)
    metrics.mark_processed(1_700_000_000.5)
    metrics.observe_stage("checks", 0.002)
    metrics.observe_stage("checks", 0.004)
    get = registry.get_sample_value
    assert get("citewatch_consumer_lag_records", {"topic": "rag.traces", "partition": "0"}) == 7
    assert get("citewatch_consumer_lag_records", {"topic": "rag.traces", "partition": "1"}) == 0
    assert get("citewatch_last_processed_timestamp_seconds") == 1_700_000_000.5
    assert get("citewatch_stage_duration_seconds_count", {"stage": "checks"}) == 2
    assert get("citewatch_stage_duration_seconds_bucket", {"stage": "checks", "le": "0.0025"}) == 1
    assert (
        get(
            "citewatch_build_info",
            {"version": "0.1.0", "rubric_version": "r1", "judge_model": "gpt-test"},
        )
        == 1
    )


def test_two_instances_on_separate_registries_do_not_collide() -> None:
    first, metrics_a = _metrics()
    second, _ = _metrics()
    metrics_a.trace_duplicate("shop")
    labels = {"app": "shop", "outcome": "duplicate"}
    assert first.get_sample_value("citewatch_traces_total", labels) == 1
    assert second.get_sample_value("citewatch_traces_total", labels) == 0
