"""The weekly report from a real Prometheus holding sixteen days of backfilled citewatch series.

Sixteen UTC days of the citewatch metric set (one sample every 15 minutes) are written as
OpenMetrics text, turned into TSDB blocks with ``promtool tsdb create-blocks-from
openmetrics`` and served by a real Prometheus with no scrape targets. The first day only
gives the first ``increase(...[1d])`` its starting point; the last day (after ``--end``)
holds an incident that must not leak into the report.

Within a day every 15-minute interval observes the same batch of values, so the daily mean
is the batch mean and ``increase()`` is exact whether the range selector includes its left
edge (Prometheus 2) or extrapolates over it (Prometheus 3). The judge counters, read over a
7-day window, keep one rate within each week for the same reason; the lexical calls and the
critical claims come in bursts but are few enough that Prometheus 3's extrapolation error
stays under the half count that rounding absorbs.

Needs Debian's ``prometheus`` package (``prometheus`` and ``promtool``); skipped with a
reason when either is absent.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from exporters.prometheus import RATIO_BUCKETS
from sidecar.cli import cli
from sidecar.quality._prometheus import PrometheusClient, weekly_from_prometheus
from sidecar.quality.report import CRITICAL_ORDER, WeeklyReport, week_days
from tests.support.servers import free_port, get_json, stop, wait_for

pytestmark = pytest.mark.integration

DEADLINE_SECONDS = 30.0
DAY = 86400
STEP = 900
PER_DAY = DAY // STEP

END = date(2026, 11, 29)
FIRST = END - timedelta(days=14)
AFTER = END + timedelta(days=1)
GENERATED = [FIRST + timedelta(days=i) for i in range(16)]
REPORT_DAYS = week_days(END)
LAST_WEEK, THIS_WEEK = REPORT_DAYS[:7], REPORT_DAYS[7:]
SHOP_DROP = {END - timedelta(days=3), END - timedelta(days=2)}
LEXICAL_DAYS = {FIRST, END - timedelta(days=5), END - timedelta(days=4)}

APPS = ("billing", "shop", "support")
LLM, LEXICAL = "openai-responses", "lexical"
LLM_MODEL, LEXICAL_MODEL = "gpt-4o-mini-2024-07-18", "lexical-v1"
OUTCOMES = ("ok", "timeout", "rate_limited")

Batch = tuple[float, ...]
Labels = tuple[tuple[str, str], ...]


def _midnight(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def _this_week(day: date) -> bool:
    return day >= THIS_WEEK[0]


def _traffic(day: date) -> int:
    """Weekdays carry twice the weekend traffic: the counts behind the figures differ."""
    return 1 if day.weekday() >= 5 else 2


# -- what the service observed, per 15-minute interval ---------------------------------------


def _validity(app: str, day: date) -> Batch:
    batch: Batch
    if day == AFTER:
        return (0.0, 0.0)
    if app == "billing":
        batch = (
            (1.0, 1.0, 1.0, 1.0, 1.0, 0.5) if _this_week(day) else (1.0, 1.0, 1.0, 1.0, 0.5, 0.5)
        )
    elif app == "shop":
        batch = (1.0, 1.0, 0.5, 0.5, 0.75) if day in SHOP_DROP else (1.0, 1.0, 1.0, 1.0, 0.75)
    else:
        batch = (1.0, 0.5, 1.0, 0.5) if _this_week(day) else (1.0, 1.0, 1.0, 0.5)
    return batch * _traffic(day)


def _correctness(app: str, judge: str, sampled_by: str, day: date) -> Batch:
    batch: Batch
    if sampled_by == "priority":
        return (0.0, 0.5)
    if judge == LEXICAL:
        return (0.5,) if day in LEXICAL_DAYS else ()
    if day == AFTER:
        return (0.0, 0.0)
    if app == "billing":
        batch = (1.0, 1.0, 0.5, 1.0) if _this_week(day) else (1.0, 0.5, 1.0, 0.5)
    elif app == "shop":
        batch = (1.0, 0.5, 0.0, 0.0) if day in SHOP_DROP else (1.0, 1.0, 1.0, 0.5)
    else:
        batch = (1.0, 1.0, 0.5)
    return batch * _traffic(day)


def _completeness(app: str, judge: str, sampled_by: str, day: date) -> Batch:
    batch: Batch
    if sampled_by == "priority":
        return (0.25,)
    if judge == LEXICAL:
        return (0.4,) if day in LEXICAL_DAYS else ()
    if day == AFTER:
        return (0.0,)
    if app == "billing":
        batch = (0.75, 0.75) if _this_week(day) else (0.75, 0.5)
    elif app == "shop":
        batch = (0.5, 0.25, 0.5) if day in SHOP_DROP else (1.0, 0.75, 0.5)
    else:
        batch = (0.6, 0.8)
    return batch * _traffic(day)


def _critical(app: str, reason: str, day: date) -> int:
    """Critical unsupported claims on ``day`` (they happen one per interval from 09:15)."""
    if app == "shop":
        if reason == "uncited":
            return 1
        if reason == "judged_unsupported":
            return 6 if day == AFTER else 3 if day in SHOP_DROP else 0
        if reason == "quote_not_found":
            return int(day == END - timedelta(days=2))
    if app == "billing" and reason == "invalid_citation":
        return 2 if day == END - timedelta(days=10) else 0
    if app == "support" and reason == "uncited":
        return int(day == END - timedelta(days=5))
    return 0


def _judge_requests(model: str, outcome: str, day: date) -> int:
    if model == LEXICAL_MODEL:
        return int(outcome == "ok" and day in LEXICAL_DAYS)
    if day == AFTER:
        return {"ok": 2, "timeout": 9, "rate_limited": 0}[outcome]
    if outcome == "ok":
        return 11 if _this_week(day) else 12
    if outcome == "timeout":
        return 1
    return int(_this_week(day))


def _judge_tokens(kind: str, day: date) -> int:
    if kind == "input":
        return 8000 if _this_week(day) else 9000
    return 1100 if _this_week(day) else 1200


@dataclass(frozen=True)
class _Histogram:
    family: str
    labels: Labels
    batch: Callable[[date], Batch]


@dataclass(frozen=True)
class _Counter:
    family: str
    labels: Labels
    per_step: Callable[[date, int], float]
    """The increment of the interval ``step`` (0..PER_DAY-1) of ``day``."""


def _histograms() -> list[_Histogram]:
    series = [
        _Histogram("citewatch_citation_validity_ratio", (("app", app),), partial(_validity, app))
        for app in APPS
    ]
    for family, batch in (
        ("citewatch_correctness_ratio", _correctness),
        ("citewatch_completeness_ratio", _completeness),
    ):
        for app in APPS:
            runs = [(LLM, "base"), (LLM, "priority")]
            if app == "support":
                runs.append((LEXICAL, "base"))
            for judge, sampled_by in runs:
                labels = (("app", app), ("judge", judge), ("sampled_by", sampled_by))
                series.append(_Histogram(family, labels, partial(batch, app, judge, sampled_by)))
    return series


def _traces_step(app: str, day: date, step: int) -> float:
    return len(_validity(app, day))


def _critical_step(app: str, reason: str, day: date, step: int) -> float:
    return int(37 <= step < 37 + _critical(app, reason, day))


def _requests_step(model: str, outcome: str, day: date, step: int) -> float:
    return _judge_requests(model, outcome, day)


def _tokens_step(kind: str, day: date, step: int) -> float:
    return _judge_tokens(kind, day)


def _counters() -> list[_Counter]:
    series = [
        _Counter(
            "citewatch_traces", (("app", app), ("outcome", "evaluated")), partial(_traces_step, app)
        )
        for app in APPS
    ]
    for app in APPS:
        for reason in CRITICAL_ORDER:
            series.append(
                _Counter(
                    "citewatch_critical_unsupported_claims",
                    (("app", app), ("reason", reason)),
                    partial(_critical_step, app, reason),
                )
            )
    for model, outcomes in ((LLM_MODEL, OUTCOMES), (LEXICAL_MODEL, ("ok",))):
        for outcome in outcomes:
            series.append(
                _Counter(
                    "citewatch_judge_requests",
                    (("model", model), ("outcome", outcome)),
                    partial(_requests_step, model, outcome),
                )
            )
    for kind in ("input", "output"):
        series.append(
            _Counter(
                "citewatch_judge_tokens",
                (("model", LLM_MODEL), ("type", kind)),
                partial(_tokens_step, kind),
            )
        )
    return series


# -- OpenMetrics text -------------------------------------------------------------------------


def _selector(labels: Labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _stamps() -> list[int]:
    start = _midnight(FIRST)
    return [start + k * STEP for k in range(len(GENERATED) * PER_DAY + 1)]


def _histogram_lines(series: _Histogram, stamps: list[int]) -> Iterator[str]:
    bounds = [*RATIO_BUCKETS, float("inf")]
    per_day = {day: series.batch(day) for day in GENERATED}
    columns: dict[str, list[float]] = {}
    cumulative = [0.0] * (len(bounds) + 2)
    rows = [list(cumulative)]
    for k in range(1, len(stamps)):
        batch = per_day[GENERATED[(k - 1) // PER_DAY]]
        for i, bound in enumerate(bounds):
            cumulative[i] += sum(1 for v in batch if v <= bound)
        cumulative[-2] += sum(batch)
        cumulative[-1] += len(batch)
        rows.append(list(cumulative))
    for i, bound in enumerate(bounds):
        le = "+Inf" if bound == float("inf") else repr(bound)
        columns[f"_bucket{_selector((*series.labels, ('le', le)))}"] = [r[i] for r in rows]
    columns[f"_sum{_selector(series.labels)}"] = [r[-2] for r in rows]
    columns[f"_count{_selector(series.labels)}"] = [r[-1] for r in rows]
    for suffix, values in columns.items():
        for stamp, value in zip(stamps, values, strict=True):
            yield f"{series.family}{suffix} {_number(value)} {stamp}"


def _counter_lines(series: _Counter, stamps: list[int]) -> Iterator[str]:
    total = 0.0
    name = f"{series.family}_total{_selector(series.labels)}"
    yield f"{name} 0 {stamps[0]}"
    for k in range(1, len(stamps)):
        total += series.per_step(GENERATED[(k - 1) // PER_DAY], (k - 1) % PER_DAY)
        yield f"{name} {_number(total)} {stamps[k]}"


def _openmetrics() -> str:
    stamps = _stamps()
    lines: list[str] = []
    histograms: dict[str, list[_Histogram]] = {}
    for h in _histograms():
        histograms.setdefault(h.family, []).append(h)
    for family, members in histograms.items():
        lines.append(f"# TYPE {family} histogram")
        for h in members:
            lines.extend(_histogram_lines(h, stamps))
    counters: dict[str, list[_Counter]] = {}
    for c in _counters():
        counters.setdefault(c.family, []).append(c)
    for family, counted in counters.items():
        lines.append(f"# TYPE {family} counter")
        for c in counted:
            lines.extend(_counter_lines(c, stamps))
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


# -- a real Prometheus on the backfilled blocks -----------------------------------------------


def _status(url: str) -> int:
    with urllib.request.urlopen(url, timeout=2) as response:
        return int(response.status)


def _binaries() -> tuple[str, str]:
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if prometheus is None or promtool is None:
        pytest.skip("prometheus and promtool are needed (Debian package 'prometheus')")
    return prometheus, promtool


@pytest.fixture(scope="module")
def prometheus_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    prometheus, promtool = _binaries()
    root = tmp_path_factory.mktemp("report-prometheus")
    source = root / "citewatch.om"
    source.write_text(_openmetrics(), encoding="utf-8")
    data = root / "data"
    # One pass over the file per block: blocks of 4 days instead of promtool's 2 hours.
    completed = subprocess.run(
        [
            promtool,
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            "--max-block-duration=96h",
            "--quiet",
            str(source),
            str(data),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    (root / "prometheus.yml").write_text(
        yaml.safe_dump({"global": {"evaluation_interval": "1m"}, "scrape_configs": []})
    )
    port = free_port()
    log = root / "prometheus.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [
                prometheus,
                f"--config.file={root / 'prometheus.yml'}",
                f"--storage.tsdb.path={data}",
                "--storage.tsdb.retention.time=60d",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(
            "ready",
            lambda: _status(f"{url}/-/ready") == 200,
            proc,
            deadline_seconds=DEADLINE_SECONDS,
            log=log,
        )
        probe = f"{url}/api/v1/query?" + urllib.parse.urlencode(
            {"query": "count(citewatch_citation_validity_ratio_count)", "time": _midnight(AFTER)}
        )
        wait_for(
            "the backfilled series",
            lambda: get_json(probe)["data"]["result"],
            proc,
            deadline_seconds=DEADLINE_SECONDS,
            log=log,
        )
        yield url
    finally:
        stop(proc)


# -- what the report should say ---------------------------------------------------------------


def _expected_series() -> dict[str, dict[str, Callable[[date], Batch]]]:
    """Per app, report series name -> the batch observed per interval on a day."""
    expected: dict[str, dict[str, Callable[[date], Batch]]] = {}
    for app in APPS:
        series: dict[str, Callable[[date], Batch]] = {"validity": partial(_validity, app)}
        judges = [LLM, LEXICAL] if app == "support" else [LLM]
        for metric, batch in (("correctness", _correctness), ("completeness", _completeness)):
            for judge in judges:
                name = metric if len(judges) == 1 else f"{metric} ({judge})"
                series[name] = partial(batch, app, judge, "base")
        expected[app] = series
    return expected


def _figure(batch: Callable[[date], Batch], days: list[date]) -> tuple[float | None, int]:
    values = [v for day in days for v in batch(day)]
    if not values:
        return None, 0
    return sum(values) / len(values), PER_DAY * len(values)


def _change(batch: Callable[[date], Batch]) -> float | None:
    last, _ = _figure(batch, LAST_WEEK)
    this, _ = _figure(batch, THIS_WEEK)
    return None if last is None or this is None else this - last


def test_the_designed_data_moves_between_the_weeks() -> None:
    """The fixture's own premises, so the report assertions below compare something."""
    expected = _expected_series()
    changes = {
        (app, name): _change(batch)
        for app, series in expected.items()
        for name, batch in series.items()
    }
    assert changes[("shop", "correctness")] is not None
    assert changes[("shop", "correctness")] < -0.05
    assert changes[("billing", "correctness")] is not None
    assert changes[("billing", "correctness")] > 0.05
    assert changes[("support", "validity")] is not None
    assert changes[("support", "validity")] < -0.05
    assert changes[("support", "correctness (lexical)")] is None
    assert {_figure(expected["shop"]["validity"], [d])[1] for d in THIS_WEEK} == {
        PER_DAY * 5,
        PER_DAY * 10,
    }


def _check_report(report: WeeklyReport) -> None:
    expected = _expected_series()
    assert report.end == END
    assert [s.app for s in report.apps] == list(APPS)
    for section in report.apps:
        series = expected[section.app]
        assert sorted(section.series) == sorted(series)
        for name, batch in series.items():
            figures = section.series[name]
            assert [f.day for f in figures] == REPORT_DAYS
            for figure in figures:
                mean, n = _figure(batch, [figure.day])
                est = figure.estimate
                assert (est.n, est.value is None) == (n, mean is None), (
                    section.app,
                    name,
                    figure.day,
                )
                if mean is not None:
                    assert est.value == pytest.approx(mean, rel=1e-9, abs=1e-12)
                    assert est.value is not None and est.low is not None
                    assert est.high is not None and est.low <= est.value <= est.high
            last, this = section.weeks[name]
            for got, days in ((last, LAST_WEEK), (this, THIS_WEEK)):
                mean, n = _figure(batch, days)
                assert got.n == n, (section.app, name)
                assert got.value == (
                    None if mean is None else pytest.approx(mean, rel=1e-9, abs=1e-12)
                )
            change = _change(batch)
            if change is not None and abs(change) > 1e-9:
                assert last.value is not None and this.value is not None
                assert (this.value - last.value > 0) == (change > 0), (section.app, name)
        assert section.traces == sum(_figure(series["validity"], [d])[1] for d in REPORT_DAYS)
        critical = {
            reason: sum(_critical(section.app, reason, d) for d in THIS_WEEK)
            for reason in CRITICAL_ORDER
        }
        assert section.critical_counts == {r: n for r, n in critical.items() if n}
        assert list(section.critical_counts) == [r for r in CRITICAL_ORDER if critical[r]]
        assert section.critical_total == sum(critical.values())
    shop = report.apps[1]
    assert shop.weeks["correctness"][1].value is not None
    assert shop.weeks["correctness"][0].value is not None
    assert shop.weeks["correctness"][1].value < shop.weeks["correctness"][0].value - 0.05
    week = {d.day: d.estimate.value or 0.0 for d in shop.series["correctness"][7:]}
    assert max(week[d] for d in SHOP_DROP) < min(v for d, v in week.items() if d not in SHOP_DROP)

    costs = {c.model: c for c in report.judge}
    assert sorted(costs) == [LLM_MODEL, LEXICAL_MODEL]
    for model, outcomes in ((LLM_MODEL, OUTCOMES), (LEXICAL_MODEL, ("ok",))):
        counted = {
            o: PER_DAY * sum(_judge_requests(model, o, d) for d in THIS_WEEK) for o in outcomes
        }
        cost = costs[model]
        assert cost.scope == "all apps"
        assert cost.outcomes == {o: n for o, n in sorted(counted.items()) if n}
        assert cost.requests == sum(counted.values())
        assert cost.errors.n == cost.requests
        assert cost.errors.successes == cost.requests - counted["ok"]
    llm = costs[LLM_MODEL]
    assert (llm.input_tokens, llm.output_tokens) == tuple(
        PER_DAY * sum(_judge_tokens(kind, d) for d in THIS_WEEK) for kind in ("input", "output")
    )
    assert (costs[LEXICAL_MODEL].input_tokens, costs[LEXICAL_MODEL].output_tokens) == (0, 0)
    assert any("need evaluation records" in note for note in report.notes)


def test_weekly_from_a_real_prometheus(prometheus_url: str) -> None:
    report = weekly_from_prometheus(PrometheusClient(prometheus_url), end=END)
    _check_report(report)
    assert report.source == f"Prometheus at {prometheus_url}"


_FIGURE = r"(?:([0-9.]+)(?: \[[0-9.]+-[0-9.]+\])? \(n=(\d+)\)|n/a \(n=0\))"
_OVERVIEW = re.compile(
    rf"^\| ([^|]+) \| ([^|]+) \| {_FIGURE} \| {_FIGURE} \| ([+-][0-9.]+|n/a) \|$", re.MULTILINE
)


def _parsed(value: str | None, n: str | None) -> tuple[float | None, int]:
    return (None, 0) if value is None else (float(value), int(n or 0))


def test_cli_writes_the_report_from_a_real_prometheus(prometheus_url: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "report",
            "--weekly",
            "--prometheus",
            prometheus_url,
            "--end",
            END.isoformat(),
            "--out-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / f"weekly-{END.isoformat()}.md").read_text(encoding="utf-8")
    html = (tmp_path / f"weekly-{END.isoformat()}.html").read_text(encoding="utf-8")
    assert markdown in result.output

    expected = _expected_series()
    rows = {(m[0], m[1]): m for m in _OVERVIEW.findall(markdown)}
    wanted = {(app, name) for app, series in expected.items() for name in series}
    assert wanted <= set(rows)
    for app, name in wanted:
        _, _, last_value, last_n, this_value, this_n, change = rows[(app, name)]
        batch = expected[app][name]
        for (value, n), days in (
            ((last_value or None, last_n), LAST_WEEK),
            ((this_value or None, this_n), THIS_WEEK),
        ):
            mean, count = _figure(batch, days)
            got_value, got_n = _parsed(value, n)
            assert got_n == count, (app, name)
            assert got_value == (None if mean is None else pytest.approx(mean, abs=5e-4))
        delta = _change(batch)
        if delta is None:
            assert change == "n/a", (app, name)
        else:
            assert float(change) == pytest.approx(delta, abs=1.1e-3), (app, name)
    for app in APPS:
        assert f"## {app}\n" in markdown
        assert f"<h2>{app}</h2>" in html
    for day in REPORT_DAYS:
        assert markdown.count(f"| {day.isoformat()} |") == len(APPS)
    assert AFTER.isoformat() not in markdown
    assert html.count("<svg") == sum(len(series) for series in expected.values())
    assert html.startswith("<!DOCTYPE html>")
    assert f"| all apps | {LLM_MODEL} | " in markdown
