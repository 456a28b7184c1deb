"""docs/metrics.md documents every metric the code registers, and every metric is used."""

from __future__ import annotations

import re

from tests.exporters._metric_names import (
    ROOT,
    dashboard_exprs,
    exposed_families,
    promql_metric_names,
    recording_rule_names,
    rule_exprs,
)

DOC = ROOT / "docs" / "metrics.md"
_ROW = re.compile(r"^\| `(citewatch_\w+)` \| (\w+) \| (.*?) \| (.*?) \| (.*?) \|$")


def _section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _documented() -> dict[str, tuple[str, frozenset[str], tuple[float, ...]]]:
    rows: dict[str, tuple[str, frozenset[str], tuple[float, ...]]] = {}
    for line in _section("Metric set").splitlines():
        match = _ROW.match(line)
        if match is None:
            continue
        name, kind, labels, _, buckets = match.groups()
        rows[name] = (
            kind,
            frozenset(re.findall(r"`(\w+)`", labels)),
            tuple(float(b) for b in buckets.split(",")) if buckets.strip() != "-" else (),
        )
    return rows


def _used_names() -> set[str]:
    names: set[str] = set()
    for expr in [*rule_exprs().values(), *dashboard_exprs()]:
        names |= promql_metric_names(expr)
    return names


def test_every_metric_is_documented_with_type_labels_and_buckets() -> None:
    documented = _documented()
    expected = {
        family.name: (
            family.type,
            family.labels,
            tuple(float(b) for b in family.buckets if b != "+Inf"),
        )
        for family in exposed_families().values()
    }
    assert documented == expected


def test_every_metric_is_used_or_listed_as_unused() -> None:
    used = _used_names()
    unused = {family.name for family in exposed_families().values() if not family.samples & used}
    listed = set(re.findall(r"^- `(citewatch_\w+)`", _section("Not used by rules or the dashboard"),
                            flags=re.MULTILINE))  # fmt: skip
    assert unused == listed


def test_rules_only_use_existing_metrics() -> None:
    known = {name for family in exposed_families().values() for name in family.samples}
    known |= recording_rule_names() | {"up"}
    unknown = {
        name: rule
        for rule, expr in rule_exprs().items()
        for name in promql_metric_names(expr)
        if name not in known
    }
    assert unknown == {}


def test_every_recording_rule_is_documented() -> None:
    section = _section("Recording rules (deploy/prometheus/recording.yml)")
    for name in recording_rule_names():
        prefix, _, suffix = name.rpartition(":")
        assert f"`{name}`" in section or (f"`{prefix}:" in section and f":{suffix}`" in section), (
            name
        )
