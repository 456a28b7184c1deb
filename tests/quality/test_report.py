"""The weekly report from the fixture evaluations directory and from a Prometheus API."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import threading
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from schemas import CitedSource, EvaluationRecord
from sidecar.cli import cli
from sidecar.quality._io import read_records, record_files
from sidecar.quality._prometheus import PrometheusClient, PrometheusError, weekly_from_prometheus
from sidecar.quality._render import weekly_html, weekly_markdown
from sidecar.quality.report import (
    CRITICAL_ORDER,
    WeeklyReport,
    source_document,
    weekly_from_records,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
WEEK_DIR = FIXTURES / "evaluations" / "week"
END = date(2025, 3, 16)
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def records() -> list[EvaluationRecord]:
    return list(read_records(record_files(WEEK_DIR)))


@pytest.fixture(scope="module")
def weekly(records: list[EvaluationRecord]) -> WeeklyReport:
    return weekly_from_records(records, top=5)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_daily_and_weekly_figures_match_the_records(
    records: list[EvaluationRecord], weekly: WeeklyReport
) -> None:
    report = weekly
    assert report.end == END
    assert [s.app for s in report.apps] == ["billing", "support-bot"]
    for section in report.apps:
        mine = [r for r in records if r.app == section.app]
        assert section.traces == len(mine)
        assert list(section.series) == ["validity", "correctness", "completeness"]
        for figure in section.series["correctness"]:
            day = [
                r.scores.correctness
                for r in mine
                if r.trace_timestamp.date() == figure.day
                and r.judged
                and r.scores.correctness is not None
            ]
            assert figure.estimate.n == len(day)
            assert figure.estimate.value == pytest.approx(_mean(day))
            assert figure.estimate.low is not None and figure.estimate.high is not None
            assert figure.estimate.low <= figure.estimate.value <= figure.estimate.high
        last, this = section.weeks["validity"]
        assert (last.n, this.n) == (70, 70)
        assert this.value == pytest.approx(
            _mean(
                [r.scores.validity for r in mine if r.trace_timestamp.date() >= date(2025, 3, 10)]
            )
        )
    billing = report.apps[0]
    last, this = billing.weeks["correctness"]
    assert last.value is not None and this.value is not None and this.value < last.value - 0.1


def test_critical_claims_sources_and_judge_cost(
    records: list[EvaluationRecord], weekly: WeeklyReport
) -> None:
    report = weekly
    this_week = [r for r in records if r.trace_timestamp.date() >= date(2025, 3, 10)]
    for section in report.apps:
        mine = [r for r in this_week if r.app == section.app]
        reasons = Counter(c.critical_reason for r in mine for c in r.claims if c.critical_reason)
        assert section.critical_counts == dict(reasons)
        assert section.critical_total == sum(reasons.values())
        # Each claim once, with the traces that made it (the same text for the same reason).
        claims = Counter(
            (c.critical_reason, c.text) for r in mine for c in r.claims if c.critical_reason
        )
        assert [(i.reason, i.text, i.traces) for i in section.critical] == sorted(
            ((reason, text, n) for (reason, text), n in claims.items()),
            key=lambda c: (CRITICAL_ORDER.index(c[0]), -c[2]),
        )[:5]
        assert all(item.reason == "judged_unsupported" for item in section.critical[:1])
        sources = Counter(
            source_document(i, {s.source_id: s.url or s.title for s in r.cited_sources})
            for r in mine
            for c in r.claims
            if c.verdict == "unsupported"
            for i in c.citation_ids
        )
        assert section.top_sources == sources.most_common(5)
    costs = {c.scope: c for c in report.judge}
    for app, cost in costs.items():
        runs = [r.judge for r in this_week if r.app == app and r.judge is not None]
        assert cost.requests == len(runs)
        assert cost.input_tokens == sum(run.input_tokens for run in runs)
        assert cost.errors.successes == sum(run.outcome != "ok" for run in runs)


def test_priority_sample_stays_out_of_population_figures(
    records: list[EvaluationRecord], weekly: WeeklyReport
) -> None:
    base = weekly
    extra = [
        r.model_copy(update={"trace_id": f"{i:032x}", "sampled_by": "priority"})
        for i, r in enumerate(records[:20], start=1)
    ]
    mixed = weekly_from_records([*records, *extra])
    for before, after in zip(base.apps, mixed.apps, strict=True):
        assert after.weeks["correctness"] == before.weeks["correctness"]
        assert after.weeks["validity"][0].n >= before.weeks["validity"][0].n


def test_a_claim_many_traces_made_is_listed_once_with_their_count(
    records: list[EvaluationRecord],
) -> None:
    record = next(r for r in records if any(c.critical_reason for c in r.claims))
    copies = [
        record.model_copy(
            update={
                "trace_id": f"{i:032x}",
                "trace_timestamp": record.trace_timestamp.replace(hour=i),
                "claims": [
                    c.model_copy(update={"text": "  " + c.text.upper()}) if i == 3 else c
                    for c in record.claims
                ],
            }
        )
        for i in range(1, 11)
    ]
    [section] = weekly_from_records(copies).apps
    [item] = section.critical
    assert (item.traces, item.trace_id, item.first_day, item.day) == (
        10,
        f"{10:032x}",
        record.trace_timestamp.date(),
        record.trace_timestamp.date(),
    )
    assert section.critical_total == 10
    page = weekly_markdown(weekly_from_records(copies))
    assert page.count(f"| {10:032x} |") == 1 and f"{1:032x}" not in page


def test_every_critical_reason_has_a_rank() -> None:
    from typing import get_args

    from schemas import CriticalReason

    assert sorted(CRITICAL_ORDER) == sorted(get_args(CriticalReason))


def test_a_quote_in_injection_claim_is_listed(records: list[EvaluationRecord]) -> None:
    record = next(r for r in records if any(c.critical_reason for c in r.claims))
    claims = [
        c.model_copy(update={"critical_reason": "quote_in_injection"}) if c.critical_reason else c
        for c in record.claims
    ]
    [section] = weekly_from_records([record.model_copy(update={"claims": claims})]).apps
    assert [item.reason for item in section.critical] == ["quote_in_injection"]


def test_no_critical_claim_is_not_styled_as_a_risk(records: list[EvaluationRecord]) -> None:
    calm = [r for r in records if not any(c.critical_reason for c in r.claims)]
    risky = next(r for r in records if any(c.critical_reason for c in r.claims))
    assert '<p class="risk">0 in total' not in weekly_html(weekly_from_records(calm))
    assert "<p>0 in total (none)</p>" in weekly_html(weekly_from_records(calm))
    assert '<p class="risk">1 in total' in weekly_html(weekly_from_records([risky]))


def test_claim_text_is_escaped_in_html(records: list[EvaluationRecord]) -> None:
    record = next(r for r in records if any(c.critical_reason for c in r.claims))
    claims = [
        c.model_copy(update={"text": "<script>alert(1)</script> & more"})
        if c.critical_reason
        else c
        for c in record.claims
    ]
    report = weekly_from_records([record.model_copy(update={"claims": claims})])
    page = weekly_html(report)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "<script>alert(1)</script> & more" in weekly_markdown(report)


def test_cli_report_writes_html_and_markdown(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "report",
            "--weekly",
            "--records",
            str(WEEK_DIR),
            "--out-dir",
            str(tmp_path),
            "--progress",
        ],
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "weekly-2025-03-16.html").read_text(encoding="utf-8")
    markdown = (tmp_path / "weekly-2025-03-16.md").read_text(encoding="utf-8")
    assert page.count("<svg") == 6  # three metrics for each of two apps
    assert not re.search(r"(src|href)=\"?https?:", page)  # self-contained
    assert markdown.startswith("# citewatch weekly quality report, 2025-03-10 to 2025-03-16")
    assert "| billing | correctness |" in markdown


def test_cli_report_needs_exactly_one_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", "--weekly", "--out-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "exactly one of --records PATH or --prometheus URL" in result.output


# -- Prometheus ---------------------------------------------------------------------------

DAYS = [datetime(2025, 3, d, tzinfo=UTC).timestamp() for d in range(4, 18)]  # day ends


def _matrix(series: list[tuple[dict[str, str], list[float]]], stamps: list[float]) -> Any:
    return {
        "status": "success",
        "data": {
            "resultType": "matrix",
            "result": [
                {
                    "metric": labels,
                    "values": [[t, str(v)] for t, v in zip(stamps, values, strict=True)],
                }
                for labels, values in series
            ],
        },
    }


def _canned(query: str) -> Any:
    """Answers the queries the report makes, with fixed numbers."""
    app = {"app": "support"}
    lexical = {"app": "support", "judge": "lexical"}
    if "validity_ratio_count" in query:
        return _matrix([(app, [100.0] * 14)], DAYS)
    if "validity_ratio_sum" in query:
        return _matrix([(app, [90.0] * 7 + [80.0] * 7)], DAYS)
    if "correctness_ratio_count" in query or "completeness_ratio_count" in query:
        return _matrix([(lexical, [10.0] * 13 + [0.0])], DAYS)
    if "correctness_ratio_sum" in query or "completeness_ratio_sum" in query:
        return _matrix([(lexical, [8.0] * 13 + [0.0])], DAYS)
    if "critical_unsupported" in query:
        return _matrix(
            [
                ({"app": "support", "reason": "uncited"}, [3.0]),
                ({"app": "support", "reason": "judged_unsupported"}, [2.0]),
            ],
            DAYS[-1:],
        )
    if "judge_requests_total" in query:
        return _matrix(
            [
                ({"model": "m", "outcome": "ok"}, [95.0]),
                ({"model": "m", "outcome": "timeout"}, [5.0]),
            ],
            DAYS[-1:],
        )
    if "judge_tokens_total" in query:
        return _matrix(
            [
                ({"model": "m", "type": "input"}, [1000.0]),
                ({"model": "m", "type": "output"}, [200.0]),
            ],
            DAYS[-1:],
        )
    return {"status": "error", "errorType": "bad_data", "error": "unexpected query"}


class _Handler(BaseHTTPRequestHandler):
    queries: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        parsed = urllib.parse.urlparse(self.path)
        params = urllib.parse.parse_qs(parsed.query)
        if parsed.path != "/api/v1/query_range":
            self.send_response(404)
            self.end_headers()
            return
        query = params["query"][0]
        _Handler.queries.append(query)
        body = _canned(query)
        raw = json.dumps(body).encode()
        self.send_response(200 if body["status"] == "success" else 400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def prometheus() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_weekly_from_prometheus(prometheus: str) -> None:
    report = weekly_from_prometheus(PrometheusClient(prometheus), end=END)
    (section,) = report.apps
    assert section.app == "support"
    assert list(section.series) == ["validity", "correctness", "completeness"]
    last, this = section.weeks["validity"]
    assert (last.value, last.n, this.value, this.n) == (
        pytest.approx(0.9),
        700,
        pytest.approx(0.8),
        700,
    )
    assert this.low == pytest.approx(0.8 - 1.959964 * math.sqrt(0.8 * 0.2 / 700), abs=1e-6)
    assert section.series["correctness"][-1].estimate.n == 0
    assert section.weeks["correctness"][1].n == 60
    assert section.critical_counts == {"judged_unsupported": 2, "uncited": 3}
    (cost,) = report.judge
    assert (cost.requests, cost.errors.successes, cost.input_tokens, cost.output_tokens) == (
        100,
        5,
        1000,
        200,
    )
    assert any("need evaluation records" in note for note in report.notes)
    assert any('sampled_by="base"' in q for q in _Handler.queries if "correctness" in q)


def test_prometheus_errors_are_one_line(prometheus: str) -> None:
    with pytest.raises(PrometheusError, match=r"query failed \(bad_data\)"):
        PrometheusClient(prometheus).query_range("up", start=0, end=1, step=1)
    with pytest.raises(PrometheusError, match="cannot reach Prometheus"):
        PrometheusClient("http://127.0.0.1:9", timeout=2).query_range("up", start=0, end=1, step=1)


def test_cli_report_from_prometheus(prometheus: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "report",
            "--weekly",
            "--prometheus",
            prometheus,
            "--end",
            "2025-03-16",
            "--out-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "| support | validity | 0.900" in result.output
    assert (tmp_path / "weekly-2025-03-16.html").read_text(encoding="utf-8").count("<svg") == 3


# -- headless Chromium ---------------------------------------------------------------------


def _chromium(page: Path, screenshot: Path, profile: Path) -> str:
    """Render ``page``, write a screenshot and return Chromium's console log lines."""
    completed = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={profile}",
            "--window-size=1200,2400",
            f"--screenshot={screenshot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return "\n".join(line for line in completed.stderr.splitlines() if ":CONSOLE" in line)


@pytest.mark.skipif(
    not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None,
    reason="/usr/bin/chromium is absent (apt-get install -y chromium)",
)
def test_html_reports_open_in_headless_chromium(tmp_path: Path) -> None:
    control = tmp_path / "control.html"
    control.write_text(
        '<html><body><script>console.error("control-error")</script></body></html>',
        encoding="utf-8",
    )
    assert "control-error" in _chromium(control, tmp_path / "control.png", tmp_path / "p0")

    runner = CliRunner()
    assert (
        runner.invoke(
            cli, ["report", "--weekly", "--records", str(WEEK_DIR), "--out-dir", str(tmp_path)]
        ).exit_code
        == 0
    )
    assert (
        runner.invoke(
            cli,
            ["calibrate", str(FIXTURES / "calibration" / "labels.csv"), "--out-dir", str(tmp_path)],
        ).exit_code
        == 0
    )
    for name in ("weekly-2025-03-16", "calibration"):
        shot = tmp_path / f"{name}.png"
        console = _chromium(tmp_path / f"{name}.html", shot, tmp_path / f"profile-{name}")
        assert console == ""
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert shot.stat().st_size > 20_000  # a rendered page, not a blank canvas


def test_cli_report_counts_a_trace_written_twice_once(tmp_path: Path) -> None:
    files = record_files(WEEK_DIR)
    doubled = tmp_path / "doubled"
    doubled.mkdir()
    for file in files:  # every record twice: once in its file, once in a copy
        shutil.copy(file, doubled / file.name)
        shutil.copy(file, doubled / f"again-{file.name}")
    runner = CliRunner()
    plain = runner.invoke(
        cli,
        [
            "report",
            "--weekly",
            "--records",
            str(WEEK_DIR),
            "--out-dir",
            str(tmp_path / "plain"),
            "--no-progress",
        ],
    )
    again = runner.invoke(
        cli,
        [
            "report",
            "--weekly",
            "--records",
            str(doubled),
            "--out-dir",
            str(tmp_path / "again"),
            "--no-progress",
        ],
    )
    assert plain.exit_code == again.exit_code == 0, again.output
    total = sum(1 for _ in read_records(files))
    assert f"skipped {total} records of traces already counted" in again.output
    plain_md = (tmp_path / "plain" / "weekly-2025-03-16.md").read_text(encoding="utf-8")
    again_md = (tmp_path / "again" / "weekly-2025-03-16.md").read_text(encoding="utf-8")
    note = f"{total} records of traces already counted were skipped (each trace counts once)"
    assert f"> {note}" in again_md and "already counted" not in plain_md
    # every figure is the same as from the records read once
    section = "## This week against last week"
    assert again_md.split(section)[1] == plain_md.split(section)[1]


def test_sources_are_ranked_by_url_else_title_across_traces(
    records: list[EvaluationRecord],
) -> None:
    # Two traces cite the same document under different per-trace IDs, a third one a
    # document with a title only, a fourth one a source with neither.
    base = next(r for r in records if any(c.status == "cited" for c in r.claims))
    cited = next(c for c in base.claims if c.status == "cited")

    def citing(trace_id: str, source_id: str, **source: str) -> EvaluationRecord:
        claim = cited.model_copy(
            update={
                "verdict": "unsupported",
                "citation_ids": [source_id],
                "invalid_citation_ids": [],
            }
        )
        sources = [{"source_id": source_id, **source}] if source else []
        return base.model_copy(
            update={
                "trace_id": trace_id,
                "claims": [claim],
                "cited_sources": [CitedSource.model_validate(s) for s in sources],
            }
        )

    url = "https://kb.example/refunds"
    report = weekly_from_records(
        [
            citing("a" * 32, "S1", url=url, title="Refunds"),
            citing("b" * 32, "S7", url=url),
            citing("c" * 32, "S2", title="Shipping policy"),
            citing("d" * 32, "S3"),
        ],
        top=5,
    )
    [section] = report.apps
    assert section.top_sources == [(url, 2), ("Shipping policy", 1), ("S3 (ID only)", 1)]
