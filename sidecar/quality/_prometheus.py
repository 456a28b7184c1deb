"""The weekly report from the Prometheus HTTP API (``/api/v1/query_range``).

Daily figures are ``increase(..._sum[1d]) / increase(..._count[1d])`` of the ratio
histograms, evaluated at each UTC midnight: the same definitions as the ``mean1d``
recording rules in deploy/prometheus/recording.yml (base sample only, split by judge), but
computed from the raw series so the report also covers days before the rules existed.

Prometheus keeps sums and counts, not the values, so the interval is the conservative
one a 0..1 variable allows (variance at most m(1-m)); claim-level sections (top critical
claims, sources) need evaluation records and are left out with a note.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sidecar.errors import CitewatchError
from sidecar.quality._stats import Z95, Estimate, wilson_interval
from sidecar.quality.report import (
    CRITICAL_ORDER,
    AppSection,
    DayFigure,
    JudgeCost,
    WeeklyReport,
    week_days,
)

__all__ = ["PrometheusClient", "PrometheusError", "weekly_from_prometheus"]

logger = logging.getLogger(__name__)

DAY = 86400
Series = list[tuple[dict[str, str], dict[float, float]]]

_RATIOS = {
    "validity": ("citewatch_citation_validity_ratio", "", "app"),
    "correctness": ("citewatch_correctness_ratio", '{sampled_by="base"}', "app, judge"),
    "completeness": ("citewatch_completeness_ratio", '{sampled_by="base"}', "app, judge"),
}


class PrometheusError(CitewatchError):
    """The Prometheus API could not be reached or refused a query."""

    reason = "prometheus"


class PrometheusClient:
    """A minimal client of the Prometheus HTTP API (standard library only).

    Credentials in the URL (``https://user:password@prometheus``) are sent as basic auth and
    kept out of ``base_url``, which is what messages and the report show.
    """

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        try:
            parts = urllib.parse.urlsplit(base_url)
            user, password = parts.username, parts.password
        except ValueError as exc:
            raise PrometheusError(f"the Prometheus URL cannot be read: {exc}") from None
        self._headers: dict[str, str] = {}
        if user is not None or password is not None:
            pair = f"{urllib.parse.unquote(user or '')}:{urllib.parse.unquote(password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(
                pair.encode("utf-8")
            ).decode("ascii")
            parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
        self.base_url = urllib.parse.urlunsplit(parts).rstrip("/")
        self.timeout = timeout

    def query_range(self, query: str, *, start: float, end: float, step: float) -> Series:
        """Each result series' labels and its {timestamp: value}, NaN and Inf dropped.

        Raises PrometheusError naming the query's error type (never echoing the body).
        """
        params = urllib.parse.urlencode(
            {"query": query, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"}
        )
        url = f"{self.base_url}/api/v1/query_range?{params}"
        try:
            request = urllib.request.Request(url, headers=self._headers)
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload: Any = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            payload = _error_body(exc)
            if payload is None:
                raise PrometheusError(
                    f"Prometheus answered HTTP {exc.code} for a query_range request"
                ) from None
        except (urllib.error.URLError, OSError) as exc:
            raise PrometheusError(
                f"cannot reach Prometheus at {self.base_url}: {getattr(exc, 'reason', exc)}"
            ) from None
        except json.JSONDecodeError:
            raise PrometheusError("Prometheus answered with something that is not JSON") from None
        if not isinstance(payload, dict) or payload.get("status") != "success":
            kind = payload.get("errorType", "unknown") if isinstance(payload, dict) else "unknown"
            error = payload.get("error", "") if isinstance(payload, dict) else ""
            raise PrometheusError(f"Prometheus query failed ({kind}): {str(error)[:200]}")
        result: Series = []
        for item in payload.get("data", {}).get("result", []):
            values = {}
            for stamp, raw in item.get("values", []):
                value = float(raw)
                if math.isfinite(value):
                    values[float(stamp)] = value
            result.append(({str(k): str(v) for k, v in item.get("metric", {}).items()}, values))
        logger.debug("query_range returned %d series", len(result))
        return result


def _error_body(exc: urllib.error.HTTPError) -> Any:
    try:
        return json.loads(exc.read().decode("utf-8"))
    except (ValueError, OSError):
        return None


def _midnight(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _bounded(total: float, count: float) -> Estimate:
    n = int(round(count))
    if n <= 0:
        return Estimate(None, None, None, 0, method="none")
    mean = min(max(total / count, 0.0), 1.0)
    half = Z95 * math.sqrt(mean * (1 - mean) / n)
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), n, method="bernoulli-bound")


def weekly_from_prometheus(client: PrometheusClient, *, end: date) -> WeeklyReport:
    """Build the weekly report for the two weeks ending on ``end`` (a UTC date).

    Raises PrometheusError when a query fails.
    """
    days = week_days(end)
    stamps = [_midnight(day + timedelta(days=1)) for day in days]
    first, last = stamps[0], stamps[-1]
    report = WeeklyReport(end=end, source=f"Prometheus at {client.base_url}")
    sections: dict[str, AppSection] = {}
    for metric, (name, selector, by) in _RATIOS.items():
        sums = client.query_range(
            f"sum by ({by}) (increase({name}_sum{selector}[1d]))", start=first, end=last, step=DAY
        )
        counts = client.query_range(
            f"sum by ({by}) (increase({name}_count{selector}[1d]))", start=first, end=last, step=DAY
        )
        count_by_key = {tuple(sorted(labels.items())): values for labels, values in counts}
        judges_per_app: dict[str, set[str]] = defaultdict(set)
        for labels, _ in sums:
            judges_per_app[labels.get("app", "")].add(labels.get("judge", ""))
        for labels, values in sums:
            app = labels.get("app", "unknown")
            judge = labels.get("judge", "")
            counted = count_by_key.get(tuple(sorted(labels.items())), {})
            series_name = metric if len(judges_per_app[app]) <= 1 else f"{metric} ({judge})"
            section = sections.setdefault(app, AppSection(app=app))
            section.series[series_name] = [
                DayFigure(day, _bounded(values.get(t, 0.0), counted.get(t, 0.0)))
                for day, t in zip(days, stamps, strict=True)
            ]
            weeks = []
            for window in (stamps[:7], stamps[7:]):
                weeks.append(
                    _bounded(
                        sum(values.get(t, 0.0) for t in window),
                        sum(counted.get(t, 0.0) for t in window),
                    )
                )
            section.weeks[series_name] = (weeks[0], weeks[1])
            if metric == "validity":
                section.traces = sum(d.estimate.n for d in section.series[series_name])
    for labels, values in client.query_range(
        "sum by (app, reason) (increase(citewatch_critical_unsupported_claims_total[7d]))",
        start=last,
        end=last,
        step=DAY,
    ):
        section = sections.setdefault(
            labels.get("app", "unknown"), AppSection(app=labels.get("app", "unknown"))
        )
        count = int(round(values.get(last, 0.0)))
        reason = labels.get("reason", "unknown")
        if count:
            section.critical_counts[reason] = section.critical_counts.get(reason, 0) + count
            section.critical_total += count
    for section in sections.values():
        section.critical_counts = dict(
            sorted(
                section.critical_counts.items(),
                key=lambda kv: CRITICAL_ORDER.index(kv[0]) if kv[0] in CRITICAL_ORDER else 99,
            )
        )
    report.apps = [sections[app] for app in sorted(sections)]
    report.judge = _judge_costs(client, last)
    report.notes.append(
        "Prometheus holds counts only: the top critical claims and the sources "
        "cited by unsupported claims need evaluation records (--records)."
    )
    if not report.apps:
        report.notes.append(f"no citewatch series in Prometheus for the two weeks ending {end}")
    return report


def _judge_costs(client: PrometheusClient, at: float) -> list[JudgeCost]:
    outcomes: dict[str, dict[str, int]] = defaultdict(dict)
    for labels, values in client.query_range(
        "sum by (model, outcome) (increase(citewatch_judge_requests_total[7d]))",
        start=at,
        end=at,
        step=DAY,
    ):
        count = int(round(values.get(at, 0.0)))
        if count:
            outcomes[labels.get("model", "unknown")][labels.get("outcome", "unknown")] = count
    tokens: dict[str, dict[str, int]] = defaultdict(dict)
    for labels, values in client.query_range(
        "sum by (model, type) (increase(citewatch_judge_tokens_total[7d]))",
        start=at,
        end=at,
        step=DAY,
    ):
        tokens[labels.get("model", "unknown")][labels.get("type", "")] = int(
            round(values.get(at, 0.0))
        )
    costs = []
    for model in sorted(set(outcomes) | set(tokens)):
        by_outcome = dict(sorted(outcomes.get(model, {}).items()))
        requests = sum(by_outcome.values())
        errors = requests - by_outcome.get("ok", 0)
        costs.append(
            JudgeCost(
                scope="all apps",
                model=model,
                requests=requests,
                errors=wilson_interval(errors, requests),
                input_tokens=tokens.get(model, {}).get("input", 0),
                output_tokens=tokens.get(model, {}).get("output", 0),
                outcomes=by_outcome,
            )
        )
    return costs
