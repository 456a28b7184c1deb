"""The Grafana dashboard parses and only queries metrics that exist."""

from __future__ import annotations

import json

import pytest

from tests.exporters._metric_names import (
    DASHBOARD,
    dashboard_exprs,
    exposed_families,
    promql_metric_names,
    recording_rule_names,
)

# Series Prometheus itself provides.
PROMETHEUS_BUILTINS = frozenset({"ALERTS", "up"})


def _known_names() -> set[str]:
    exposed = {name for family in exposed_families().values() for name in family.samples}
    return exposed | recording_rule_names() | PROMETHEUS_BUILTINS


def test_dashboard_parses_with_unique_panel_ids() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "citewatch"
    ids: list[int] = []
    panels = list(dashboard["panels"])
    while panels:
        panel = panels.pop()
        panels.extend(panel.get("panels", []))
        ids.append(panel["id"])
        for target in panel.get("targets", []):
            assert target["expr"].strip(), panel["title"]
    assert len(ids) == len(set(ids))


def test_every_query_uses_existing_metrics() -> None:
    known = _known_names()
    unknown = {
        name: expr
        for expr in dashboard_exprs()
        for name in promql_metric_names(expr)
        if name not in known
    }
    assert unknown == {}


def test_weekly_view_overlays_the_previous_week() -> None:
    exprs = dashboard_exprs()
    for recorded in (
        "app_judge:citewatch_correctness_ratio:mean1d",
        "app_judge:citewatch_completeness_ratio:mean1d",
        "app:citewatch_citation_validity_ratio:mean1d",
    ):
        uses = [expr for expr in exprs if recorded in expr]
        assert any("offset 7d" in expr for expr in uses), recorded
        assert any("offset" not in expr for expr in uses), recorded


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        pytest.param(
            'sum by (app) (rate(citewatch_x_sum{app=~"$app"}[5m])) / 2e3',
            {"citewatch_x_sum"},
            id="selector-and-number",
        ),
        pytest.param(
            "a:b:c offset 7d and on (job) time() - up > 600", {"a:b:c", "up"}, id="recorded"
        ),
        pytest.param("label_values(citewatch_traces_total, app)", {"citewatch_traces_total"},
                     id="grafana-variable"),
        pytest.param("typo_metric_total", {"typo_metric_total"}, id="unknown-kept"),
    ],
)  # fmt: skip
def test_promql_metric_names(expr: str, names: set[str]) -> None:
    assert promql_metric_names(expr) == names
