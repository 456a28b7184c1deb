"""The metric set as exposed, and the metric names that PromQL queries refer to."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import FindingRecord
from tests.exporters._records import claim, record

__all__ = [
    "DASHBOARD",
    "RULES_DIR",
    "MetricFamily",
    "dashboard_exprs",
    "exposed_families",
    "promql_metric_names",
    "recording_rule_names",
    "rule_exprs",
]

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "deploy" / "prometheus"
DASHBOARD = ROOT / "deploy" / "grafana" / "citewatch.json"

# Counters and histograms also expose when each series was created (`_created`), which the
# alert rules read to tell a series born in their window from one seen again after an outage.
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
}


@dataclass(frozen=True)
class MetricFamily:
    """One metric as documented: its name, type, label names, buckets and sample names."""

    name: str
    type: str
    labels: frozenset[str]
    buckets: tuple[str, ...]
    samples: frozenset[str]


def exposed_families() -> dict[str, MetricFamily]:
    """Every metric CitewatchMetrics registers, keyed by its documented name.

    Every public method is called once so each labelled metric has a sample to read
    its label names from.
    """
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, apps=["shop"], version="v", judge_model="m")
    metrics.observe_record(
        record(
            claims=[claim("c1", importance=3, verdict="supported"),
                    claim("c2", importance=3, status="uncited", critical_reason="uncited"),
                    claim("c3", importance=2, not_judged="abstained"),
                    claim("c4", importance=3, not_judged="judge_failed",
                          critical_unjudged=True)],
            findings=[FindingRecord(code="injection_suspect", severity="warning",
                                    source_id="S1")],
            correctness=1.0,
            completeness=0.5,
            invalid_ids=["S9"],
            sampled_by="base",
            judge="lexical",
            redactions={"EMAIL": 1},
        )
    )  # fmt: skip
    metrics.trace_duplicate("shop")
    metrics.dead_letter("not_json")
    metrics.judge_request(
        model="m", outcome="ok", latency_seconds=1.0, input_tokens=1, output_tokens=1
    )
    metrics.judge_skip("not_sampled")
    metrics.judge_cache_hit()
    metrics.quote_not_found()
    metrics.set_circuit_state("open")
    metrics.set_lag("rag.traces", 0, 1)
    metrics.mark_processed(1.0)
    metrics.observe_stage("checks", 0.1)
    families: dict[str, MetricFamily] = {}
    for family in registry.collect():
        # The text format Prometheus scrapes shows an Info "x" as the gauge "x_info".
        kind, name = (
            ("gauge", family.name + "_info")
            if family.type == "info"
            else (family.type, family.name)
        )
        suffixes = _SUFFIXES[kind]
        documented = name + ("_total" if kind == "counter" else "")
        labels = {key for sample in family.samples for key in sample.labels} - {"le"}
        buckets = tuple(
            dict.fromkeys(
                sample.labels["le"] for sample in family.samples if sample.name.endswith("_bucket")
            )
        )
        families[documented] = MetricFamily(
            name=documented,
            type=kind,
            labels=frozenset(labels),
            buckets=buckets,
            samples=frozenset(name + suffix for suffix in suffixes),
        )
    return families


def rule_exprs() -> dict[str, str]:
    """Alert and recording rule expressions, keyed by alert or record name."""
    exprs: dict[str, str] = {}
    for path in (RULES_DIR / "alerts.yml", RULES_DIR / "recording.yml"):
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                exprs[rule.get("alert") or rule["record"]] = rule["expr"]
    return exprs


def recording_rule_names() -> set[str]:
    """The series names the recording rules produce."""
    names: set[str] = set()
    for group in yaml.safe_load((RULES_DIR / "recording.yml").read_text())["groups"]:
        names.update(rule["record"] for rule in group["rules"])
    return names


def dashboard_exprs() -> list[str]:
    """Every PromQL query of the dashboard: panel targets, variables and annotations."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs: list[str] = []
    panels = list(dashboard["panels"])
    while panels:
        panel = panels.pop()
        panels.extend(panel.get("panels", []))
        exprs.extend(target["expr"] for target in panel.get("targets", []))
    for variable in dashboard["templating"]["list"]:
        query = variable.get("query")
        if isinstance(query, dict):
            exprs.append(query["query"])
    exprs.extend(a["expr"] for a in dashboard["annotations"]["list"] if "expr" in a)
    return exprs


_PROMQL_WORDS = frozenset(
    """
    sum min max avg count stddev stdvar topk bottomk quantile count_values group
    rate irate increase delta idelta deriv predict_linear resets changes
    histogram_quantile abs absent absent_over_time ceil floor round clamp clamp_min clamp_max
    exp ln log2 log10 sqrt scalar vector time timestamp sort sort_desc label_replace label_join
    avg_over_time min_over_time max_over_time sum_over_time count_over_time last_over_time
    quantile_over_time stddev_over_time present_over_time day_of_week hour
    and or unless bool offset inf nan label_values
    """.split()
)


def promql_metric_names(expr: str) -> set[str]:
    """The metric names an expression (or a Grafana label_values() query) selects."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\boffset\s+-?\w+", " ", text)
    text = re.sub(r"label_values\(\s*([A-Za-z_:][\w:]*)\s*,\s*\w+\s*\)", r" \1 ", text)
    text = re.sub(r"(?<![\w:])\d+(\.\d+)?([eE][+-]?\d+)?", " ", text)
    tokens = set(re.findall(r"[A-Za-z_:][\w:]*", text))
    return {token for token in tokens if token.lower() not in _PROMQL_WORDS}
