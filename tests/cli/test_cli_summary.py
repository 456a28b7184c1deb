"""The summary table of `citewatch check` and `citewatch run --input`: the same quality rows
in both, every mean with its n, "not judged" instead of a mean of nothing, claims not judged
and critical claims by reason. Real runs of the CLI on the examples."""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from schemas import EvaluationRecord
from sidecar.cli._quality import QualityTally, summary_table
from sidecar.cli._summary import JudgeTally
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from tests.support.factories import claim, make_trace, source, trace_dict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
QUALITY_FROM = "mean citation validity"

# What the offline screen makes of the examples: validity of all 36 traces, the other means
# over the 10 traces it judged a claim of, its 29 abstentions and the 2 conflicts it saw
# (suspect: never scored or critical alone).
LEXICAL_QUALITY = {
    "mean citation validity": ("0.8611", "36"),
    "mean correctness": ("0.8889", "9"),
    "mean completeness": ("0.8778", "9"),
    "mean overall": ("0.8928", "9"),
    "claims not judged": ("32", ""),
    "not judged: abstained": ("30", ""),
    "not judged: suspect": ("2", ""),
    "suspect: date": ("1", ""),
    "suspect: other": ("1", ""),
    "not judged: unverified": ("0", ""),
    "not judged: judge_failed": ("0", ""),
    "not judged at importance 3": ("10", ""),
    "critical unsupported claims": ("4", ""),
    "critical: uncited": ("1", ""),
    "critical: invalid_citation": ("2", ""),
    "critical: judged_unsupported": ("0", ""),
    "critical: quote_not_found": ("1", ""),
    "critical: quote_in_injection": ("0", ""),
    "critical claims left unjudged": ("0", ""),
    "finding: answer_chosen": ("1", ""),
    "finding: citation_id_case": ("1", ""),
    "finding: citation_mismatch": ("1", ""),
    "finding: citation_out_of_range": ("1", ""),
    "finding: empty_source": ("2", ""),
    "finding: fabricated_quote": ("1", ""),
    "finding: injection_suspect": ("1", ""),
    "finding: invalid_citation_claim": ("2", ""),
    "finding: no_claims": ("2", ""),
    "finding: no_markers": ("2", ""),
    "finding: prescreen_flag": ("5", ""),
    "finding: quote_unverifiable": ("1", ""),
    "finding: source_truncated": ("1", ""),
    "finding: uncited_claim": ("4", ""),
    "finding: uncited_source": ("8", ""),
    "finding: unknown_citation_id": ("6", ""),
}


def table_rows(text: str) -> dict[str, tuple[str, str]]:
    """{measure: (value, n)} of the summary table printed in ``text``."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) == 3 and cells[0] != "measure":
            rows[cells[0]] = (cells[1], cells[2])
    return rows


def quality_rows(text: str) -> dict[str, tuple[str, str]]:
    """The table's rows from the first mean on: the part both commands share."""
    rows = table_rows(text)
    names = list(rows)
    return {name: rows[name] for name in names[names.index(QUALITY_FROM) :]}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def citewatch(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    full_env.update({"PYTHONPATH": str(ROOT), "COLUMNS": "100", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "sidecar.cli", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_check_prints_each_mean_with_its_n_and_the_claims_not_judged(tmp_path: Path) -> None:
    result = citewatch(
        "check", str(EXAMPLES), "--judge", "lexical", "--output", str(tmp_path / "o.jsonl")
    )
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stderr)
    assert [rows[name] for name in ("lines read", "traces evaluated", "bad lines")] == [
        ("36", ""),
        ("36", ""),
        ("0", ""),
    ]
    assert quality_rows(result.stderr) == LEXICAL_QUALITY


def test_run_once_prints_the_same_quality_table_as_check(tmp_path: Path) -> None:
    result = citewatch(
        "run",
        "--input",
        str(EXAMPLES),
        "--once",
        "--judge",
        "lexical",
        "--output",
        str(tmp_path / "o.jsonl"),
        "--metrics-port",
        "0",
        "--metrics-address",
        "127.0.0.1",
    )
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stderr)
    assert [
        rows[name]
        for name in (
            "lines read",
            "traces evaluated",
            "dead-lettered",
            "duplicates",
            "traces judged by the offline screen",
        )
    ] == [("36", ""), ("36", ""), ("0", ""), ("0", ""), ("32", "")]
    assert quality_rows(result.stderr) == LEXICAL_QUALITY


def test_an_unreachable_judge_is_not_judged_never_a_mean_of_zero(tmp_path: Path) -> None:
    # The screen in front of the LLM off: every judged figure depends on the dead endpoint.
    result = citewatch(
        "check",
        str(EXAMPLES),
        "--judge",
        "openai-chat",
        "--sample-rate",
        "1",
        "--output",
        str(tmp_path / "o.jsonl"),
        env={
            "OPENAI_API_KEY": "sk-test",
            "CITEWATCH_JUDGE_SCREEN": "false",
            "CITEWATCH_JUDGE_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        },
    )
    assert result.returncode == 3, result.stderr  # the judge failed on every call
    rows = quality_rows(result.stderr)
    assert {name: rows[name] for name in list(rows)[:4]} == {
        "mean citation validity": ("0.8611", "36"),
        "mean correctness": ("not judged", "0"),
        "mean completeness": ("not judged", "0"),
        "mean overall": ("not judged", "0"),
    }
    assert "0.0000" not in result.stderr
    not_judged = int(rows["claims not judged"][0])
    assert not_judged > 0 and rows["not judged: judge_failed"] == (str(not_judged), "")
    assert int(rows["critical claims left unjudged"][0]) > 0


def test_beside_a_dead_judge_each_mean_counts_the_traces_the_screen_settled(
    tmp_path: Path,
) -> None:
    # With the screen in front, the claims it supports need no LLM: those traces have
    # scores, the others none, and each n says how many had one.
    out = tmp_path / "o.jsonl"
    result = citewatch(
        "check",
        str(EXAMPLES),
        "--judge",
        "openai-chat",
        "--sample-rate",
        "1",
        "--output",
        str(out),
        env={
            "OPENAI_API_KEY": "sk-test",
            "CITEWATCH_JUDGE_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        },
    )
    assert result.returncode == 3, result.stderr
    records = [EvaluationRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    expected = {}
    for measure in ("correctness", "completeness", "overall"):
        values = [v for r in records if (v := getattr(r.scores, measure)) is not None]
        expected[f"mean {measure}"] = (
            f"{sum(values) / len(values):.4f}" if values else "not judged",
            str(len(values)),
        )
    rows = quality_rows(result.stderr)
    assert {name: rows[name] for name in expected} == expected
    assert 0 < int(rows["mean correctness"][1]) < len(records)


def test_a_wrong_number_at_importance_3_shows_as_a_suspect_number(tmp_path: Path) -> None:
    # 25 EUR where the cited source says 20, citing the wrong source: the screen alone
    # does not page on it, and the summary shows it as a number conflict of importance 3.
    traces = tmp_path / "fee.jsonl"
    traces.write_text(
        json.dumps(
            trace_dict(
                question="What is the change fee?",
                answer="The change fee is 25 EUR per booking [S2].",
                sources=[
                    source("S1", "The change fee is 20 EUR per booking."),
                    source("S2", "The change fee is 20 EUR per booking, payable online."),
                ],
                claims=[claim("c1", "The change fee is 25 EUR per booking.", ["S2"], 3)],
            )
        )
        + "\n"
    )
    result = citewatch(
        "check", str(traces), "--judge", "lexical", "--output", str(tmp_path / "o.jsonl")
    )
    assert result.returncode == 0, result.stderr
    rows = quality_rows(result.stderr)
    assert {
        name: rows[name]
        for name in (
            "claims not judged",
            "not judged: suspect",
            "suspect: number",
            "not judged at importance 3",
            "mean correctness",
        )
    } == {
        "claims not judged": ("1", ""),
        "not judged: suspect": ("1", ""),
        "suspect: number": ("1", ""),
        "not judged at importance 3": ("1", ""),
        "mean correctness": ("not judged", "0"),
    }


def _record(**claim_fields: object) -> EvaluationRecord:
    record = asyncio.run(Pipeline(Settings()).evaluate(make_trace()))
    claims = [c.model_copy(update=claim_fields) for c in record.claims]
    return record.model_copy(update={"claims": claims})


def _render(quality: QualityTally) -> dict[str, tuple[str, str]]:
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(summary_table("t", [("lines read", "2")], quality, JudgeTally()))
    return table_rows(console.export_text())


@pytest.mark.parametrize(
    ("reason", "detail"),
    [
        pytest.param("suspect", "number", id="suspect-number"),
        pytest.param("unverified", "quote_incomplete", id="unverified-quote"),
    ],
)
def test_claims_not_judged_show_their_detail(reason: str, detail: str) -> None:
    quality = QualityTally()
    quality.add(
        _record(
            not_judged=reason,
            not_judged_detail=detail,
            importance=3,
            verdict=None,
            critical_reason=None,
        )
    )
    quality.add(_record())
    rows = _render(quality)
    assert rows["claims not judged"] == ("1", "")
    assert rows[f"not judged: {reason}"] == ("1", "")
    assert rows[f"{reason}: {detail}"] == ("1", "")
    assert rows["not judged at importance 3"] == ("1", "")


def test_no_record_at_all_is_not_judged_everywhere() -> None:
    rows = _render(QualityTally())
    assert [
        rows[f"mean {m}"] for m in ("citation validity", "correctness", "completeness", "overall")
    ] == [("not judged", "0")] * 4
